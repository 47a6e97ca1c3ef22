import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './workers';

// Each Worker and each test project is its own TypeScript program (each has its own generated Env).
const projects = ['workers', 'test']
  .flatMap((dir) => readdirSync(join(ROOT, dir)).map((name) => join(dir, name)))
  .concat(['scripts', 'bench', 'bench/worker'])
  .filter((dir) => existsSync(join(ROOT, dir, 'tsconfig.json')));

function check(project: string): Promise<{ project: string; ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', project], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ project, ok: false, output: String(error) }));
    child.on('close', (code) => resolve({ project, ok: code === 0, output }));
  });
}

// As many programs at once as there are cores; results print in the order of the list.
const queue = [...projects];
const results = new Map<string, Promise<{ project: string; ok: boolean; output: string }>>();
const lanes = Array.from({ length: Math.max(1, Math.min(availableParallelism(), queue.length)) }, async () => {
  for (let project = queue.shift(); project; project = queue.shift()) {
    const pending = check(project);
    results.set(project, pending);
    await pending;
  }
});
await Promise.all(lanes);

let failed = false;
for (const project of projects) {
  const { ok, output } = await results.get(project)!;
  if (ok) {
    console.log(`✓ tsc ${project}`);
  } else {
    failed = true;
    console.error(`✗ tsc ${project}\n${output}`);
  }
}
process.exit(failed ? 1 : 0);
