import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { categoriesOf } from '../ai/categories.ts';
import { jobView } from '../ai/jobs.ts';
import type { MailContext, MailEnv } from '../context.ts';
import {
  categoryView,
  categoryViews,
  createCategory,
  deleteCategory,
  jobRow,
  setCategoryRule,
  updateCategory,
} from '../data/categories.ts';
import { categoryName } from './llm.ts';
import { ErrorSchema, json, jsonBody, security, text } from './api-common.ts';
import { existingCategory, noCategory, ok, read, readErrors, recategorise, write, writeErrors } from './assistant-common.ts';
import { promptsApi } from './assistant-prompts.ts';
import { summariesApi } from './assistant-summaries.ts';
import { threadsApi } from './assistant-threads.ts';
import { usersApi } from './assistant-users.ts';

/**
 * The assistant's JSON routes: categories and their rules, and their re-categorisation jobs, here;
 * prompts (assistant-prompts.ts), admin users (assistant-users.ts), the summaries document store
 * and Inbox Zero (assistant-summaries.ts) and rolling thread summaries (assistant-threads.ts)
 * mounted below. Everything is the signed-in user's own (keyed by the
 * user's id); the queries are in ../data/.
 */
export const assistantApi = new OpenAPIHono<MailEnv>();

const ReplyMode = z.enum(['draft', 'no_reply', 'manual']).openapi({
  description:
    '`draft`: new mail of the category gets a reply draft; `no_reply`: never (draft/generate answers no_reply); `manual`: on demand',
});
const Rule = text(4000);
const CategoryParam = z.object({ name: categoryName.openapi({ param: { name: 'name', in: 'path' } }) });
const CategorySchema = z
  .object({
    name: z.string(),
    rule: z.string(),
    reply_mode: z.string(),
    emails: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Category');
export const JobSchema = z
  .object({
    job_id: z.string(),
    kind: z.string(),
    status: z.string(),
    total: z.number().int(),
    done: z.number().int(),
    changed: z.number().int(),
    error: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi('Job');

/** `unknown` (in any case) is the category of what fits none: no category may be named so. */
function refuseReservedName(name: string): void {
  if (name.toLowerCase() === 'unknown')
    throw new HttpError(400, 'invalid_request', 'json.name: "unknown" is reserved', {
      issues: [{ field: 'json.name', message: 'reserved' }],
    });
}

async function viewOf(c: MailContext, name: string) {
  const view = await categoryView(c.var.db, c.var.user.id, name);
  if (!view) throw noCategory(name);
  return view;
}

// ---- categories --------------------------------------------------------------------------

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/categories',
    tags: ['Categories'],
    summary: 'Category names for dropdowns',
    security,
    middleware: read,
    responses: { 200: ok(z.object({ items: z.array(z.object({ name: z.string() })) })), ...readErrors },
  }),
  async (c) => c.json({ items: (await categoriesOf(c.var.db, c.var.user.id)).map((x) => ({ name: x.name })) }, 200),
);

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/categories',
    tags: ['Categories'],
    summary: 'Every category with its rule, reply mode and e-mail count',
    security,
    middleware: read,
    responses: { 200: ok(z.object({ items: z.array(CategorySchema) })), ...readErrors },
  }),
  async (c) => c.json({ items: await categoryViews(c.var.db, c.var.user.id) }, 200),
);

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/admin/categories',
    tags: ['Categories'],
    summary: 'Creates a category and re-runs categorisation of the stored e-mails (a background job)',
    security,
    middleware: write(),
    request: jsonBody(z.object({ name: categoryName, rule: Rule.default(''), reply_mode: ReplyMode.default('manual') })),
    responses: {
      201: ok(z.object({ category: CategorySchema, job_id: z.string() }), 'Created; the job re-categorises'),
      409: json(ErrorSchema, 'A category of that name exists'),
      ...writeErrors,
    },
  }),
  async (c) => {
    const input = c.req.valid('json');
    refuseReservedName(input.name);
    const outcome = await createCategory(c.var.db, c.var.user.id, { name: input.name, rule: input.rule, replyMode: input.reply_mode });
    if (outcome === 'too_many') throw new HttpError(400, 'too_many_categories', 'At most 100 categories.');
    if (outcome === 'exists') throw new HttpError(409, 'category_exists', `A category ${input.name} exists already.`);
    const jobId = await recategorise(c);
    return c.json({ category: await viewOf(c, input.name), job_id: jobId }, 201);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'put',
    path: '/api/admin/categories/{name}',
    tags: ['Categories'],
    summary: 'Renames a category or changes its rule or reply mode; a new name or rule re-runs categorisation',
    security,
    middleware: write(),
    request: {
      params: CategoryParam,
      ...jsonBody(z.object({ name: categoryName.optional(), rule: Rule.optional(), reply_mode: ReplyMode.optional() })),
    },
    responses: {
      200: ok(z.object({ category: CategorySchema, job_id: z.string().nullable() })),
      409: json(ErrorSchema, 'The new name is taken'),
      ...writeErrors,
    },
  }),
  async (c) => {
    const { name } = c.req.valid('param');
    const input = c.req.valid('json');
    await existingCategory(c, name);
    const newName = input.name ?? name;
    refuseReservedName(newName);
    const result = await updateCategory(c.var.db, c.var.user.id, name, { name: input.name, rule: input.rule, replyMode: input.reply_mode });
    if (result.outcome === 'not_found') throw noCategory(name);
    if (result.outcome === 'name_taken') throw new HttpError(409, 'category_exists', `A category ${newName} exists already.`);
    const jobId = result.renamed || result.ruleChanged ? await recategorise(c) : null;
    return c.json({ category: await viewOf(c, newName), job_id: jobId }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'delete',
    path: '/api/admin/categories/{name}',
    tags: ['Categories'],
    summary: 'Deletes a category: its e-mails go back to `unknown`',
    security,
    middleware: write(1024),
    request: { params: CategoryParam },
    responses: { 200: ok(z.object({ deleted: z.literal(true), reset: z.number().int() })), ...writeErrors },
  }),
  async (c) => {
    const { name } = c.req.valid('param');
    const reset = await deleteCategory(c.var.db, c.var.user.id, name);
    if (reset === undefined) throw noCategory(name);
    return c.json({ deleted: true as const, reset }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/categories/{name}/prompt',
    tags: ['Categories'],
    summary: 'The category’s classification rule text',
    security,
    middleware: read,
    request: { params: CategoryParam },
    responses: { 200: ok(z.object({ name: z.string(), rule: z.string() })), ...readErrors },
  }),
  async (c) => {
    const row = await existingCategory(c, c.req.valid('param').name);
    return c.json({ name: row.name, rule: row.rule }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/admin/categories/{name}/prompt',
    tags: ['Categories'],
    summary: 'Writes the category’s classification rule text; re-runs categorisation',
    security,
    middleware: write(),
    request: { params: CategoryParam, ...jsonBody(z.object({ rule: Rule })) },
    responses: { 200: ok(z.object({ name: z.string(), rule: z.string(), job_id: z.string() })), ...writeErrors },
  }),
  async (c) => {
    const { name } = c.req.valid('param');
    const { rule } = c.req.valid('json');
    if (!(await setCategoryRule(c.var.db, c.var.user.id, name, rule))) throw noCategory(name);
    return c.json({ name, rule, job_id: await recategorise(c) }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/jobs/{job_id}',
    tags: ['Categories'],
    summary: 'Progress of a re-categorisation job',
    security,
    middleware: read,
    request: {
      params: z.object({
        job_id: z
          .string()
          .regex(/^job_[A-Za-z0-9_-]{1,40}$/)
          .openapi({ param: { name: 'job_id', in: 'path' } }),
      }),
    },
    responses: { 200: ok(JobSchema), ...readErrors },
  }),
  async (c) => {
    const job = await jobRow(c.var.db, c.var.user.id, c.req.valid('param').job_id);
    if (!job) throw new HttpError(404, 'not_found', 'No such job.');
    return c.json(jobView(job), 200);
  },
);

assistantApi.route('/', promptsApi);
assistantApi.route('/', usersApi);
assistantApi.route('/', summariesApi);
assistantApi.route('/', threadsApi);
