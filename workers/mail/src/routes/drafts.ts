import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from '#shared/http-error.ts';
import { categoriesOf } from '../ai/categories.ts';
import { ensureDraft, isSuggestion, messageText, processMessage, summaryOf } from '../ai/pipeline.ts';
import { outputName } from '../ai/model.ts';
import { replaceReply } from '../ai/reply-html.ts';
import { aiContext, traced, tracedGraph } from '../ai/run.ts';
import type { MailContext, MailEnv } from '../context.ts';
import { draftById, draftOfEmail, markDraftSent, setDraftBody } from '../data/drafts.ts';
import { unlessMissing } from '../graph/client.ts';
import { apiSession, apiMailbox, assistant, csrf, limitBody } from '../guards.ts';
import { ErrorSchema, TraceId, errors, json, jsonBody, messageId, security, text } from './api-common.ts';

/** The assistant's reply drafts: generated (or reused), updated, sent, found by the e-mail. */
export const draftsApi = new OpenAPIHono<MailEnv>();

const readMail: MiddlewareHandler<MailEnv>[] = [apiSession, assistant, apiMailbox];
const writeMail = (max = 64 * 1024): MiddlewareHandler<MailEnv>[] => [apiSession, limitBody(max), csrf, assistant, apiMailbox];
const aiErrors = errors(400, 401, 403, 404, 413, 502);
const ok = <T extends z.ZodType>(schema: T, description = 'OK') => json(schema, description);

const DraftId = messageId;

draftsApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/draft/generate',
    tags: ['Drafts'],
    summary:
      'The reply draft of an e-mail (written by the model, or a template with the offline model): reuses the one made before, else creates one at the provider; none when the e-mail’s category is in no-reply mode',
    security,
    middleware: writeMail(4096),
    request: jsonBody(z.object({ email_id: messageId })),
    responses: {
      200: ok(
        z.object({
          draft_id: z.string().nullable(),
          email_id: z.string(),
          body_html: z.string(),
          reused: z.boolean(),
          category: z.string(),
          no_reply: z.boolean(),
          generated_by: z.string().openapi({
            description: 'What wrote the reply: "template reply" (the offline model: a fixed template, not AI) or "AI reply (<model>)"',
          }),
          trace_id: TraceId,
        }),
      ),
      409: json(ErrorSchema, 'A reply draft of that e-mail is being made'),
      ...aiErrors,
    },
  }),
  async (c) => {
    const { email_id } = c.req.valid('json');
    const ctx = aiContext(c, 'draft generate');
    const graph = tracedGraph(c, ctx);
    const answer = await traced(ctx, async () => {
      const message = await graph.message(email_id);
      const categories = await categoriesOf(ctx.db, ctx.userId);
      const stored = await summaryOf(ctx.db, ctx.userId, email_id);
      const { category, clean } = stored
        ? { category: stored.category, clean: messageText(message).clean }
        : await processMessage(ctx, graph, message, { ownAddress: (await c.var.mailbox.status()).account?.mail, draft: false, categories });
      if (categories.find((x) => x.name === category)?.replyMode === 'no_reply')
        return { draft_id: null, email_id, body_html: '', reused: false, category, no_reply: true };
      const draft = await ensureDraft(ctx, graph, message, clean, category);
      return { draft_id: draft.draftId, email_id, body_html: draft.bodyHtml, reused: draft.reused, category, no_reply: false };
    });
    return c.json({ ...answer, generated_by: outputName(ctx.model, 'reply'), trace_id: ctx.tracer.id }, 200);
  },
);

/**
 * The draft's AI reply row, or null for a plain draft of this mailbox (one made with
 * POST /api/drafts or in the mail client): that is checked at Graph. Neither: 404 no_draft.
 */
async function draftRow(c: MailContext, draftId: string) {
  const row = await draftById(c.var.db, c.var.user.id, draftId);
  if (row && isSuggestion(row.draftId))
    throw new HttpError(404, 'no_draft', 'That reply was suggested, not drafted: generate the draft first.');
  if (row) return row;
  const message = await c.var.graph.message(draftId).catch((err: unknown) => {
    if (err instanceof HttpError && (err.status === 404 || err.status === 400)) return undefined;
    throw err;
  });
  if (!message?.isDraft) throw new HttpError(404, 'no_draft', 'No draft of that id in this mailbox.');
  return null;
}

draftsApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/draft/update',
    tags: ['Drafts'],
    summary:
      'Replaces the reply text of a draft (the quoted original of an AI reply draft stays below it; a plain draft’s body is replaced whole)',
    security,
    middleware: writeMail(2 * 1024 * 1024),
    request: jsonBody(z.object({ draft_id: DraftId, body_html: text(1_000_000) })),
    responses: { 200: ok(z.object({ draft_id: z.string(), updated: z.literal(true) })), ...aiErrors },
  }),
  async (c) => {
    const { draft_id, body_html } = c.req.valid('json');
    const row = await draftRow(c, draft_id);
    const graph = c.var.graph;
    if (!row) {
      // a plain draft: its body is replaced whole
      await graph.update(draft_id, { body: { contentType: 'html', content: body_html } });
      return c.json({ draft_id, updated: true as const }, 200);
    }
    if (row.sentAt) throw new HttpError(409, 'draft_sent', 'The draft was sent already.');
    const draft = await graph.message(draft_id);
    // Graph hands back its own rewrite of the HTML: the reply is found by structure, the quoted original kept.
    await graph.update(draft_id, { body: { contentType: 'html', content: replaceReply(draft.body?.content ?? '', body_html) } });
    await setDraftBody(c.var.db, c.var.user.id, draft_id, body_html);
    return c.json({ draft_id, updated: true as const }, 200);
  },
);

draftsApi.openapi(
  createRoute({
    method: 'post',
    path: '/api/draft/send',
    tags: ['Drafts'],
    summary: 'Sends a draft (an AI reply draft or a plain draft of this mailbox)',
    security,
    middleware: writeMail(4096),
    request: jsonBody(z.object({ draft_id: DraftId })),
    responses: {
      202: ok(z.object({ sent: z.literal(true), draft_id: z.string() }), 'Sent'),
      409: json(ErrorSchema, 'Sent already'),
      ...aiErrors,
    },
  }),
  async (c) => {
    const { draft_id } = c.req.valid('json');
    const row = await draftRow(c, draft_id);
    if (!row) {
      await c.var.graph.send(draft_id);
      return c.json({ sent: true as const, draft_id }, 202);
    }
    if (row.sentAt) throw new HttpError(409, 'draft_sent', 'The draft was sent already.');
    await c.var.graph.send(draft_id);
    await markDraftSent(c.var.db, c.var.user.id, draft_id, row.emailId);
    return c.json({ sent: true as const, draft_id }, 202);
  },
);

draftsApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/draft/find',
    tags: ['Drafts'],
    summary: 'The reply draft of an e-mail (not yet sent)',
    security,
    middleware: readMail,
    request: { query: z.object({ email_id: messageId.openapi({ param: { name: 'email_id', in: 'query' } }) }) },
    responses: {
      200: ok(z.object({ draft_id: z.string(), email_id: z.string(), body_html: z.string() })),
      ...errors(400, 401, 403, 404, 502),
    },
  }),
  async (c) => {
    const { email_id } = c.req.valid('query');
    const row = await draftOfEmail(c.var.db, c.var.user.id, email_id);
    // Only Graph's 404 is "no draft": an outage or a timeout answers as such (502).
    const still = row && !row.sentAt && !isSuggestion(row.draftId) ? await unlessMissing(c.var.graph.message(row.draftId)) : undefined;
    if (!row || !still?.isDraft) throw new HttpError(404, 'no_draft', 'No reply draft for that e-mail.');
    return c.json({ draft_id: row.draftId, email_id, body_html: row.bodyHtml }, 200);
  },
);
