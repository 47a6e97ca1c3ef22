import { createMigrateApp } from './app';

export { MigrationJob } from '../../../durable-objects/migration-job';

const app = createMigrateApp();

export default app;
