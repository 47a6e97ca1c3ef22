import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './workers';

// Each Worker and each test project is its own TypeScript program (each has its own generated Env).
const projects = ['workers', 'test']
  .flatMap((dir) => readdirSync(join(ROOT, dir)).map((name) => join(dir, name)))
  .concat(['scripts', 'bench', 'bench/worker'])
  .filter((dir) => existsSync(join(ROOT, dir, 'tsconfig.json')));

let failed = false;
for (const project of projects) {
  const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', project], { cwd: ROOT, encoding: 'utf8' });
  if (run.status === 0) {
    console.log(`✓ tsc ${project}`);
  } else {
    failed = true;
    console.error(`✗ tsc ${project}\n${run.stdout}${run.stderr}`);
  }
}
process.exit(failed ? 1 : 0);
