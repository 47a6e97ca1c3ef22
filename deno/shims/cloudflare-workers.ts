// What this project imports from `cloudflare:workers`, for Deno: deno.json maps the specifier here.
import type { AlarmInvocationInfo, DurableObjectState } from '../adapters/durable-objects.ts';

export type { AlarmInvocationInfo, DurableObjectState };

/** The context a Worker's handlers get: work to finish after the response. */
export interface ExecutionContext<Props = unknown> {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  readonly props: Props;
}

/** The base class of a Durable Object: the runtime constructs it with its state and the Worker's env. */
export abstract class DurableObject<Env = unknown> {
  protected ctx: DurableObjectState;
  protected env: Env;

  constructor(ctx: DurableObjectState, env: Env) {
    this.ctx = ctx;
    this.env = env;
  }

  alarm?(alarmInfo?: AlarmInvocationInfo): void | Promise<void>;
  fetch?(request: Request): Response | Promise<Response>;
}

/** The base class of a Worker entrypoint reached by RPC or fetch. */
export abstract class WorkerEntrypoint<Env = unknown, Props = unknown> {
  protected ctx: ExecutionContext<Props>;
  protected env: Env;

  constructor(ctx: ExecutionContext<Props>, env: Env) {
    this.ctx = ctx;
    this.env = env;
  }

  fetch?(request: Request): Response | Promise<Response>;
}
