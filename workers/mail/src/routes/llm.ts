import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { categoriesOf } from '../ai/categories.ts';
import { outputName } from '../ai/model.ts';
import { aiContext, traced } from '../ai/run.ts';
import { classify, extract, replyDraft, summarise } from '../ai/task.ts';
import type { MailEnv } from '../context.ts';
import { apiSession, assistant, csrf, limitBody } from '../guards.ts';
import { TraceId, errors, json, jsonBody, security, text } from './api-common.ts';

/**
 * The language model on a text the caller gives (the command line's llm-* commands): nothing is
 * stored but the trace. Gate: session, anti-forgery, an account allowed to use the assistant.
 */
export const llm = new OpenAPIHono<MailEnv>();

const MAX_TEXT = 100_000;
const llmGuards: MiddlewareHandler<MailEnv>[] = [apiSession, limitBody(256 * 1024), csrf, assistant];
const llmErrors = errors(400, 401, 403, 413, 502);
/** What made the answer: a language model's is "AI … (<model>)", the offline model's a "template reply", "keyword category", … */
const GeneratedBy = z.string().openapi({
  description:
    'What made the answer: "AI <task> (<model>)", or with the offline model "template reply", "keyword category", "first-sentences summary", "pattern extraction" (never AI)',
});
const Text = text(MAX_TEXT).pipe(z.string().trim().min(1, 'is required'));
// trimmed before the checks: the model answers a name without its outer spaces
const categoryName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _&'-]*$/u, "letters, digits, spaces, _ & ' - (at most 64)");

llm.openapi(
  createRoute({
    method: 'post',
    path: '/api/llm/summarise',
    tags: ['Assistant'],
    summary: 'Summarises a text: a summary and its key points',
    security,
    middleware: llmGuards,
    request: jsonBody(z.object({ text: Text })),
    responses: {
      200: json(
        z.object({ summary: z.string(), bullets: z.array(z.string()), generated_by: GeneratedBy, trace_id: TraceId }),
        'The summary',
      ),
      ...llmErrors,
    },
  }),
  async (c) => {
    const ctx = aiContext(c, 'llm summarise');
    const answer = await traced(ctx, () => summarise(ctx, c.req.valid('json').text));
    return c.json({ ...answer, generated_by: outputName(ctx.model, 'summarise'), trace_id: ctx.tracer.id }, 200);
  },
);

llm.openapi(
  createRoute({
    method: 'post',
    path: '/api/llm/classify',
    tags: ['Assistant'],
    summary: 'Sorts a text into one of the user’s categories (by their rules), or `unknown`',
    security,
    middleware: llmGuards,
    request: jsonBody(z.object({ text: Text })),
    responses: {
      200: json(z.object({ category: z.string(), generated_by: GeneratedBy, trace_id: TraceId }), 'The category'),
      ...llmErrors,
    },
  }),
  async (c) => {
    const ctx = aiContext(c, 'llm classify');
    const category = await traced(ctx, async () => classify(ctx, c.req.valid('json').text, await categoriesOf(ctx.db, ctx.userId)));
    return c.json({ category, generated_by: outputName(ctx.model, 'classify'), trace_id: ctx.tracer.id }, 200);
  },
);

llm.openapi(
  createRoute({
    method: 'post',
    path: '/api/llm/kv-extract',
    tags: ['Assistant'],
    summary: 'Extracts key facts from a text as key-value pairs (the keys asked for, or the model’s)',
    security,
    middleware: llmGuards,
    request: jsonBody(
      z.object({
        text: Text,
        keys: z
          .array(text(100).pipe(z.string().min(1)))
          .max(50)
          .optional(),
      }),
    ),
    responses: {
      200: json(z.object({ values: z.record(z.string(), z.string()), generated_by: GeneratedBy, trace_id: TraceId }), 'The values'),
      ...llmErrors,
    },
  }),
  async (c) => {
    const ctx = aiContext(c, 'llm kv-extract');
    const { text: input, keys } = c.req.valid('json');
    const values = await traced(ctx, () => extract(ctx, input, keys));
    return c.json({ values, generated_by: outputName(ctx.model, 'extract'), trace_id: ctx.tracer.id }, 200);
  },
);

llm.openapi(
  createRoute({
    method: 'post',
    path: '/api/llm/reply-draft',
    tags: ['Assistant'],
    summary: 'A reply body for a text (the category’s reply prompt as guidance); makes no draft at the provider',
    security,
    middleware: llmGuards,
    request: jsonBody(z.object({ text: Text, category: categoryName.optional() })),
    responses: { 200: json(z.object({ body: z.string(), generated_by: GeneratedBy, trace_id: TraceId }), 'The reply body'), ...llmErrors },
  }),
  async (c) => {
    const ctx = aiContext(c, 'llm reply-draft');
    const { text: input, category } = c.req.valid('json');
    const reply = await traced(ctx, () => replyDraft(ctx, input, category));
    return c.json({ body: reply, generated_by: outputName(ctx.model, 'reply'), trace_id: ctx.tracer.id }, 200);
  },
);

export { GeneratedBy, categoryName };
