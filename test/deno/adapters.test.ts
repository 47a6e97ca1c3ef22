import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const DENO = join(ROOT, 'node_modules', '.bin', 'deno');

let state: string;

type Run = { code: number | null; output: string };
/** The adapters' Deno tests and `deno task check`, started together with the file: each test below awaits its own. */
let adapterTests: Promise<Run>;
let taskCheck: Promise<Run>;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'deno-adapters-'));
  await mkdir(join(state, 'tmp'));
  // Reads within the repository (sources, node_modules, migrations); writes only in the run's temporary directory.
  // --no-check: `deno task check` below type-checks these files, the tests among them (`deno check deno/adapters/`).
  adapterTests = deno(['test', '--no-prompt', '--no-check', `--allow-read=${ROOT},${state}`, `--allow-write=${state}`, 'deno/adapters/']);
  taskCheck = deno(['task', 'check']);
  for (const run of [adapterTests, taskCheck]) run.catch(() => undefined);
});

afterAll(async () => {
  await Promise.allSettled([adapterTests, taskCheck]);
  await rm(state, { recursive: true, force: true });
});

/** Runs Deno in the repository with its own cache and temporary directory; output is stdout and stderr together. */
function deno(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, args, {
      cwd: ROOT,
      env: { ...process.env, DENO_DIR: join(state, 'cache'), TMPDIR: join(state, 'tmp'), NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it("passes the adapters' Deno tests", { timeout: 300_000 }, async () => {
  const test = await adapterTests;
  expect(test.code, `deno test failed:\n${test.output}`).toBe(0);
  expect(test.output).toMatch(/ok \| \d+ passed \| 0 failed/);
});

// Each Worker is its own program (its own generated Env), so each is checked on its own, from its
// entry in deno/check/ (Cloudflare's types and the Worker's worker-configuration.d.ts).
const WORKERS = readdirSync(join(ROOT, 'deno', 'check'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.slice(0, -3))
  .sort();

it('has a Deno type-check entry for every Worker', () => {
  const workers = readdirSync(join(ROOT, 'workers')).filter((name) => existsSync(join(ROOT, 'workers', name, 'worker-configuration.d.ts')));
  expect(WORKERS).toEqual(workers.sort());
});

describe('deno task', () => {
  const config = JSON.parse(readFileSync(join(ROOT, 'deno.json'), 'utf8')) as { tasks: Record<string, { command: string }> };
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  // Inside `deno task`, a bare `deno` is node_modules/.bin/deno taken for an npm script and run as
  // JavaScript: the tasks name the binary by its path.
  const DENO_IN_TASK = './node_modules/.bin/deno';

  it('dev starts the same host that npm run dev:deno launches with its dependencies', () => {
    // npm run dev:deno is the Node launcher (databases, relay, Graph stand-in, then the host);
    // `deno task dev` is the bare host, the same entry with the same unstable flag.
    expect(scripts['dev:deno']).toBe('tsx scripts/dev-deno.ts');
    expect(config.tasks.dev!.command).toBe(`${DENO_IN_TASK} run -A --unstable-cron deno/host/main.ts`);
    const launcher = readFileSync(join(ROOT, 'scripts', 'dev-deno.ts'), 'utf8');
    expect(launcher).toContain("'--unstable-cron', 'deno/host/main.ts'");
  });

  // The type check of the Deno code and of every Worker runs here, through the task.
  it('check type-checks deno/ and every Worker, each on its own, and passes', { timeout: 600_000 }, async () => {
    const commands = config.tasks.check!.command.split(' && ');
    expect(commands).toEqual([
      `${DENO_IN_TASK} check deno/adapters/ deno/host/ deno/shims/`,
      ...WORKERS.map((worker) => `${DENO_IN_TASK} check deno/check/${worker}.ts`),
    ]);
    const run = await taskCheck;
    expect(run.code, `deno task check failed:\n${run.output}`).toBe(0);
    // Every command ran: deno prints one "Check" line per root it checks.
    for (const worker of WORKERS) expect(run.output).toContain(`Check deno/check/${worker}.ts`);
  });

  it("test runs the bindings' and the host's Deno tests", () => {
    expect(config.tasks.test!.command).toMatch(new RegExp(`^${DENO_IN_TASK.replace(/\./g, '\\.')} test .* deno/adapters/ deno/host/$`));
  });
});
