import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { and, asc, desc, eq, or, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { aiCategories, aiEmails, aiJobs, aiPrompts, aiSummaries, aiThreadSummaries, aiUsers } from '#d1/mail/schema.ts';
import { basePath } from '#shared/base-path.ts';
import { HttpError } from '#shared/http-error.ts';
import { sqliteContains } from '#shared/like.ts';
import { categoriesOf, needsReplyColumn, setCategory } from '../ai/categories.ts';
import { createRecategoriseJob, jobView } from '../ai/jobs.ts';
import { messageText, processMessage, summaryOf, summaryRow } from '../ai/pipeline.ts';
import { DEFAULT_PROMPTS, PROMPT_NAMES, categoryPromptName, defaultCategoryPrompt, isPromptName, promptFor, resetPrompt, savePrompt } from '../ai/prompts.ts';
import { aiContext, traced, tracedGraph } from '../ai/run.ts';
import { classify, freeText, prompt, summariseThread } from '../ai/task.ts';
import { type MailContext, type MailEnv, mailboxStub } from '../context.ts';
import type { GraphClient } from '../graph/client.ts';
import { resolveFolder } from '../folders.ts';
import { apiMailbox, apiSession, assistant, assistantAdmin, assistantAdmins, csrf, limitBody } from '../guards.ts';
import { categoryName } from './llm.ts';
import { ErrorSchema, TraceId, errors, json, jsonBody, messageId, security, text } from './api.ts';

/**
 * The assistant's JSON routes: categories and their rules, prompts, the summaries document
 * store, drafts, threads, the dashboard's figures, traces, admin users, Inbox Zero views.
 * Everything is the signed-in user's own (keyed by the user's id).
 */
export const assistantApi = new OpenAPIHono<MailEnv>();

const read: MiddlewareHandler<MailEnv>[] = [apiSession, assistant];
const write = (max = 64 * 1024): MiddlewareHandler<MailEnv>[] => [apiSession, limitBody(max), csrf, assistant];
const readMail: MiddlewareHandler<MailEnv>[] = [apiSession, assistant, apiMailbox];
const writeMail = (max = 64 * 1024): MiddlewareHandler<MailEnv>[] => [apiSession, limitBody(max), csrf, assistant, apiMailbox];
const readErrors = errors(400, 401, 403, 404);
const writeErrors = errors(400, 401, 403, 404, 413);
const aiErrors = errors(400, 401, 403, 404, 413, 502);
const ok = <T extends z.ZodType>(schema: T, description = 'OK') => json(schema, description);

const ReplyMode = z.enum(['draft', 'no_reply', 'manual']).openapi({ description: '`draft`: new mail of the category gets a reply draft; `no_reply`: never (draft/generate answers no_reply); `manual`: on demand' });
const Rule = text(4000);
const PromptBody = text(20_000).pipe(z.string().trim().min(1, 'is required'));
const CategoryParam = z.object({ name: categoryName.openapi({ param: { name: 'name', in: 'path' } }) });
const CategorySchema = z.object({ name: z.string(), rule: z.string(), reply_mode: z.string(), emails: z.number().int(), created_at: z.string(), updated_at: z.string() }).openapi('Category');
export const JobSchema = z.object({ job_id: z.string(), kind: z.string(), status: z.string(), total: z.number().int(), done: z.number().int(), changed: z.number().int(), error: z.string().nullable(), created_at: z.string(), finished_at: z.string().nullable() }).openapi('Job');
const SummarySchema = z
  .object({
    message_id: z.string(),
    conversation_id: z.string(),
    subject: z.string(),
    sender: z.string(),
    recipients: z.array(z.object({ name: z.string(), address: z.string() })),
    direction: z.string(),
    category: z.string(),
    summary: z.string(),
    bullets: z.array(z.string()),
    pinned: z.boolean(),
    needs_reply: z.boolean(),
    received_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .openapi('EmailSummary');
const iso = (ms: number) => new Date(ms).toISOString();

/** Starts the re-categorisation of the user's stored e-mails in their mailbox object. */
async function recategorise(c: MailContext): Promise<string> {
  const jobId = await createRecategoriseJob(c.var.db, c.var.user.id);
  await mailboxStub(c.env, c.var.user.id).startJob(c.var.user.id, jobId);
  return jobId;
}

/** `unknown` (in any case) is the category of what fits none: no category may be named so. */
function refuseReservedName(name: string): void {
  if (name.toLowerCase() === 'unknown') throw new HttpError(400, 'invalid_request', 'json.name: "unknown" is reserved', { issues: [{ field: 'json.name', message: 'reserved' }] });
}

/** The user's category of that name; 404 when there is none. */
async function categoryRow(c: MailContext, name: string) {
  const row = await c.var.db.select().from(aiCategories).where(and(eq(aiCategories.userId, c.var.user.id), eq(aiCategories.name, name))).get();
  if (!row) throw new HttpError(404, 'not_found', `No category ${name}.`);
  return row;
}

/** The category as the API shows it, with how many of the user's summaries carry it; 404 when there is none. */
async function categoryView(c: MailContext, name: string) {
  const userId = c.var.user.id;
  const row = await categoryRow(c, name);
  const count = await c.var.db.select({ n: sql<number>`count(*)` }).from(aiSummaries).where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, name))).get();
  return { name: row.name, rule: row.rule, reply_mode: row.replyMode, emails: count?.n ?? 0, created_at: iso(row.createdAt), updated_at: iso(row.updatedAt) };
}

// ---- categories --------------------------------------------------------------------------

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/categories', tags: ['Categories'], summary: 'Category names for dropdowns', security, middleware: read, responses: { 200: ok(z.object({ items: z.array(z.object({ name: z.string() })) })), ...readErrors } }),
  async (c) => c.json({ items: (await categoriesOf(c.var.db, c.var.user.id)).map((x) => ({ name: x.name })) }, 200),
);

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/admin/categories', tags: ['Categories'], summary: 'Every category with its rule, reply mode and e-mail count', security, middleware: read, responses: { 200: ok(z.object({ items: z.array(CategorySchema) })), ...readErrors } }),
  async (c) => {
    const userId = c.var.user.id;
    const [list, counts] = await Promise.all([
      categoriesOf(c.var.db, userId),
      c.var.db.select({ category: aiSummaries.category, n: sql<number>`count(*)` }).from(aiSummaries).where(eq(aiSummaries.userId, userId)).groupBy(aiSummaries.category).all(),
    ]);
    const n = new Map(counts.map((r) => [r.category, r.n]));
    return c.json({ items: list.map((x) => ({ name: x.name, rule: x.rule, reply_mode: x.replyMode, emails: n.get(x.name) ?? 0, created_at: iso(x.createdAt), updated_at: iso(x.updatedAt) })) }, 200);
  },
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
    responses: { 201: ok(z.object({ category: CategorySchema, job_id: z.string() }), 'Created; the job re-categorises'), 409: json(ErrorSchema, 'A category of that name exists'), ...writeErrors },
  }),
  async (c) => {
    const input = c.req.valid('json');
    refuseReservedName(input.name);
    const count = await c.var.db.select({ n: sql<number>`count(*)` }).from(aiCategories).where(eq(aiCategories.userId, c.var.user.id)).get();
    if ((count?.n ?? 0) >= 100) throw new HttpError(400, 'too_many_categories', 'At most 100 categories.');
    const now = Date.now();
    const inserted = await c.var.db.insert(aiCategories).values({ userId: c.var.user.id, name: input.name, rule: input.rule, replyMode: input.reply_mode, createdAt: now, updatedAt: now }).onConflictDoNothing().returning({ name: aiCategories.name });
    if (!inserted.length) throw new HttpError(409, 'category_exists', `A category ${input.name} exists already.`);
    const jobId = await recategorise(c);
    return c.json({ category: await categoryView(c, input.name), job_id: jobId }, 201);
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
    request: { params: CategoryParam, ...jsonBody(z.object({ name: categoryName.optional(), rule: Rule.optional(), reply_mode: ReplyMode.optional() })) },
    responses: { 200: ok(z.object({ category: CategorySchema, job_id: z.string().nullable() })), 409: json(ErrorSchema, 'The new name is taken'), ...writeErrors },
  }),
  async (c) => {
    const { name } = c.req.valid('param');
    const input = c.req.valid('json');
    const userId = c.var.user.id;
    const db = c.var.db;
    const current = await categoryRow(c, name);
    const newName = input.name ?? name;
    refuseReservedName(newName);
    if (newName !== name) {
      const taken = await db.select({ name: aiCategories.name }).from(aiCategories).where(and(eq(aiCategories.userId, userId), eq(aiCategories.name, newName))).get();
      if (taken) throw new HttpError(409, 'category_exists', `A category ${newName} exists already.`);
    }
    const now = Date.now();
    await db.batch([
      db.update(aiCategories).set({ name: newName, rule: input.rule ?? current.rule, replyMode: input.reply_mode ?? current.replyMode, updatedAt: now }).where(and(eq(aiCategories.userId, userId), eq(aiCategories.name, name))),
      db.update(aiSummaries).set({ category: newName }).where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, name))),
      // a new reply mode applies to the e-mails already in the category
      ...(input.reply_mode !== undefined && input.reply_mode !== current.replyMode
        ? [db.update(aiSummaries).set({ needsReply: needsReplyColumn(userId, newName, input.reply_mode), updatedAt: now }).where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, newName)))]
        : []),
      // a prompt row left under the new name (no category of that name owns it) gives way to the renamed one
      ...(newName !== name ? [db.delete(aiPrompts).where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, categoryPromptName(newName))))] : []),
      db.update(aiPrompts).set({ name: categoryPromptName(newName) }).where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, categoryPromptName(name)))),
    ]);
    const rerun = newName !== name || (input.rule !== undefined && input.rule !== current.rule);
    const jobId = rerun ? await recategorise(c) : null;
    return c.json({ category: await categoryView(c, newName), job_id: jobId }, 200);
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
    const userId = c.var.user.id;
    const db = c.var.db;
    await categoryRow(c, name);
    const [, reset] = await db.batch([
      db.delete(aiCategories).where(and(eq(aiCategories.userId, userId), eq(aiCategories.name, name))),
      db.update(aiSummaries).set({ category: 'unknown', needsReply: 0, updatedAt: Date.now() }).where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.category, name))),
      db.delete(aiPrompts).where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, categoryPromptName(name)))),
    ]);
    return c.json({ deleted: true as const, reset: reset.meta.changes ?? 0 }, 200);
  },
);

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/admin/categories/{name}/prompt', tags: ['Categories'], summary: 'The category’s classification rule text', security, middleware: read, request: { params: CategoryParam }, responses: { 200: ok(z.object({ name: z.string(), rule: z.string() })), ...readErrors } }),
  async (c) => {
    const row = await categoryRow(c, c.req.valid('param').name);
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
    await categoryRow(c, name);
    const { rule } = c.req.valid('json');
    await c.var.db.update(aiCategories).set({ rule, updatedAt: Date.now() }).where(and(eq(aiCategories.userId, c.var.user.id), eq(aiCategories.name, name)));
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
    request: { params: z.object({ job_id: z.string().regex(/^job_[A-Za-z0-9_-]{1,40}$/).openapi({ param: { name: 'job_id', in: 'path' } }) }) },
    responses: { 200: ok(JobSchema), ...readErrors },
  }),
  async (c) => {
    const job = await c.var.db.select().from(aiJobs).where(and(eq(aiJobs.id, c.req.valid('param').job_id), eq(aiJobs.userId, c.var.user.id))).get();
    if (!job) throw new HttpError(404, 'not_found', 'No such job.');
    return c.json(jobView(job), 200);
  },
);

// ---- prompts -----------------------------------------------------------------------------

const PromptSchema = z.object({ name: z.string(), body: z.string(), custom: z.boolean(), default: z.string() }).openapi('Prompt');
const PromptName = z.object({ name: z.string().max(64).openapi({ param: { name: 'name', in: 'path' }, description: PROMPT_NAMES.join(', ') }) });
const CategoryPromptParam = z.object({ category: categoryName.openapi({ param: { name: 'category', in: 'path' } }) });

function generalName(name: string): string {
  if (!isPromptName(name)) throw new HttpError(404, 'not_found', `No prompt ${name.slice(0, 64)}: the prompts are ${PROMPT_NAMES.join(', ')}.`);
  return name;
}

async function promptView(c: MailContext, name: string, fallback: string) {
  const stored = (await promptFor(c.var.db, c.var.user.id, name))!;
  return { name, body: stored.body, custom: stored.custom, default: fallback };
}

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/admin/llm-prompts', tags: ['Prompts'], summary: 'The general prompts (the user’s version or the default)', security, middleware: read, responses: { 200: ok(z.object({ items: z.array(PromptSchema) })), ...readErrors } }),
  async (c) => c.json({ items: await Promise.all(PROMPT_NAMES.map((n) => promptView(c, n, DEFAULT_PROMPTS[n]))) }, 200),
);

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/admin/llm-prompts/{name}', tags: ['Prompts'], summary: 'A named prompt', security, middleware: read, request: { params: PromptName }, responses: { 200: ok(PromptSchema), ...readErrors } }),
  async (c) => {
    const name = generalName(c.req.valid('param').name);
    return c.json(await promptView(c, name, DEFAULT_PROMPTS[name as keyof typeof DEFAULT_PROMPTS]), 200);
  },
);

assistantApi.openapi(
  createRoute({ method: 'put', path: '/api/admin/llm-prompts/{name}', tags: ['Prompts'], summary: 'Saves a named prompt', security, middleware: write(), request: { params: PromptName, ...jsonBody(z.object({ body: PromptBody })) }, responses: { 200: ok(PromptSchema), ...writeErrors } }),
  async (c) => {
    const name = generalName(c.req.valid('param').name);
    await savePrompt(c.var.db, c.var.user.id, name, c.req.valid('json').body);
    return c.json(await promptView(c, name, DEFAULT_PROMPTS[name as keyof typeof DEFAULT_PROMPTS]), 200);
  },
);

assistantApi.openapi(
  createRoute({ method: 'delete', path: '/api/admin/llm-prompts/{name}', tags: ['Prompts'], summary: 'Deletes the user’s version of a prompt: the default applies again', security, middleware: write(1024), request: { params: PromptName }, responses: { 200: ok(PromptSchema.extend({ deleted: z.boolean() })), ...writeErrors } }),
  async (c) => {
    const name = generalName(c.req.valid('param').name);
    const deleted = await resetPrompt(c.var.db, c.var.user.id, name);
    return c.json({ ...(await promptView(c, name, DEFAULT_PROMPTS[name as keyof typeof DEFAULT_PROMPTS])), deleted }, 200);
  },
);

async function categoryPromptView(c: MailContext, category: string) {
  return promptView(c, categoryPromptName(category), defaultCategoryPrompt(category));
}

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/admin/llm-prompts/category/{category}', tags: ['Prompts'], summary: 'The category’s reply-drafting prompt (the default is stored when there is none)', security, middleware: read, request: { params: CategoryPromptParam }, responses: { 200: ok(PromptSchema), ...readErrors } }),
  async (c) => {
    const { category } = c.req.valid('param');
    await categoryRow(c, category);
    const view = await categoryPromptView(c, category);
    if (!view.custom) await savePrompt(c.var.db, c.var.user.id, view.name, view.body);
    return c.json({ ...view, custom: true }, 200);
  },
);

assistantApi.openapi(
  createRoute({ method: 'put', path: '/api/admin/llm-prompts/category/{category}', tags: ['Prompts'], summary: 'Saves the category’s reply-drafting prompt', security, middleware: write(), request: { params: CategoryPromptParam, ...jsonBody(z.object({ body: PromptBody })) }, responses: { 200: ok(PromptSchema), ...writeErrors } }),
  async (c) => {
    const { category } = c.req.valid('param');
    await categoryRow(c, category);
    await savePrompt(c.var.db, c.var.user.id, categoryPromptName(category), c.req.valid('json').body);
    return c.json(await categoryPromptView(c, category), 200);
  },
);

assistantApi.openapi(
  createRoute({ method: 'delete', path: '/api/admin/llm-prompts/category/{category}', tags: ['Prompts'], summary: 'Resets the category’s reply-drafting prompt to the default', security, middleware: write(1024), request: { params: CategoryPromptParam }, responses: { 200: ok(PromptSchema.extend({ deleted: z.boolean() })), ...writeErrors } }),
  async (c) => {
    const { category } = c.req.valid('param');
    const deleted = await resetPrompt(c.var.db, c.var.user.id, categoryPromptName(category));
    return c.json({ ...(await categoryPromptView(c, category)), deleted }, 200);
  },
);

// ---- the summaries document store ----------------------------------------------------------

const Page = {
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
};
const SummaryQuery = z.object({
  search: text(200).optional(),
  direction: z.enum(['inbound', 'outbound']).optional(),
  category: text(64).optional(),
  pinned: z.enum(['true', 'false']).optional(),
  needs_reply: z.enum(['true', 'false']).optional(),
  ...Page,
});
const MessageParam = z.object({ message_id: messageId });

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/docdb/email_summaries',
    tags: ['Summaries'],
    summary: 'Summaries, paged (pinned first, then newest); filters search, direction, category, pinned, needs_reply',
    security,
    middleware: read,
    request: { query: SummaryQuery },
    responses: { 200: ok(z.object({ items: z.array(SummarySchema), page: z.number().int(), page_size: z.number().int(), total: z.number().int() })), ...readErrors },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const conditions = [eq(aiSummaries.userId, c.var.user.id)];
    if (q.direction) conditions.push(eq(aiSummaries.direction, q.direction));
    if (q.category) conditions.push(eq(aiSummaries.category, q.category));
    if (q.pinned) conditions.push(eq(aiSummaries.pinned, q.pinned === 'true' ? 1 : 0));
    if (q.needs_reply) conditions.push(eq(aiSummaries.needsReply, q.needs_reply === 'true' ? 1 : 0));
    const search = q.search?.trim();
    if (search) {
      conditions.push(or(sqliteContains(aiSummaries.subject, search), sqliteContains(aiSummaries.summary, search), sqliteContains(aiSummaries.sender, search))!);
    }
    const where = and(...conditions);
    const [rows, total] = await Promise.all([
      c.var.db.select().from(aiSummaries).where(where).orderBy(desc(aiSummaries.pinned), desc(aiSummaries.receivedAt), asc(aiSummaries.messageId)).limit(q.page_size).offset((q.page - 1) * q.page_size).all(),
      c.var.db.select({ n: sql<number>`count(*)` }).from(aiSummaries).where(where).get(),
    ]);
    return c.json({ items: rows.map(summaryRow), page: q.page, page_size: q.page_size, total: total?.n ?? 0 }, 200);
  },
);

async function summaryOr404(c: MailContext, id: string) {
  const row = await summaryOf(c.var.db, c.var.user.id, id);
  if (!row) throw new HttpError(404, 'not_found', 'No summary of that message.');
  return row;
}

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/docdb/email_summaries/{message_id}', tags: ['Summaries'], summary: 'One summary document', security, middleware: read, request: { params: MessageParam }, responses: { 200: ok(SummarySchema), ...readErrors } }),
  async (c) => c.json(summaryRow(await summaryOr404(c, c.req.valid('param').message_id)), 200),
);

assistantApi.openapi(
  createRoute({
    method: 'put',
    path: '/api/docdb/email_summaries/{message_id}',
    tags: ['Summaries'],
    summary: 'Updates a summary document (summary, bullets, category, pinned, needs_reply)',
    security,
    middleware: write(),
    request: { params: MessageParam, ...jsonBody(z.object({ summary: text(4000).optional(), bullets: z.array(text(1000)).max(20).optional(), category: categoryName.or(z.literal('unknown')).optional(), pinned: z.boolean().optional(), needs_reply: z.boolean().optional() }).strict()) },
    responses: { 200: ok(SummarySchema), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    await summaryOr404(c, message_id);
    const input = c.req.valid('json');
    const userId = c.var.user.id;
    const category = input.category === undefined || input.category === 'unknown' ? undefined : (await categoriesOf(c.var.db, userId)).find((x) => x.name === input.category);
    if (input.category && input.category !== 'unknown' && !category) throw new HttpError(400, 'unknown_category', `No category ${input.category}.`);
    // needs_reply as given; else, when the category changes, as the new category's reply mode has it
    let needs: number | ReturnType<typeof needsReplyColumn> | undefined;
    if (input.needs_reply !== undefined) needs = input.needs_reply ? 1 : 0;
    else if (input.category !== undefined) needs = needsReplyColumn(userId, input.category, category?.replyMode);
    await c.var.db
      .update(aiSummaries)
      .set({
        ...(input.summary !== undefined ? { summary: input.summary } : {}),
        ...(input.bullets !== undefined ? { bullets: JSON.stringify(input.bullets) } : {}),
        ...(input.category !== undefined ? { category: input.category } : {}),
        ...(input.pinned !== undefined ? { pinned: input.pinned ? 1 : 0 } : {}),
        ...(needs !== undefined ? { needsReply: needs } : {}),
        updatedAt: Date.now(),
      })
      .where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.messageId, message_id)));
    return c.json(summaryRow(await summaryOr404(c, message_id)), 200);
  },
);

assistantApi.openapi(
  createRoute({ method: 'delete', path: '/api/docdb/email_summaries/{message_id}', tags: ['Summaries'], summary: 'Deletes a summary document (and the cached e-mail)', security, middleware: write(1024), request: { params: MessageParam }, responses: { 200: ok(z.object({ deleted: z.literal(true), message_id: z.string() })), ...writeErrors } }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    await summaryOr404(c, message_id);
    const userId = c.var.user.id;
    await c.var.db.batch([
      c.var.db.delete(aiSummaries).where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.messageId, message_id))),
      c.var.db.delete(aiEmails).where(and(eq(aiEmails.userId, userId), eq(aiEmails.messageId, message_id))),
    ]);
    return c.json({ deleted: true as const, message_id }, 200);
  },
);

assistantApi.openapi(
  createRoute({ method: 'post', path: '/api/docdb/email_summaries/{message_id}/pin', tags: ['Summaries'], summary: 'Toggles the pinned flag', security, middleware: write(1024), request: { params: MessageParam }, responses: { 200: ok(z.object({ message_id: z.string(), pinned: z.boolean() })), ...writeErrors } }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    await summaryOr404(c, message_id);
    const [row] = await c.var.db
      .update(aiSummaries)
      .set({ pinned: sql`1 - ${aiSummaries.pinned}`, updatedAt: Date.now() })
      .where(and(eq(aiSummaries.userId, c.var.user.id), eq(aiSummaries.messageId, message_id)))
      .returning({ pinned: aiSummaries.pinned });
    return c.json({ message_id, pinned: row!.pinned === 1 }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'put',
    path: '/api/email/{message_id}/category',
    tags: ['Summaries'],
    summary: 'Sets the category on a message’s summary document',
    security,
    middleware: write(4096),
    request: { params: MessageParam, ...jsonBody(z.object({ category: categoryName.or(z.literal('unknown')) })) },
    responses: { 200: ok(z.object({ message_id: z.string(), category: z.string() })), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const { category } = c.req.valid('json');
    await summaryOr404(c, message_id);
    const categories = await categoriesOf(c.var.db, c.var.user.id);
    const found = categories.find((x) => x.name === category);
    if (category !== 'unknown' && !found) throw new HttpError(400, 'unknown_category', `No category ${category}.`);
    await setCategory(c.var.db, c.var.user.id, message_id, category, categories);
    return c.json({ message_id, category }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/docdb/emails',
    tags: ['Summaries'],
    summary: 'The raw e-mails cache, newest first, paged',
    security,
    middleware: read,
    // a cached e-mail holds up to ~400 kB of text: at most 10 a page keeps an answer to a few MB
    request: { query: z.object({ ...Page, page_size: z.coerce.number().int().min(1).max(10).default(10) }) },
    responses: { 200: ok(z.object({ items: z.array(z.object({ message_id: z.string(), subject: z.string(), sender: z.string(), body_text: z.string(), clean_text: z.string(), received_at: z.string(), cached_at: z.string() })), page: z.number().int(), page_size: z.number().int(), total: z.number().int() })), ...readErrors },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const where = eq(aiEmails.userId, c.var.user.id);
    const [rows, total] = await Promise.all([
      c.var.db.select().from(aiEmails).where(where).orderBy(desc(aiEmails.cachedAt), asc(aiEmails.messageId)).limit(q.page_size).offset((q.page - 1) * q.page_size).all(),
      c.var.db.select({ n: sql<number>`count(*)` }).from(aiEmails).where(where).get(),
    ]);
    return c.json({ items: rows.map((r) => ({ message_id: r.messageId, subject: r.subject, sender: r.sender, body_text: r.bodyText, clean_text: r.cleanText, received_at: iso(r.receivedAt), cached_at: iso(r.cachedAt) })), page: q.page, page_size: q.page_size, total: total?.n ?? 0 }, 200);
  },
);

// ---- summarising and classifying a mailbox message -----------------------------------------

const DirectInput = z.object({
  message_id: messageId,
  subject: text(1000).optional().openapi({ description: 'Without a connected mailbox: the message as the page has it' }),
  from: text(500).optional(),
  body: text(500_000).optional(),
  body_type: z.enum(['html', 'text']).default('text'),
});

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/save-summary-direct',
    tags: ['Summaries'],
    summary: 'Summarises a message (signature, disclaimer and quoted reply removed), categorises it, caches it; recipients from Graph when the mailbox is connected, else the message given in the body',
    security,
    middleware: write(1024 * 1024),
    request: jsonBody(DirectInput),
    responses: { 200: ok(SummarySchema.extend({ trace_id: TraceId, enriched: z.boolean() })), ...aiErrors, 502: json(ErrorSchema, 'The model or Graph failed') },
  }),
  async (c) => {
    const input = c.req.valid('json');
    const ctx = aiContext(c, 'save-summary-direct');
    const mailbox = mailboxStub(c.env, c.var.user.id);
    const status = await mailbox.status();
    let result;
    if (status.connected) {
      c.set('mailbox', mailbox);
      const graph = tracedGraph(c, ctx);
      result = await traced(ctx, async () => processMessage(ctx, graph, await graph.message(input.message_id), { ownAddress: status.account?.mail, draft: false }));
    } else {
      if (input.body === undefined) throw new HttpError(401, 'mailbox_not_connected', `No mailbox is connected: give the message (subject, from, body) or connect it at ${basePath(c)}/connect.`);
      const [name, address] = /^(.*?)\s*<([^>]+)>$/.exec(input.from ?? '')?.slice(1) ?? ['', input.from ?? ''];
      const message = { id: input.message_id, subject: input.subject ?? '', from: { emailAddress: { name, address } }, body: { contentType: input.body_type, content: input.body } } as const;
      result = await traced(ctx, () => processMessage(ctx, undefined, message, { draft: false }));
    }
    return c.json({ ...result.summary, trace_id: ctx.tracer.id, enriched: status.connected }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/email/{message_id}/classify',
    tags: ['Summaries'],
    summary: 'Classifies a mailbox message by the category rules and stores the category on its summary document',
    security,
    middleware: writeMail(1024),
    request: { params: MessageParam },
    responses: { 200: ok(z.object({ message_id: z.string(), category: z.string(), trace_id: TraceId })), ...aiErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const ctx = aiContext(c, 'email classify');
    const graph = tracedGraph(c, ctx);
    const category = await traced(ctx, async () => {
      const message = await graph.message(message_id);
      const existing = await summaryOf(ctx.db, ctx.userId, message_id);
      if (!existing) return (await processMessage(ctx, graph, message, { ownAddress: (await c.var.mailbox.status()).account?.mail, draft: false })).category;
      const categories = await categoriesOf(ctx.db, ctx.userId);
      const found = await classify(ctx, messageText(message).clean, categories);
      await setCategory(ctx.db, ctx.userId, message_id, found, categories);
      return found;
    });
    return c.json({ message_id, category, trace_id: ctx.tracer.id }, 200);
  },
);

// ---- threads -----------------------------------------------------------------------------

const ThreadSummarySchema = z.object({ thread_id: z.string(), summary: z.string(), bullets: z.array(z.string()), message_count: z.number().int(), updated_at: z.string(), trace_id: TraceId.optional() }).openapi('ThreadSummary');
const threadId = z.string().regex(/^[A-Za-z0-9=+_.:-]{1,512}$/, 'must be a conversation id');

/** Folds the conversation's messages not yet seen into its rolling summary. */
async function updateThread(ctx: ReturnType<typeof aiContext>, graph: GraphClient, conversationId: string) {
  const db = ctx.db;
  const stored = await db.select().from(aiThreadSummaries).where(and(eq(aiThreadSummaries.userId, ctx.userId), eq(aiThreadSummaries.threadId, conversationId))).get();
  const messages = await graph.conversation(conversationId);
  if (!messages.length) throw new HttpError(404, 'not_found', 'No messages in that conversation.');
  const time = (m: (typeof messages)[number]) => Date.parse(m.receivedDateTime ?? m.sentDateTime ?? '') || 0;
  messages.sort((a, b) => time(a) - time(b));
  const seen = new Set<string>(stored ? (JSON.parse(stored.seen) as string[]) : []);
  const fresh = messages.filter((m) => m.id && !seen.has(m.id) && !m.isDraft);
  if (stored && !fresh.length) return stored;
  const textOf = fresh.map((m) => messageText(m).clean).join('\n\n---\n\n');
  const next = await summariseThread(ctx, stored?.summary ?? '', textOf);
  for (const m of fresh) seen.add(m.id!);
  const now = Date.now();
  const values = { summary: next.summary, bullets: JSON.stringify(next.bullets), messageCount: messages.length, seen: JSON.stringify([...seen].slice(-500)), updatedAt: now };
  await db.insert(aiThreadSummaries).values({ userId: ctx.userId, threadId: conversationId, ...values }).onConflictDoUpdate({ target: [aiThreadSummaries.userId, aiThreadSummaries.threadId], set: values });
  return { ...values, threadId: conversationId };
}

const threadView = (t: { threadId: string; summary: string; bullets: string; messageCount: number; updatedAt: number }) => ({ thread_id: t.threadId, summary: t.summary, bullets: JSON.parse(t.bullets) as string[], message_count: t.messageCount, updated_at: iso(t.updatedAt) });

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/threads/{thread_id}/update-summary',
    tags: ['Threads'],
    summary: 'Refreshes the rolling summary of a conversation with its new messages',
    security,
    middleware: writeMail(1024),
    request: { params: z.object({ thread_id: threadId.openapi({ param: { name: 'thread_id', in: 'path' } }) }) },
    responses: { 200: ok(ThreadSummarySchema), ...aiErrors },
  }),
  async (c) => {
    const ctx = aiContext(c, 'thread update-summary');
    const graph = tracedGraph(c, ctx);
    const t = await traced(ctx, () => updateThread(ctx, graph, c.req.valid('param').thread_id));
    return c.json({ ...threadView(t), trace_id: ctx.tracer.id }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/thread-summary/{message_id}',
    tags: ['Threads'],
    summary: 'The conversation summary (with bullet points) of a message’s thread; made when there is none',
    security,
    middleware: readMail,
    request: { params: MessageParam },
    responses: { 200: ok(ThreadSummarySchema), ...aiErrors },
  }),
  async (c) => {
    const ctx = aiContext(c, 'thread-summary');
    const graph = tracedGraph(c, ctx);
    const t = await traced(ctx, async () => {
      const message = await graph.message(c.req.valid('param').message_id);
      if (!message.conversationId) throw new HttpError(404, 'not_found', 'The message has no conversation.');
      const stored = await ctx.db.select().from(aiThreadSummaries).where(and(eq(aiThreadSummaries.userId, ctx.userId), eq(aiThreadSummaries.threadId, message.conversationId))).get();
      return stored ?? updateThread(ctx, graph, message.conversationId);
    });
    return c.json({ ...threadView(t), trace_id: ctx.tracer.id }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/draft/from-summary',
    tags: ['Drafts'],
    summary: 'A reply body from a conversation’s rolling summary (no draft at the provider)',
    security,
    middleware: write(4096),
    request: jsonBody(z.object({ thread_id: threadId, category: categoryName.optional() })),
    responses: { 200: ok(z.object({ thread_id: z.string(), body: z.string(), trace_id: TraceId })), ...aiErrors },
  }),
  async (c) => {
    const { thread_id, category } = c.req.valid('json');
    const stored = await c.var.db.select().from(aiThreadSummaries).where(and(eq(aiThreadSummaries.userId, c.var.user.id), eq(aiThreadSummaries.threadId, thread_id))).get();
    if (!stored) throw new HttpError(404, 'no_thread_summary', 'No rolling summary of that conversation yet: POST /api/threads/<thread_id>/update-summary first.');
    const ctx = aiContext(c, 'draft from-summary');
    const bodyText = await traced(ctx, async () => {
      const system = await prompt(ctx, 'reply');
      const guidance = category ? await prompt(ctx, categoryPromptName(category)) : '';
      const bullets = (JSON.parse(stored.bullets) as string[]).map((b) => `- ${b}`).join('\n');
      return freeText(ctx, 'reply', 'reply', system, { GUIDANCE: guidance, TEXT: `${stored.summary}\n${bullets}` });
    });
    return c.json({ thread_id, body: bodyText, trace_id: ctx.tracer.id }, 200);
  },
);

// ---- admin users ---------------------------------------------------------------------------

const UserSchema = z.object({ email: z.string(), name: z.string(), admin: z.boolean(), added_by: z.string().nullable(), created_at: z.string().nullable() }).openapi('AssistantUser');

assistantApi.openapi(
  createRoute({ method: 'get', path: '/api/admin/users', tags: ['Admin'], summary: 'The accounts allowed to use the assistant (the admins from MAIL_ASSISTANT_ADMINS first)', security, middleware: [apiSession, assistantAdmin], responses: { 200: ok(z.object({ items: z.array(UserSchema) })), ...readErrors } }),
  async (c) => {
    const admins = assistantAdmins(c.var.config.MAIL_ASSISTANT_ADMINS);
    const rows = await c.var.db.select().from(aiUsers).orderBy(aiUsers.email).all();
    return c.json({ items: [...admins.map((email) => ({ email, name: '', admin: true, added_by: null, created_at: null })), ...rows.map((r) => ({ email: r.email, name: r.name, admin: false, added_by: r.addedBy, created_at: iso(r.createdAt) }))] }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/admin/users',
    tags: ['Admin'],
    summary: 'Allows an account (by its sign-in e-mail) to use the assistant',
    security,
    middleware: [apiSession, limitBody(4096), csrf, assistantAdmin],
    request: jsonBody(z.object({ email: z.email().max(320), name: text(200).default('') })),
    responses: { 201: ok(UserSchema, 'Added'), 200: ok(UserSchema, 'Was listed already'), ...writeErrors },
  }),
  async (c) => {
    const input = c.req.valid('json');
    const email = input.email.toLowerCase();
    const now = Date.now();
    const added = await c.var.db.insert(aiUsers).values({ email, name: input.name, addedBy: c.var.user.email, createdAt: now }).onConflictDoNothing().returning();
    const row = added[0] ?? (await c.var.db.select().from(aiUsers).where(eq(aiUsers.email, email)).get())!;
    return c.json({ email: row.email, name: row.name, admin: false, added_by: row.addedBy, created_at: iso(row.createdAt) }, added.length ? 201 : 200);
  },
);

// ---- Inbox Zero: replies owed and awaited, bulk archive -------------------------------------

assistantApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/inbox-zero',
    tags: ['Inbox Zero'],
    summary: '"Needs reply" (received, the category wants a reply, none sent) and "awaiting reply" (sent by the owner, no answer since)',
    security,
    middleware: read,
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }) },
    responses: { 200: ok(z.object({ needs_reply: z.array(SummarySchema), awaiting_reply: z.array(SummarySchema) })), ...readErrors },
  }),
  async (c) => {
    const { limit } = c.req.valid('query');
    const userId = c.var.user.id;
    const db = c.var.db;
    const [needs, awaiting] = await Promise.all([
      db.select().from(aiSummaries).where(and(eq(aiSummaries.userId, userId), eq(aiSummaries.needsReply, 1))).orderBy(desc(aiSummaries.receivedAt)).limit(limit).all(),
      // The owner's last word in a conversation: no inbound message after it.
      db
        .select()
        .from(aiSummaries)
        .where(
          and(
            eq(aiSummaries.userId, userId),
            eq(aiSummaries.direction, 'outbound'),
            sql`${aiSummaries.conversationId} <> ''`,
            sql`NOT EXISTS (SELECT 1 FROM ai_summaries later WHERE later.user_id = ${aiSummaries.userId} AND later.conversation_id = ${aiSummaries.conversationId} AND later.received_at > ${aiSummaries.receivedAt})`,
          ),
        )
        .orderBy(desc(aiSummaries.receivedAt))
        .limit(limit)
        .all(),
    ]);
    return c.json({ needs_reply: needs.map(summaryRow), awaiting_reply: awaiting.map(summaryRow) }, 200);
  },
);

assistantApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/bulk-archive',
    tags: ['Inbox Zero'],
    summary: 'Archives every Inbox message from a sender (at most 500)',
    security,
    middleware: writeMail(4096),
    request: jsonBody(z.object({ sender: z.email().max(320) })),
    responses: { 200: ok(z.object({ sender: z.string(), archived: z.number().int(), failed: z.number().int() })), ...aiErrors },
  }),
  async (c) => {
    const { sender } = c.req.valid('json');
    const graph = c.var.graph;
    const [inbox, archive] = await Promise.all([resolveFolder(graph, 'inbox'), resolveFolder(graph, 'archive')]);
    const messages = await graph.all<{ id?: string; from?: { emailAddress?: { address?: string } } }>(
      `/me/mailFolders/${encodeURIComponent(inbox)}/messages?$filter=${encodeURIComponent(`from/emailAddress/address eq '${sender.replace(/'/g, "''")}'`)}&$select=id,from&$top=100`,
      500,
    );
    let archived = 0;
    let failed = 0;
    for (let i = 0; i < messages.length; i += 4) {
      const results = await Promise.allSettled(messages.slice(i, i + 4).map((m) => graph.move(m.id!, archive)));
      for (const r of results) r.status === 'fulfilled' ? archived++ : failed++;
    }
    return c.json({ sender, archived, failed }, 200);
  },
);
