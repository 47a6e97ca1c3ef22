import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { messageText } from '../ai/pipeline.ts';
import { categoryPromptName } from '../ai/prompts.ts';
import { aiContext, traced, tracedGraph } from '../ai/run.ts';
import { freeText, prompt, summariseThread } from '../ai/task.ts';
import type { MailEnv } from '../context.ts';
import { saveThreadSummary, threadSummary } from '../data/threads.ts';
import type { GraphClient } from '../graph/client.ts';
import { categoryName } from './llm.ts';
import { TraceId, jsonBody, security } from './api-common.ts';
import { aiErrors, iso, ok, readMail, write, writeMail } from './assistant-common.ts';
import { MessageParam } from './assistant-summaries.ts';

/** Rolling conversation summaries, and reply bodies written from them. */
export const threadsApi = new OpenAPIHono<MailEnv>();

const ThreadSummarySchema = z
  .object({
    thread_id: z.string(),
    summary: z.string(),
    bullets: z.array(z.string()),
    message_count: z.number().int(),
    updated_at: z.string(),
    trace_id: TraceId.optional(),
  })
  .openapi('ThreadSummary');
const threadId = z.string().regex(/^[A-Za-z0-9=+_.:-]{1,512}$/, 'must be a conversation id');

/** Folds the conversation's messages not yet seen into its rolling summary. */
async function updateThread(ctx: ReturnType<typeof aiContext>, graph: GraphClient, conversationId: string) {
  const stored = await threadSummary(ctx.db, ctx.userId, conversationId);
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
  const values = {
    summary: next.summary,
    bullets: JSON.stringify(next.bullets),
    messageCount: messages.length,
    seen: JSON.stringify([...seen].slice(-500)),
    updatedAt: now,
  };
  await saveThreadSummary(ctx.db, ctx.userId, conversationId, values);
  return { ...values, threadId: conversationId };
}

const threadView = (t: { threadId: string; summary: string; bullets: string; messageCount: number; updatedAt: number }) => ({
  thread_id: t.threadId,
  summary: t.summary,
  bullets: JSON.parse(t.bullets) as string[],
  message_count: t.messageCount,
  updated_at: iso(t.updatedAt),
});

threadsApi.openapi(
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

threadsApi.openapi(
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
      const stored = await threadSummary(ctx.db, ctx.userId, message.conversationId);
      return stored ?? updateThread(ctx, graph, message.conversationId);
    });
    return c.json({ ...threadView(t), trace_id: ctx.tracer.id }, 200);
  },
);

threadsApi.openapi(
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
    const stored = await threadSummary(c.var.db, c.var.user.id, thread_id);
    if (!stored)
      throw new HttpError(
        404,
        'no_thread_summary',
        'No rolling summary of that conversation yet: POST /api/threads/<thread_id>/update-summary first.',
      );
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
