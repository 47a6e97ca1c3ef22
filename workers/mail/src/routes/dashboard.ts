import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from '#shared/http-error.ts';
import { jobView, latestJobs } from '../ai/jobs.ts';
import { createModel, modelTitle } from '../ai/model.ts';
import { type MailContext, type MailEnv, mailboxStub } from '../context.ts';
import { categoryCounts, draftCounts, modelCallsSince, recentTraces, summaryTotals, traceWithSteps } from '../data/dashboard.ts';
import { apiSession, assistant } from '../guards.ts';
import { errors, json, security } from './api-common.ts';
import { JobSchema } from './assistant.ts';

/** The dashboard's figures and the traces, as JSON (the pages render the same in assistant-pages.ts). */
export const dashboardApi = new OpenAPIHono<MailEnv>();

const read: MiddlewareHandler<MailEnv>[] = [apiSession, assistant];
const readErrors = errors(400, 401, 403, 404);
const ok = <T extends z.ZodType>(schema: T, description = 'OK') => json(schema, description);
const iso = (ms: number) => new Date(ms).toISOString();

export async function dashboardFigures(c: MailContext) {
  const db = c.var.db;
  const userId = c.var.user.id;
  const since = Date.now() - 7 * 86_400_000;
  const backend = createModel(c.var.config, c.env);
  const [totals, byCategory, drafts, model, jobs, queue, recent] = await Promise.all([
    summaryTotals(db, userId),
    categoryCounts(db, userId),
    draftCounts(db, userId),
    modelCallsSince(db, userId, since),
    latestJobs(db, userId, 5),
    mailboxStub(c.env, userId)
      .queueState()
      .catch(() => ({ queued: 0, done: 0, failed: 0, avgMs: 0, avgModelMs: 0 })),
    recentTraces(db, userId, 10),
  ]);
  return {
    model: c.var.config.MAIL_MODEL,
    model_kind: backend.kind,
    model_title: modelTitle(backend),
    emails: totals?.emails ?? 0,
    pinned: totals?.pinned ?? 0,
    needs_reply: totals?.needs_reply ?? 0,
    inbound: totals?.inbound ?? 0,
    outbound: totals?.outbound ?? 0,
    by_category: byCategory,
    drafts: { made: drafts?.made ?? 0, sent: drafts?.sent ?? 0, suggested: drafts?.suggested ?? 0 },
    model_calls_7d: {
      calls: model?.calls ?? 0,
      failed: model?.failed ?? 0,
      avg_ms: Math.round(model?.avg_ms ?? 0),
      tokens_in: model?.tokens_in ?? 0,
      tokens_out: model?.tokens_out ?? 0,
      tokens_estimated: model?.estimated ?? 0,
    },
    new_mail_queue: {
      queued: queue.queued,
      done: queue.done,
      failed: queue.failed,
      avg_ms: queue.avgMs,
      avg_model_ms: queue.avgModelMs,
    },
    jobs: jobs.map(jobView),
    recent_traces: recent.map((t) => ({ trace_id: t.id, name: t.name, outcome: t.outcome, created_at: iso(t.createdAt) })),
  };
}

const DashboardSchema = z
  .object({
    model: z.string(),
    model_kind: z
      .enum(['template', 'language-model'])
      .openapi({ description: '`template`: the offline model (template replies, keyword categories), not AI' }),
    model_title: z.string(),
    emails: z.number(),
    pinned: z.number(),
    needs_reply: z.number(),
    inbound: z.number(),
    outbound: z.number(),
    by_category: z.array(z.object({ category: z.string(), emails: z.number() })),
    drafts: z.object({
      made: z.number(),
      sent: z.number(),
      suggested: z.number().openapi({ description: 'Replies the offline model suggested for new mail without a draft in the mailbox' }),
    }),
    model_calls_7d: z.object({
      calls: z.number(),
      failed: z.number(),
      avg_ms: z.number(),
      tokens_in: z.number(),
      tokens_out: z.number(),
      tokens_estimated: z.number().openapi({ description: 'Calls whose tokens are estimates (the backend reported no usage)' }),
    }),
    new_mail_queue: z.object({
      queued: z.number(),
      done: z.number(),
      failed: z.number(),
      avg_ms: z.number().openapi({ description: 'Per processed message, whole' }),
      avg_model_ms: z.number().openapi({ description: 'Per processed message, in the model' }),
    }),
    jobs: z.array(JobSchema),
    recent_traces: z.array(z.object({ trace_id: z.string(), name: z.string(), outcome: z.string(), created_at: z.string() })),
  })
  .openapi('Dashboard');

dashboardApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/dashboard',
    tags: ['Dashboard'],
    summary: 'The figures the /dashboard page shows (from SQL)',
    security,
    middleware: read,
    responses: { 200: ok(DashboardSchema), ...readErrors },
  }),
  async (c) => c.json(await dashboardFigures(c), 200),
);

/** A trace id as the `/api/traces/{trace_id}` route and the `/trace/:trace_id` page accept it. */
export const traceIdParam = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);

export async function traceOf(c: MailContext, traceId: string) {
  const found = await traceWithSteps(c.var.db, c.var.user.id, traceId);
  if (!found) return undefined;
  const { trace, steps } = found;
  return {
    trace_id: trace.id,
    name: trace.name,
    outcome: trace.outcome,
    created_at: iso(trace.createdAt),
    steps: steps.map((s) => ({
      seq: s.seq,
      kind: s.kind,
      name: s.name,
      latency_ms: s.latencyMs,
      tokens_in: s.tokensIn,
      tokens_out: s.tokensOut,
      outcome: s.outcome,
      detail: s.detail,
      at: iso(s.at),
    })),
  };
}

dashboardApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/traces/{trace_id}',
    tags: ['Dashboard'],
    summary: 'The ordered steps of a trace (model and Graph calls: name, latency, tokens, outcome)',
    security,
    middleware: read,
    request: { params: z.object({ trace_id: traceIdParam.openapi({ param: { name: 'trace_id', in: 'path' } }) }) },
    responses: {
      200: ok(
        z.object({
          trace_id: z.string(),
          name: z.string(),
          outcome: z.string(),
          created_at: z.string(),
          steps: z.array(
            z.object({
              seq: z.number(),
              kind: z.string(),
              name: z.string(),
              latency_ms: z.number(),
              tokens_in: z.number(),
              tokens_out: z.number(),
              outcome: z.string(),
              detail: z.string(),
              at: z.string(),
            }),
          ),
        }),
      ),
      ...readErrors,
    },
  }),
  async (c) => {
    const trace = await traceOf(c, c.req.valid('param').trace_id);
    if (!trace) throw new HttpError(404, 'not_found', 'No such trace.');
    return c.json(trace, 200);
  },
);
