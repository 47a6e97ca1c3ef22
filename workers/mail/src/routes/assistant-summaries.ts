import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { basePath } from '#shared/base-path.ts';
import { HttpError } from '#shared/http-error.ts';
import { categoriesOf, setCategory } from '../ai/categories.ts';
import { messageText, processMessage, summaryOf, summaryRow } from '../ai/pipeline.ts';
import { outputName } from '../ai/model.ts';
import { aiContext, traced, tracedGraph } from '../ai/run.ts';
import { classify } from '../ai/task.ts';
import { type MailContext, type MailEnv, mailboxStub } from '../context.ts';
import { resolveFolder } from '../folders.ts';
import { cachedEmailPage, deleteSummary, inboxZero, summaryPage, togglePinned, updateSummary } from '../data/summaries.ts';
import { awaitingReplies } from '../data/replies.ts';
import { mergeAwaiting } from '../ai/replies.ts';
import { GeneratedBy, categoryName } from './llm.ts';
import { ErrorSchema, TraceId, json, jsonBody, messageId, security, text } from './api-common.ts';
import { SummarySchema, aiErrors, iso, ok, read, readErrors, write, writeErrors, writeMail } from './assistant-common.ts';

/**
 * The assistant's summaries: the document store, the raw e-mails cache, summarising and
 * classifying a mailbox message, and the Inbox Zero views (replies owed and awaited, bulk archive).
 */
export const summariesApi = new OpenAPIHono<MailEnv>();

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
export const MessageParam = z.object({ message_id: messageId });

summariesApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/docdb/email_summaries',
    tags: ['Summaries'],
    summary: 'Summaries, paged (pinned first, then newest); filters search, direction, category, pinned, needs_reply',
    security,
    middleware: read,
    request: { query: SummaryQuery },
    responses: {
      200: ok(z.object({ items: z.array(SummarySchema), page: z.number().int(), page_size: z.number().int(), total: z.number().int() })),
      ...readErrors,
    },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const flag = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');
    const filter = {
      search: q.search,
      direction: q.direction,
      category: q.category,
      pinned: flag(q.pinned),
      needsReply: flag(q.needs_reply),
    };
    const { rows, total } = await summaryPage(c.var.db, c.var.user.id, filter, { offset: (q.page - 1) * q.page_size, limit: q.page_size });
    return c.json({ items: rows.map(summaryRow), page: q.page, page_size: q.page_size, total }, 200);
  },
);

async function summaryOr404(c: MailContext, id: string) {
  const row = await summaryOf(c.var.db, c.var.user.id, id);
  if (!row) throw new HttpError(404, 'not_found', 'No summary of that message.');
  return row;
}

summariesApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/docdb/email_summaries/{message_id}',
    tags: ['Summaries'],
    summary: 'One summary document',
    security,
    middleware: read,
    request: { params: MessageParam },
    responses: { 200: ok(SummarySchema), ...readErrors },
  }),
  async (c) => c.json(summaryRow(await summaryOr404(c, c.req.valid('param').message_id)), 200),
);

summariesApi.openapi(
  createRoute({
    method: 'put',
    path: '/api/docdb/email_summaries/{message_id}',
    tags: ['Summaries'],
    summary: 'Updates a summary document (summary, bullets, category, pinned, needs_reply)',
    security,
    middleware: write(),
    request: {
      params: MessageParam,
      ...jsonBody(
        z
          .object({
            summary: text(4000).optional(),
            bullets: z.array(text(1000)).max(20).optional(),
            category: categoryName.or(z.literal('unknown')).optional(),
            pinned: z.boolean().optional(),
            needs_reply: z.boolean().optional(),
          })
          .strict(),
      ),
    },
    responses: { 200: ok(SummarySchema), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    await summaryOr404(c, message_id);
    const input = c.req.valid('json');
    const userId = c.var.user.id;
    const category =
      input.category === undefined || input.category === 'unknown'
        ? undefined
        : (await categoriesOf(c.var.db, userId)).find((x) => x.name === input.category);
    if (input.category && input.category !== 'unknown' && !category)
      throw new HttpError(400, 'unknown_category', `No category ${input.category}.`);
    await updateSummary(c.var.db, userId, message_id, {
      summary: input.summary,
      bullets: input.bullets,
      category: input.category === undefined ? undefined : { name: input.category, replyMode: category?.replyMode },
      pinned: input.pinned,
      needsReply: input.needs_reply,
    });
    return c.json(summaryRow(await summaryOr404(c, message_id)), 200);
  },
);

summariesApi.openapi(
  createRoute({
    method: 'delete',
    path: '/api/docdb/email_summaries/{message_id}',
    tags: ['Summaries'],
    summary: 'Deletes a summary document (and the cached e-mail)',
    security,
    middleware: write(1024),
    request: { params: MessageParam },
    responses: { 200: ok(z.object({ deleted: z.literal(true), message_id: z.string() })), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    await summaryOr404(c, message_id);
    await deleteSummary(c.var.db, c.var.user.id, message_id);
    return c.json({ deleted: true as const, message_id }, 200);
  },
);

summariesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/docdb/email_summaries/{message_id}/pin',
    tags: ['Summaries'],
    summary: 'Toggles the pinned flag',
    security,
    middleware: write(1024),
    request: { params: MessageParam },
    responses: { 200: ok(z.object({ message_id: z.string(), pinned: z.boolean() })), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    await summaryOr404(c, message_id);
    const pinned = await togglePinned(c.var.db, c.var.user.id, message_id);
    if (pinned === undefined) throw new HttpError(404, 'not_found', 'No summary of that message.');
    return c.json({ message_id, pinned }, 200);
  },
);

summariesApi.openapi(
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

summariesApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/admin/docdb/emails',
    tags: ['Summaries'],
    summary: 'The raw e-mails cache, newest first, paged',
    security,
    middleware: read,
    // a cached e-mail holds up to ~400 kB of text: at most 10 a page keeps an answer to a few MB
    request: { query: z.object({ ...Page, page_size: z.coerce.number().int().min(1).max(10).default(10) }) },
    responses: {
      200: ok(
        z.object({
          items: z.array(
            z.object({
              message_id: z.string(),
              subject: z.string(),
              sender: z.string(),
              body_text: z.string(),
              clean_text: z.string(),
              received_at: z.string(),
              cached_at: z.string(),
            }),
          ),
          page: z.number().int(),
          page_size: z.number().int(),
          total: z.number().int(),
        }),
      ),
      ...readErrors,
    },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await cachedEmailPage(c.var.db, c.var.user.id, { offset: (q.page - 1) * q.page_size, limit: q.page_size });
    return c.json(
      {
        items: rows.map((r) => ({
          message_id: r.messageId,
          subject: r.subject,
          sender: r.sender,
          body_text: r.bodyText,
          clean_text: r.cleanText,
          received_at: iso(r.receivedAt),
          cached_at: iso(r.cachedAt),
        })),
        page: q.page,
        page_size: q.page_size,
        total,
      },
      200,
    );
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

summariesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/save-summary-direct',
    tags: ['Summaries'],
    summary:
      'Summarises a message (signature, disclaimer and quoted reply removed), categorises it, caches it; recipients from Graph when the mailbox is connected, else the message given in the body',
    security,
    middleware: write(1024 * 1024),
    request: jsonBody(DirectInput),
    responses: {
      200: ok(SummarySchema.extend({ generated_by: GeneratedBy, trace_id: TraceId, enriched: z.boolean() })),
      ...aiErrors,
      502: json(ErrorSchema, 'The model or Graph failed'),
    },
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
      result = await traced(ctx, async () =>
        processMessage(ctx, graph, await graph.message(input.message_id), { ownAddress: status.account?.mail, draft: false }),
      );
    } else {
      if (input.body === undefined)
        throw new HttpError(
          401,
          'mailbox_not_connected',
          `No mailbox is connected: give the message (subject, from, body) or connect it at ${basePath(c)}/connect.`,
        );
      const [name, address] = /^(.*?)\s*<([^>]+)>$/.exec(input.from ?? '')?.slice(1) ?? ['', input.from ?? ''];
      const message = {
        id: input.message_id,
        subject: input.subject ?? '',
        from: { emailAddress: { name, address } },
        body: { contentType: input.body_type, content: input.body },
      } as const;
      result = await traced(ctx, () => processMessage(ctx, undefined, message, { draft: false }));
    }
    return c.json(
      { ...result.summary, generated_by: outputName(ctx.model, 'summarise'), trace_id: ctx.tracer.id, enriched: status.connected },
      200,
    );
  },
);

summariesApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/email/{message_id}/classify',
    tags: ['Summaries'],
    summary: 'Classifies a mailbox message by the category rules and stores the category on its summary document',
    security,
    middleware: writeMail(1024),
    request: { params: MessageParam },
    responses: {
      200: ok(z.object({ message_id: z.string(), category: z.string(), generated_by: GeneratedBy, trace_id: TraceId })),
      ...aiErrors,
    },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const ctx = aiContext(c, 'email classify');
    const graph = tracedGraph(c, ctx);
    const category = await traced(ctx, async () => {
      const message = await graph.message(message_id);
      const existing = await summaryOf(ctx.db, ctx.userId, message_id);
      if (!existing)
        return (await processMessage(ctx, graph, message, { ownAddress: (await c.var.mailbox.status()).account?.mail, draft: false }))
          .category;
      const categories = await categoriesOf(ctx.db, ctx.userId);
      const found = await classify(ctx, messageText(message).clean, categories);
      await setCategory(ctx.db, ctx.userId, message_id, found, categories);
      return found;
    });
    return c.json({ message_id, category, generated_by: outputName(ctx.model, 'classify'), trace_id: ctx.tracer.id }, 200);
  },
);

// ---- Inbox Zero: replies owed and awaited, bulk archive -------------------------------------

summariesApi.openapi(
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
    const [{ needs, awaiting }, tracked] = await Promise.all([
      inboxZero(c.var.db, c.var.user.id, limit),
      awaitingReplies(c.var.db, c.var.user.id, limit),
    ]);
    // the owner's sent messages tracked from Sent Items (wherever they were sent), and summarised outbound mail
    return c.json({ needs_reply: needs.map(summaryRow), awaiting_reply: mergeAwaiting(tracked, awaiting.map(summaryRow), limit) }, 200);
  },
);

summariesApi.openapi(
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
