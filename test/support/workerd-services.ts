import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedAuthDevAccount } from '../../scripts/auth-admin.ts';
import { seedCmsDevData } from '../../scripts/cms-seed.ts';
import { devServiceVars } from '../../scripts/dev-service-vars.ts';
import { readDevVars } from '../../scripts/dev-vars.ts';
import { startLocalWorker } from '../../scripts/local-worker.ts';
import { seedMigrateAuthAccounts, seedMigrateDevData, sourceDatabaseOf } from '../../scripts/migrate-seed.ts';
import { ROOT, applyLocalD1Migrations, landedWorkers, workerBindings, type WorkerInfo } from '../../scripts/workers.ts';

export interface WorkerdServicesOptions {
  /** The relay every Worker reaches Postgres through (PG_WS_PROXY). */
  relay: string;
  databaseUrl: string;
  /** The migration app's legacy source database. */
  legacyDatabaseUrl: string;
  /** The Microsoft Graph stand-in's origin. */
  graphStandin: string;
  /** The racing database cannot take COPY … FROM STDIN (the embedded one). */
  noDirectCopy: boolean;
}

export interface WorkerdServices {
  /** `http://127.0.0.1:PORT` of each Worker, by name (`router` included). */
  base: Record<WorkerInfo['name'], string>;
  /** The development account's single-use backup codes (each TOTP step is accepted once). */
  devBackupCodes: string[];
  dispose(): Promise<void>;
}

/**
 * Every Worker in local workerd as `npm run dev` starts it (scripts/dev.ts): each with its own
 * state in a temporary folder, its D1 migrations and development data (the same seeds), its
 * development secrets, the dev runner's extra variables, and one dev registry so service bindings
 * reach each other. For comparing another host's answers with workerd's on the same data.
 */
export async function startWorkerdServices(options: WorkerdServicesOptions): Promise<WorkerdServices> {
  const root = mkdtempSync(join(tmpdir(), 'workerd-services-'));
  const registry = join(root, 'registry');
  const workers = landedWorkers();
  const persistTo = (name: WorkerInfo['name']) => join(root, name);
  for (const worker of workers) {
    for (const database of workerBindings(worker).d1) applyLocalD1Migrations(worker.config, database.binding, persistTo(worker.name));
  }
  const legacy = sourceDatabaseOf(options.legacyDatabaseUrl);
  const devBackupCodes = await seedAuthDevAccount(persistTo('auth'));
  await seedMigrateAuthAccounts(persistTo('auth'));
  seedCmsDevData(persistTo('cms'));
  await seedMigrateDevData(legacy, persistTo('migrate'));

  const shared = { PG_WS_PROXY: options.relay, DATABASE_URL: options.databaseUrl };
  const extra: Partial<Record<WorkerInfo['name'], Record<string, string>>> = devServiceVars({
    legacyDatabaseUrl: options.legacyDatabaseUrl,
    embeddedRacingDatabase: options.noDirectCopy,
    graphStandin: options.graphStandin,
  });
  const started = await Promise.allSettled(
    workers.map(async (worker) => {
      const secrets = readDevVars(join(ROOT, 'workers', worker.name)).vars;
      const running = await startLocalWorker({
        config: worker.config,
        vars: { ...secrets, ...shared, ...extra[worker.name] },
        persistTo: persistTo(worker.name),
        logLevel: 'error',
        registry,
        testScheduled: true,
      });
      return { name: worker.name, running };
    }),
  );
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const dispose = async () => {
    await Promise.allSettled(running.map(({ running: worker }) => worker.dispose()));
    rmSync(root, { recursive: true, force: true });
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await dispose();
    throw failed.reason;
  }
  const base = {} as Record<WorkerInfo['name'], string>;
  for (const { name, running: worker } of running) base[name] = (await worker.url).origin;
  return { base, devBackupCodes, dispose };
}
