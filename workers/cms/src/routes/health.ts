import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { anonymous } from '#shared/guard.ts';
import type { CmsEnv } from '../context.ts';
import { pingCmsDatabase, pingRacingDatabase } from '../data/health.ts';

/** Each check gets this long; a hanging dependency is reported unhealthy, not waited for. */
const CHECK_TIMEOUT_MS = 3_000;

type WaitUntil = (promise: Promise<unknown>) => void;
type Check = { name: string; tags: string[]; run: (env: Env, waitUntil: WaitUntil) => Promise<void> };

const CHECKS: Check[] = [
  {
    name: 'database',
    tags: ['db', 'ready'],
    run: pingCmsDatabase,
  },
  {
    name: 'storage',
    tags: ['storage', 'ready'],
    run: async (env) => {
      await env.MEDIA.list({ limit: 1 });
    },
  },
  {
    // The racing database serves the horse, trainer, jockey, course and race lookups.
    name: 'racing-database',
    tags: ['db', 'racing'],
    run: pingRacingDatabase,
  },
];

const Entry = z.object({
  status: z.enum(['Healthy', 'Unhealthy']),
  duration: z.string().openapi({ example: '00:00:00.0042000' }),
  tags: z.array(z.string()),
  description: z.string().optional().openapi({ description: 'Why the check failed' }),
});
const Report = z
  .object({
    status: z.enum(['Healthy', 'Unhealthy']),
    totalDuration: z.string(),
    entries: z.record(z.string(), Entry),
  })
  .openapi('HealthReport');

/** hh:mm:ss.fffffff, the duration format of the health report clients already read. */
function duration(ms: number): string {
  const total = Math.max(0, ms);
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = (total % 60_000) / 1000;
  const pad = (n: number) => String(n).padStart(2, '0');
  const [whole, fraction = ''] = seconds.toFixed(7).split('.');
  return `${pad(hours)}:${pad(minutes)}:${whole!.padStart(2, '0')}.${fraction}`;
}

async function runCheck(check: Check, env: Env, waitUntil: WaitUntil): Promise<z.output<typeof Entry>> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  try {
    await Promise.race([
      check.run(env, waitUntil),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)),
      ),
    ]);
    return { status: 'Healthy', duration: duration(performance.now() - started), tags: check.tags };
  } catch (err) {
    const description = err instanceof Error ? err.message : String(err);
    return { status: 'Unhealthy', duration: duration(performance.now() - started), tags: check.tags, description };
  } finally {
    clearTimeout(timer);
  }
}

export const health = new OpenAPIHono<CmsEnv>();

health.openapi(
  createRoute({
    method: 'get',
    middleware: [anonymous] as const,
    path: '/health',
    tags: ['Health'],
    summary: 'Readiness of the service’s dependencies (anonymous)',
    description:
      'One entry per check: the CMS database (`db`, `ready`), the media bucket (`storage`, `ready`) and the racing database (`db`, `racing`). 200 when all pass, 503 otherwise.',
    responses: {
      200: { description: 'Every check passed', content: { 'application/json': { schema: Report } } },
      503: { description: 'At least one check failed', content: { 'application/json': { schema: Report } } },
    },
  }),
  async (c) => {
    const started = performance.now();
    const results = await Promise.all(CHECKS.map((check) => runCheck(check, c.env, (promise) => c.executionCtx.waitUntil(promise))));
    const entries = Object.fromEntries(CHECKS.map((check, i) => [check.name, results[i]!]));
    const healthy = results.every((result) => result.status === 'Healthy');
    c.header('Cache-Control', 'no-store');
    const report = {
      status: healthy ? ('Healthy' as const) : ('Unhealthy' as const),
      totalDuration: duration(performance.now() - started),
      entries,
    };
    return healthy ? c.json(report, 200) : c.json(report, 503);
  },
);
