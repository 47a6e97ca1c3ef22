import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { PROMPT_NAMES, type PromptName, categoryPromptName, isPromptName } from '../ai/prompts.ts';
import type { MailEnv } from '../context.ts';
import { categoryPrompt, generalPrompt, generalPrompts, resetPromptBody, savePromptBody } from '../data/prompts.ts';
import { jsonBody, security, text } from './api-common.ts';
import { existingCategory, ok, read, readErrors, write, writeErrors } from './assistant-common.ts';
import { categoryName } from './llm.ts';

/** The assistant's prompts as data: the general prompts, and each category's reply-drafting prompt (the user's own). */
export const promptsApi = new OpenAPIHono<MailEnv>();

const PromptBody = text(20_000).pipe(z.string().trim().min(1, 'is required'));
const PromptSchema = z.object({ name: z.string(), body: z.string(), custom: z.boolean(), default: z.string() }).openapi('Prompt');
const PromptName = z.object({
  name: z
    .string()
    .max(64)
    .openapi({ param: { name: 'name', in: 'path' }, description: PROMPT_NAMES.join(', ') }),
});
const CategoryPromptParam = z.object({ category: categoryName.openapi({ param: { name: 'category', in: 'path' } }) });

function generalName(name: string): PromptName {
  if (!isPromptName(name))
    throw new HttpError(404, 'not_found', `No prompt ${name.slice(0, 64)}: the prompts are ${PROMPT_NAMES.join(', ')}.`);
  return name;
}

promptsApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/llm-prompts',
    tags: ['Prompts'],
    summary: 'The general prompts (the user’s version or the default)',
    security,
    middleware: read,
    responses: { 200: ok(z.object({ items: z.array(PromptSchema) })), ...readErrors },
  }),
  async (c) => c.json({ items: await generalPrompts(c.var.db, c.var.user.id) }, 200),
);

promptsApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/llm-prompts/{name}',
    tags: ['Prompts'],
    summary: 'A named prompt',
    security,
    middleware: read,
    request: { params: PromptName },
    responses: { 200: ok(PromptSchema), ...readErrors },
  }),
  async (c) => c.json(await generalPrompt(c.var.db, c.var.user.id, generalName(c.req.valid('param').name)), 200),
);

promptsApi.openapi(
  createRoute({
    method: 'put',
    path: '/api/admin/llm-prompts/{name}',
    tags: ['Prompts'],
    summary: 'Saves a named prompt',
    security,
    middleware: write(),
    request: { params: PromptName, ...jsonBody(z.object({ body: PromptBody })) },
    responses: { 200: ok(PromptSchema), ...writeErrors },
  }),
  async (c) => {
    const name = generalName(c.req.valid('param').name);
    await savePromptBody(c.var.db, c.var.user.id, name, c.req.valid('json').body);
    return c.json(await generalPrompt(c.var.db, c.var.user.id, name), 200);
  },
);

promptsApi.openapi(
  createRoute({
    method: 'delete',
    path: '/api/admin/llm-prompts/{name}',
    tags: ['Prompts'],
    summary: 'Deletes the user’s version of a prompt: the default applies again',
    security,
    middleware: write(1024),
    request: { params: PromptName },
    responses: { 200: ok(PromptSchema.extend({ deleted: z.boolean() })), ...writeErrors },
  }),
  async (c) => {
    const name = generalName(c.req.valid('param').name);
    const deleted = await resetPromptBody(c.var.db, c.var.user.id, name);
    return c.json({ ...(await generalPrompt(c.var.db, c.var.user.id, name)), deleted }, 200);
  },
);

promptsApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/llm-prompts/category/{category}',
    tags: ['Prompts'],
    summary: 'The category’s reply-drafting prompt (the default is stored when there is none)',
    security,
    middleware: read,
    request: { params: CategoryPromptParam },
    responses: { 200: ok(PromptSchema), ...readErrors },
  }),
  async (c) => {
    const { category } = c.req.valid('param');
    await existingCategory(c, category);
    const view = await categoryPrompt(c.var.db, c.var.user.id, category);
    if (!view.custom) await savePromptBody(c.var.db, c.var.user.id, view.name, view.body);
    return c.json({ ...view, custom: true }, 200);
  },
);

promptsApi.openapi(
  createRoute({
    method: 'put',
    path: '/api/admin/llm-prompts/category/{category}',
    tags: ['Prompts'],
    summary: 'Saves the category’s reply-drafting prompt',
    security,
    middleware: write(),
    request: { params: CategoryPromptParam, ...jsonBody(z.object({ body: PromptBody })) },
    responses: { 200: ok(PromptSchema), ...writeErrors },
  }),
  async (c) => {
    const { category } = c.req.valid('param');
    await existingCategory(c, category);
    await savePromptBody(c.var.db, c.var.user.id, categoryPromptName(category), c.req.valid('json').body);
    return c.json(await categoryPrompt(c.var.db, c.var.user.id, category), 200);
  },
);

promptsApi.openapi(
  createRoute({
    method: 'delete',
    path: '/api/admin/llm-prompts/category/{category}',
    tags: ['Prompts'],
    summary: 'Resets the category’s reply-drafting prompt to the default',
    security,
    middleware: write(1024),
    request: { params: CategoryPromptParam },
    responses: { 200: ok(PromptSchema.extend({ deleted: z.boolean() })), ...writeErrors },
  }),
  async (c) => {
    const { category } = c.req.valid('param');
    const deleted = await resetPromptBody(c.var.db, c.var.user.id, categoryPromptName(category));
    return c.json({ ...(await categoryPrompt(c.var.db, c.var.user.id, category)), deleted }, 200);
  },
);
