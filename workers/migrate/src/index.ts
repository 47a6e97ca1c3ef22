import { servedUnder } from '#shared/base-path.ts';
import { createMigrateApp } from './app.ts';
import { scheduled } from './sync-jobs.ts';

export { DisciplineRepairJob } from '#durable-objects/discipline-repair-job.ts';
export { ImportJob } from '#durable-objects/import-job.ts';
export { MigrationJob } from '#durable-objects/migration-job.ts';

const app = createMigrateApp();

/** The Hono app, and the Cron Trigger's tick that starts the sync jobs that are due. */
export default { fetch: servedUnder('/migrate', app.fetch, { assetsFirst: true }), scheduled } satisfies ExportedHandler<Env>;
