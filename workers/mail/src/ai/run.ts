import type { MailContext } from '../context.ts';
import { HttpError } from '#shared/http-error.ts';
import { GraphClient, inBackground } from '../graph/client.ts';
import { ModelError, createModel } from './model.ts';
import type { TaskContext } from './task.ts';
import { Tracer } from './trace.ts';

/** The model and the trace of one request (named after the route). */
export function aiContext(c: MailContext, name: string): TaskContext {
  const config = c.var.config;
  return {
    model: createModel(config, c.env as { AI?: unknown }),
    tracer: new Tracer(c.var.user.id, name),
    db: c.var.db,
    userId: c.var.user.id,
    timeoutMs: config.MODEL_TIMEOUT_MS,
  };
}

/**
 * Graph calls for the signed-in user's mailbox that are steps of the trace (after the mailbox
 * guard): the assistant's work (summaries, categories, drafts), so background priority — reading
 * the mailbox never waits behind it.
 */
export function tracedGraph(c: MailContext, ctx: TaskContext): GraphClient {
  return new GraphClient(ctx.tracer.graphTransport(inBackground(c.var.mailbox)), c.var.config.GRAPH_BASE_URL);
}

/** The error code of each kind of model failure. */
const MODEL_ERROR_CODES: Record<ModelError['kind'], string> = {
  malformed: 'model_unusable',
  timeout: 'model_timeout',
  unconfigured: 'model_unconfigured',
  unavailable: 'model_unavailable',
};

/** A model failure as this service's answer: 502 with the trace to look at, never a 500. */
function modelHttpError(err: ModelError, traceId: string): HttpError {
  return new HttpError(502, MODEL_ERROR_CODES[err.kind], err.message, { trace_id: traceId });
}

/**
 * Runs a route's work with its trace: the trace is stored whatever happens, a model failure
 * becomes a 502 naming the trace.
 */
export async function traced<T>(ctx: TaskContext, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    await ctx.tracer.save(ctx.db, 'ok');
    return result;
  } catch (err) {
    await ctx.tracer.save(ctx.db, err instanceof ModelError ? `model_${err.kind}` : 'error').catch(() => undefined);
    if (err instanceof ModelError) throw modelHttpError(err, ctx.tracer.id);
    throw err;
  }
}
