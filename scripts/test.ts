import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from './workers.ts';

// `npm test`: every check, in an order that keeps two cores busy.
// 1. The quick checks, one after another, so a stale Env declaration, a lint finding or a dead
//    export fails in seconds: `wrangler types` up to date, Biome, knip.
// 2. The type check (two to three minutes of one core) and vitest together. Vitest's files spend
//    much of their time waiting (a workerd starting, the one embedded database, Chromium's lock,
//    the relay), so the type check runs beside them at the lowest priority: it takes the cycles
//    the tests leave idle instead of adding its minutes in front of them. Its output is kept and
//    printed after vitest's, and a failure of either fails the run.
// Arguments go to vitest (`npm test -- test/cms` runs the checks, then those files). Unless they
// name a reporter, vitest also writes a JSON report, from which each project's time is printed at
// the end: its files' summed time and the span from its first file's start to its last one's end.

type Step = { name: string; command: string; args: string[] };

const quick: Step[] = [
  { name: 'Env declarations', command: 'npx', args: ['tsx', 'scripts/types.ts', '--check'] },
  { name: 'Biome', command: 'npx', args: ['biome', 'ci', '.'] },
  { name: 'knip', command: 'npx', args: ['knip', '--no-progress'] },
];

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

const timings: string[] = [];
for (const step of quick) {
  const start = performance.now();
  const run = spawnSync(step.command, step.args, { cwd: ROOT, stdio: 'inherit' });
  timings.push(`${step.name} ${seconds(start)}`);
  if (run.status !== 0) {
    console.error(`\n${step.name} failed (exit ${run.status ?? run.signal}).`);
    process.exit(run.status ?? 1);
  }
}

type Finished = { code: number; output: string; took: string };

function started(step: Step, options: { quiet: boolean; nice: boolean }): Promise<Finished> {
  const start = performance.now();
  const child = spawn(step.command, step.args, { cwd: ROOT, stdio: options.quiet ? 'pipe' : 'inherit' });
  if (options.nice && child.pid !== undefined) {
    try {
      setPriority(child.pid, 19);
    } catch {
      // Not allowed here: it still runs, at the ordinary priority.
    }
  }
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, output: String(error), took: seconds(start) }));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString('utf8'), took: seconds(start) }),
    );
  });
}

const typecheck = started(
  { name: 'type check', command: process.execPath, args: ['--import', 'tsx', 'scripts/typecheck.ts'] },
  { quiet: true, nice: true },
);
const args = process.argv.slice(2);
const report = args.some((arg) => arg.startsWith('--reporter')) ? undefined : join(tmpdir(), `vitest-report-${process.pid}.json`);
const reporterArgs = report ? ['--reporter=default', '--reporter=json', `--outputFile.json=${report}`] : [];
const vitest = started(
  { name: 'vitest', command: 'npx', args: ['vitest', 'run', ...reporterArgs, ...args] },
  { quiet: false, nice: false },
);

const [types, tests] = await Promise.all([typecheck, vitest]);
if (types.output.trim()) process.stdout.write(`\n${types.output}`);
timings.push(`type check ${types.took} (beside vitest)`, `vitest ${tests.took}`);
if (report && existsSync(report)) {
  printProjectTimes(report);
  rmSync(report, { force: true });
}
console.log(`\nnpm test: ${timings.join(', ')}`);
if (types.code !== 0) console.error(`The type check failed (exit ${types.code}).`);
if (tests.code !== 0) console.error(`vitest failed (exit ${tests.code}).`);
process.exit(types.code !== 0 || tests.code !== 0 ? 1 : 0);

function printProjectTimes(path: string): void {
  let files: { name: string; startTime: number; endTime: number }[];
  try {
    files = (JSON.parse(readFileSync(path, 'utf8')) as { testResults: typeof files }).testResults;
  } catch {
    return;
  }
  const projects = new Map<string, { files: number; sum: number; first: number; last: number }>();
  for (const file of files) {
    const name = relative(ROOT, file.name).split('/')[1] ?? '?';
    const project = projects.get(name) ?? { files: 0, sum: 0, first: Number.POSITIVE_INFINITY, last: 0 };
    project.files += 1;
    project.sum += file.endTime - file.startTime;
    project.first = Math.min(project.first, file.startTime);
    project.last = Math.max(project.last, file.endTime);
    projects.set(name, project);
  }
  console.log('\nproject    files  files summed  first start → last end');
  for (const [name, p] of [...projects].sort(([, a], [, b]) => b.sum - a.sum)) {
    console.log(
      `${name.padEnd(10)} ${String(p.files).padStart(5)}  ${`${(p.sum / 1000).toFixed(0)} s`.padStart(12)}  ${`${((p.last - p.first) / 1000).toFixed(0)} s`.padStart(8)}`,
    );
  }
}
