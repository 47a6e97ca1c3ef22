// Cron Triggers: a Worker's `scheduled()` handler run by Deno.cron (`--unstable-cron`) on each
// schedule of its `[triggers] crons`, with the controller workerd passes (`cron`, `scheduledTime`,
// `noRetry`). A failing run is logged, as Cloudflare records it, and the next tick runs anyway.

export interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
  noRetry(): void;
}

export type ScheduledHandler = (controller: ScheduledController, env: unknown, ctx: unknown) => void | Promise<void>;

export function scheduledController(cron: string, scheduledTime = Date.now()): ScheduledController {
  return { cron, scheduledTime, noRetry() {} };
}

/** Runs one scheduled event; resolves with workerd's outcome names (`ok` / `exception`). */
export async function runScheduled(
  label: string,
  handler: ScheduledHandler,
  cron: string,
  env: unknown,
  ctx: unknown,
): Promise<{ outcome: 'ok' | 'exception'; error?: string }> {
  try {
    await handler(scheduledController(cron), env, ctx);
    return { outcome: 'ok' };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[${label}] scheduled (${cron}) failed: ${message}`);
    return { outcome: 'exception', error: message };
  }
}

type CronFn = (name: string, schedule: string, options: { signal: AbortSignal }, handler: () => Promise<void>) => Promise<void>;

/**
 * Registers each schedule with Deno.cron (or `cronImpl`, for tests). Names are unique per process:
 * `<service> <index>`. Abort `signal` to stop them.
 */
export function registerCrons(
  service: string,
  crons: readonly string[],
  tick: (cron: string) => Promise<unknown>,
  signal: AbortSignal,
  cronImpl?: CronFn,
): Promise<void>[] {
  const cron: CronFn | undefined = cronImpl ?? (typeof Deno.cron === 'function' ? (Deno.cron as unknown as CronFn) : undefined);
  if (!cron) throw new Error('Deno.cron is not available: run the host with --unstable-cron');
  return crons.map((schedule, index) =>
    cron(`${service} ${index}`, schedule, { signal }, async () => {
      await tick(schedule);
    }),
  );
}
