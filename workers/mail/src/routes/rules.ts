import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { aiContext, traced, tracedGraph } from '../ai/run.ts';
import { RuleActionsSchema } from '../ai/rule-actions.ts';
import { MAX_APPLY_MESSAGES, createApplyJob } from '../ai/rules-job.ts';
import { testRules } from '../ai/rules-test.ts';
import { type MailContext, type MailEnv, mailboxStub } from '../context.ts';
import { rulesOf, setActions } from '../data/rules.ts';
import type { GraphClient } from '../graph/client.ts';
import { resolveFolder } from '../folders.ts';
import { ErrorSchema, TraceId, json, jsonBody, security, text } from './api-common.ts';
import { aiErrors, ok, read, readErrors, writeErrors, write, writeMail } from './assistant-common.ts';
import { categoryName } from './llm.ts';

/**
 * Rules that act: each category's ordered actions (run on new mail classified into it), a test
 * run over recent mail that acts on nothing, and "apply to existing mail" as a background job
 * (progress at /api/admin/jobs/{job_id}). The code that acts is ../ai/rule-actions.ts.
 */
export const rulesApi = new OpenAPIHono<MailEnv>();

/** Messages a test reads at most (each one is a model call, in the request). */
export const MAX_TEST_MESSAGES = 25;

const Actions = RuleActionsSchema.openapi('RuleActions', {
  description:
    'In order: `move` {folder}, `archive`, `mark_read`, `flag`, `categorize` {categories, color?} (Outlook categories, added to the master list when missing), `forward_draft` {to, comment?} (a forward left in Drafts, never sent), `draft_reply` (a reply draft, never sent)',
});
const RulesSchema = z.object({ category: z.string(), reply_mode: z.string(), actions: Actions }).openapi('CategoryRules');
const FolderField = text(255)
  .pipe(z.string().trim().min(1, 'is required'))
  .default('inbox')
  .openapi({ description: 'A well-known name (inbox, archive, …), a folder’s display name or its id' });
const TestItem = z
  .object({
    message_id: z.string(),
    subject: z.string(),
    from: z.string(),
    received_at: z.string().nullable(),
    category: z.string(),
    reason: z.string().nullable(),
    actions: z.array(z.object({ type: z.string(), description: z.string() })),
  })
  .openapi('RuleTestItem');

rulesApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/rules',
    tags: ['Rules'],
    summary: 'Every category with its reply mode and its actions',
    security,
    middleware: read,
    responses: { 200: ok(z.object({ items: z.array(RulesSchema) })), ...readErrors },
  }),
  async (c) => c.json({ items: await rulesOf(c.var.db, c.var.user.id) }, 200),
);

rulesApi.openapi(
  createRoute({
    method: 'put',
    path: '/api/rules/{name}',
    tags: ['Rules'],
    summary: 'Replaces a category’s actions (run on new mail classified into it, in order)',
    security,
    middleware: write(),
    request: {
      params: z.object({ name: categoryName.openapi({ param: { name: 'name', in: 'path' } }) }),
      ...jsonBody(z.object({ actions: Actions })),
    },
    responses: { 200: ok(RulesSchema), ...writeErrors },
  }),
  async (c) => {
    const { name } = c.req.valid('param');
    const { actions } = c.req.valid('json');
    if (!(await setActions(c.var.db, c.var.user.id, name, actions))) throw new HttpError(404, 'not_found', `No category ${name}.`);
    const saved = (await rulesOf(c.var.db, c.var.user.id)).find((r) => r.category === name)!;
    return c.json(saved, 200);
  },
);

rulesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/rules/test',
    tags: ['Rules'],
    summary: 'Runs the rules over the newest messages of a folder without acting: per message the category, why, and the actions',
    security,
    middleware: writeMail(4096),
    request: jsonBody(z.object({ folder: FolderField, count: z.number().int().min(1).max(MAX_TEST_MESSAGES).default(10) })),
    responses: {
      200: ok(z.object({ folder: z.string(), items: z.array(TestItem), trace_id: TraceId }), 'What the rules would do'),
      ...aiErrors,
    },
  }),
  async (c) => {
    const { folder, count } = c.req.valid('json');
    const folderId = await resolveFolder(c.var.graph, folder);
    const ctx = aiContext(c, 'rules test');
    const items = await traced(ctx, () => testRules(ctx, tracedGraph(c, ctx), folderId, count));
    return c.json({ folder, items, trace_id: ctx.tracer.id }, 200);
  },
);

/** Lists the folder's newest messages and starts the job over them; answers the job's id and size. */
export async function startApply(
  c: MailContext,
  graph: GraphClient,
  folder: string,
  count: number,
): Promise<{ job_id: string; total: number }> {
  const folderId = await resolveFolder(graph, folder);
  const list = await graph.messages(folderId, { top: count, fields: ['id', 'isDraft'] });
  const ids = (list.value ?? []).filter((m) => m.id && !m.isDraft).map((m) => m.id!);
  const jobId = await createApplyJob(c.var.db, c.var.user.id, ids.length);
  if (ids.length) await mailboxStub(c.env, c.var.user.id).startApplyRules(c.var.user.id, jobId, ids);
  return { job_id: jobId, total: ids.length };
}

rulesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/rules/apply',
    tags: ['Rules'],
    summary: 'Applies the rules to the newest messages of a folder as a background job (progress: /api/admin/jobs/{job_id})',
    security,
    middleware: writeMail(4096),
    request: jsonBody(z.object({ folder: FolderField, count: z.number().int().min(1).max(MAX_APPLY_MESSAGES).default(50) })),
    responses: {
      202: ok(z.object({ job_id: z.string(), total: z.number().int() }), 'Started'),
      409: json(ErrorSchema, 'The rules are being applied already'),
      ...aiErrors,
    },
  }),
  async (c) => {
    const { folder, count } = c.req.valid('json');
    return c.json(await startApply(c, c.var.graph, folder, count), 202);
  },
);
