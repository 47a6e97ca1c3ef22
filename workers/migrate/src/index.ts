import { createMigrateApp } from './app';
import { scheduled } from './sync-jobs';

export { DisciplineRepairJob } from '../../../durable-objects/discipline-repair-job';
export { ImportJob } from '../../../durable-objects/import-job';
export { MigrationJob } from '../../../durable-objects/migration-job';

const app = createMigrateApp();

/** The Hono app, and the Cron Trigger's tick that starts the sync jobs that are due. */
export default { fetch: app.fetch, scheduled } satisfies ExportedHandler<Env>;
