import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { writeGeneratedFiles } from './asset-manifest.ts';
import { ROOT, landedWorkers, workerBindings, workerRoutes, wranglerBin, type WorkerInfo } from './workers.ts';

// Deploys every landed service, then the router (its service bindings need the services first).
// D1 databases named in a wrangler.toml are created by wrangler on first deploy (automatic
// provisioning); migrations are applied before the new code goes out whenever the database exists.
const dryRun = process.argv.includes('--dry-run');
// `--zone other.example`: each Worker's routes with the zone its wrangler.toml names replaced.
const zoneArg = process.argv.indexOf('--zone');
const zone = zoneArg >= 0 ? process.argv[zoneArg + 1] : undefined;
if (zoneArg >= 0 && !zone?.match(/^[a-z0-9.-]+\.[a-z]{2,}$/i)) throw new Error('--zone needs a zone name, e.g. --zone racing.example.com');
const CONFIGURED_ZONE = 'racing.example';

function routeArgs(worker: WorkerInfo): string[] {
  if (!zone) return [];
  return workerRoutes(worker).flatMap((pattern) => ['--routes', pattern.replace(CONFIGURED_ZONE, zone)]);
}

function wrangler(args: string[], capture = false) {
  const run = spawnSync(wranglerBin(), args, { cwd: ROOT, encoding: 'utf8', stdio: capture ? 'pipe' : 'inherit' });
  if (run.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed${capture ? `:\n${run.stdout}${run.stderr}` : ''}`);
  return run.stdout ?? '';
}

function existingD1Names(): Set<string> {
  const list = JSON.parse(wrangler(['d1', 'list', '--json'], true)) as { name: string }[];
  return new Set(list.map((database) => database.name));
}

function deploy(worker: WorkerInfo, existing: Set<string>) {
  const { d1: databases, requiredSecrets: required } = workerBindings(worker);
  const migrate = (binding: string) => wrangler(['d1', 'migrations', 'apply', binding, '--remote', '-c', worker.config]);
  const ready = databases.filter((db) => db.databaseName && existing.has(db.databaseName));
  for (const db of ready) migrate(db.binding);
  wrangler(['deploy', '-c', worker.config, ...routeArgs(worker)]);
  for (const db of databases.filter((d) => !ready.includes(d))) migrate(db.binding);
  if (required.length)
    console.log(`  ${worker.name}: requires secrets ${required.join(', ')} (wrangler secret put NAME -c ${worker.config})`);
}

// Pages link browser assets by content hash: bring the generated manifests up to date first.
for (const path of writeGeneratedFiles()) console.log(`regenerated ${path}`);

const workers = landedWorkers();
if (dryRun) {
  for (const worker of workers) wrangler(['deploy', '--dry-run', '--outdir', join(ROOT, '.deploy', worker.name), '-c', worker.config]);
} else {
  const existing = existingD1Names();
  for (const worker of workers) deploy(worker, existing);
}
console.log(`${dryRun ? 'Built' : 'Deployed'}: ${workers.map((w) => w.name).join(', ')}`);
