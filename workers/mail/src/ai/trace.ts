import type { DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from '#d1/mail/schema.ts';
import { toBase64Url, randomBytes } from '#shared/crypto.ts';
import type { GraphTransport } from '../graph/client.ts';
import type { GraphRequest, GraphResult } from '../graph/transport.ts';

export interface TraceStep {
  /** `action`: a rule action run on a message (rule-actions.ts). */
  kind: 'model' | 'graph' | 'action';
  name: string;
  latencyMs: number;
  tokensIn: number;
  tokensOut: number;
  outcome: string;
  detail: string;
  at: number;
}

/** Steps kept per trace (a long background job keeps its first ones). */
const MAX_STEPS = 500;

const newTraceId = () => `tr_${toBase64Url(randomBytes(12))}`;

/**
 * The audit trail of one request or background job: every model call and every Graph call, in
 * order, with its latency, tokens and outcome. Written to D1 once at the end (`save`).
 */
export class Tracer {
  readonly steps: TraceStep[] = [];
  readonly id: string;

  constructor(
    readonly userId: number,
    readonly name: string,
    id = newTraceId(),
  ) {
    this.id = id;
  }

  record(step: Omit<TraceStep, 'at'> & { at?: number }): void {
    if (this.steps.length < MAX_STEPS) this.steps.push({ at: Date.now(), ...step, detail: step.detail.slice(0, 500) });
  }

  /** Time spent in the model (for the Worker's own time apart from it). */
  get modelMs(): number {
    return this.steps.filter((s) => s.kind === 'model').reduce((sum, s) => sum + s.latencyMs, 0);
  }

  /** Graph calls through this transport become steps of the trace. */
  graphTransport(inner: GraphTransport): GraphTransport {
    return {
      graph: async (request: GraphRequest): Promise<GraphResult> => {
        const started = Date.now();
        const name = `${request.method} ${request.path.split('?')[0]}`;
        const step = (outcome: string, detail: string) =>
          this.record({ kind: 'graph', name, latencyMs: Date.now() - started, tokensIn: 0, tokensOut: 0, outcome, detail });
        try {
          const result = await inner.graph(request);
          step(result.ok ? 'ok' : `error ${result.status ?? ''}`.trim(), result.ok ? '' : result.message);
          return result;
        } catch (err) {
          step('error', err instanceof Error ? err.message : String(err));
          throw err;
        }
      },
    };
  }

  /** Stores the trace and its steps (a trace without steps is stored too: it shows the request ran). */
  async save(db: DrizzleD1Database<typeof schema>, outcome = 'ok'): Promise<void> {
    const statements = [
      db
        .insert(schema.aiTraces)
        .values({ id: this.id, userId: this.userId, name: this.name, outcome, createdAt: this.steps[0]?.at ?? Date.now() })
        .onConflictDoUpdate({ target: schema.aiTraces.id, set: { outcome } }),
      ...chunk(this.steps, 8).map((steps, n) =>
        db
          .insert(schema.aiTraceSteps)
          .values(steps.map((s, i) => ({ traceId: this.id, seq: n * 8 + i, ...s })))
          .onConflictDoNothing(),
      ),
    ];
    await db.batch(statements as [(typeof statements)[0], ...(typeof statements)[number][]]);
  }
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
