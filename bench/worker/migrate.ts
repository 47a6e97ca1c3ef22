import type { MigrationJob } from '#durable-objects/migration-job.ts';
import type { RunPlan } from '../../workers/migrate/src/engine/types.ts';

// A Worker used only by `npm run bench -- migrate`: the migrate Worker's MigrationJob Durable
// Object with its real alarms, started and polled over plain HTTP (no sign-in in the way).
export { MigrationJob } from '#durable-objects/migration-job.ts';

type BenchEnv = { MIGRATION_JOB: DurableObjectNamespace<MigrationJob> };

export default {
  async fetch(request: Request, env: BenchEnv): Promise<Response> {
    const { pathname, searchParams } = new URL(request.url);
    const job = (runId: string) => env.MIGRATION_JOB.get(env.MIGRATION_JOB.idFromName(runId));
    if (pathname === '/start' && request.method === 'POST') {
      const plan = await request.json<RunPlan>();
      return Response.json(await job(plan.runId).start(plan));
    }
    if (pathname === '/progress') return Response.json(await job(searchParams.get('runId') ?? '').progress());
    if (pathname === '/logs')
      return Response.json(await job(searchParams.get('runId') ?? '').logs(Number(searchParams.get('count') ?? 50)));
    return new Response('not found', { status: 404 });
  },
};
