import { spawnSync } from 'node:child_process';
import { ROOT, landedWorkers, wranglerBin } from './workers.ts';

// `wrangler types` for every Worker; with --check, fails when a committed Env file has drifted.
const check = process.argv.includes('--check');
let failed = false;
for (const worker of landedWorkers()) {
  const args = ['types', worker.typesFile, '-c', worker.config, '--include-runtime=false'];
  if (check) args.push('--check');
  const run = spawnSync(wranglerBin(), args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } });
  if (run.status !== 0) {
    failed = true;
    console.error(`✗ ${worker.name}: ${check ? 'Env types are out of date; run `npm run types`' : 'wrangler types failed'}`);
    console.error((run.stdout + run.stderr).trim());
  } else {
    console.log(`✓ ${worker.name} ${worker.typesFile}`);
  }
}
process.exit(failed ? 1 : 0);
