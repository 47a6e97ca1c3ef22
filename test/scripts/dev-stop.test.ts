import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PORT_OFFSET, assertPortsFree, devStackPorts, portInUse } from '../../scripts/ports';
import { ROOT, landedWorkers } from '../../scripts/workers';

// The dev runner (scripts/dev.ts, as `npm run dev` starts it through tsx), however it stops, leaves
// no process and no port of its stack behind: its `wrangler dev`s, their workerd, the databases.
// It starts a subset of the Workers (--only) to keep each start short; the spawning is the same.
// Each start is a second stack (--port-offset, --state-dir), so a developer's `npm run dev` may run
// beside the test: it neither blocks the start nor shares a port, a database file or a registry.

/** Every port of a whole stack moved by `offset`: the services and the router, their inspectors, the relay, the stand-in, both databases. */
const stackPorts = (offset: number) =>
  devStackPorts({ workers: landedWorkers(), offset, embeddedDatabase: true, embeddedLegacy: true, graphStandin: true }).map(
    (entry) => entry.port,
  );
/**
 * Offsets whose ports all stay off Linux's ephemeral range (32768–60999), which random ports
 * (connections, workerd's own listeners) come from: Workers below it, the databases above it. None
 * meets a port of `npm run dev`'s own stack.
 */
const OFFSETS = Array.from({ length: Math.floor((MAX_PORT_OFFSET - 6700) / 100) + 1 }, (_, i) => 6700 + i * 100);
/** A start on a busy two-core machine: the demo data's first load, then wrangler and workerd. */
const START_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 30_000;

type Proc = { pid: number; ppid: number; pgid: number; stat: string; args: string };

function processTable(): Proc[] {
  const ps = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return ps.stdout.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    return match ? [{ pid: Number(match[1]), ppid: Number(match[2]), pgid: Number(match[3]), stat: match[4]!, args: match[5]! }] : [];
  });
}

/** `root` and every process below it. */
function tree(root: number): Proc[] {
  const table = processTable();
  const found = table.filter((proc) => proc.pid === root);
  for (let i = 0; i < found.length; i++) found.push(...table.filter((proc) => proc.ppid === found[i]!.pid));
  return found;
}

/** Those of `procs` still running (same pid and command line; a zombie has ended). */
function stillRunning(procs: readonly Proc[]): Proc[] {
  const now = processTable();
  return procs.filter((proc) => now.some((p) => p.pid === proc.pid && p.args === proc.args && !p.stat.startsWith('Z')));
}

async function busyPorts(ports: readonly number[]): Promise<number[]> {
  const busy: number[] = [];
  for (const port of ports) if (await portInUse(port)) busy.push(port);
  return busy;
}

/** An offset, tried from a random one on, whose whole stack's ports are free now. */
async function freeOffset(): Promise<number> {
  const start = Math.floor(Math.random() * OFFSETS.length);
  for (let i = 0; i < OFFSETS.length; i++) {
    const offset = OFFSETS[(start + i) % OFFSETS.length]!;
    if ((await busyPorts(stackPorts(offset))).length === 0) return offset;
  }
  throw new Error(`no port offset of ${OFFSETS[0]}…${OFFSETS.at(-1)} has all its ports free`);
}

/** The test stacks' own databases, local state and dev registry, shared by the tests (the demo data loads once). */
let stateDir = '';
beforeAll(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'dev-stop-'));
});
afterAll(() => {
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

type Runner = { launcher: ChildProcess; runnerPid: number; stack: Proc[]; output: () => string };

/** Every process a test started, killed after it whatever happened. */
const started: Proc[] = [];
afterEach(async () => {
  const procs = started.splice(0);
  for (const proc of stillRunning(procs)) {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  // Until they are gone, so the next test finds the ports free.
  for (let tries = 0; tries < 40 && stillRunning(procs).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 250));
});

/** `tsx scripts/dev.ts --only … --port-offset N --state-dir …` in a process group of its own (a terminal's job), once it serves. */
async function startRunner(only: string, offset: number): Promise<Runner> {
  const args = ['scripts/dev.ts', '--only', only, '--port-offset', String(offset), '--state-dir', stateDir];
  // The embedded databases and the stack's own places, whatever the environment names.
  const inherited = ['DATABASE_URL', 'LEGACY_DATABASE_URL', 'DEV_PORT_OFFSET', 'DEV_STATE_DIR', 'WRANGLER_REGISTRY_PATH'];
  const launcher = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !inherited.includes(name))),
  });
  let output = '';
  // What it has started so far, for the clean-up should the start fail half-way.
  const record = () => started.push(...tree(launcher.pid!).filter((proc) => !started.some((p) => p.pid === proc.pid)));
  const recording = setInterval(record, 2_000);
  const runnerPid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the dev runner did not serve within ${START_TIMEOUT_MS / 1000} s:\n${output.slice(-3000)}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const pid = /Ctrl-C \(or kill (\d+)\) stops everything/.exec(output)?.[1];
      if (pid) {
        clearTimeout(timer);
        resolve(Number(pid));
      }
    };
    launcher.stdout!.on('data', onData);
    launcher.stderr!.on('data', onData);
    launcher.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the dev runner exited (code ${code}) before serving:\n${output.slice(-3000)}`));
    });
  }).finally(() => clearInterval(recording));
  record();
  return { launcher, runnerPid, stack: tree(launcher.pid!), output: () => output };
}

/** Waits until no process of the stack runs and no port of it listens; what is left if that takes too long. */
async function leftBehind(stack: readonly Proc[], stackPortList: readonly number[]): Promise<{ processes: string[]; ports: number[] }> {
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  for (;;) {
    const processes = stillRunning(stack).map((proc) => `${proc.pid} ${proc.args.slice(0, 120)}`);
    const ports = await busyPorts(stackPortList);
    if ((processes.length === 0 && ports.length === 0) || Date.now() > deadline) return { processes, ports };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The answer's status, or 0 while nothing answers. */
const statusOf = (url: string) =>
  fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) }).then(
    (answer) => answer.status,
    () => 0,
  );

const runnerTest = (name: string, only: string, stop: (runner: Runner) => void) =>
  it(
    name,
    async () => {
      const offset = await freeOffset();
      const ports = stackPorts(offset);
      // Free to begin with, or the test would not prove that the stop freed them.
      await assertPortsFree(ports.map((port) => ({ port, what: `dev stack moved by ${offset}` })));
      const runner = await startRunner(only, offset);
      const workerds = runner.stack.filter((proc) => /\bworkerd\b/.test(proc.args));
      expect(workerds.length, 'workerd processes under the runner').toBeGreaterThan(0);
      // auth, the relay and the racing database, each on its moved port.
      expect(await busyPorts(ports)).toEqual(expect.arrayContaining([8701 + offset, 8790 + offset, 54329 + offset]));
      if (only.split(',').includes('router')) {
        // The router reaches this stack's auth by its service binding, through the stack's own dev registry.
        expect(existsSync(join(stateDir, 'registry', 'auth')), "auth in the stack's dev registry").toBe(true);
        const direct = await statusOf(`http://127.0.0.1:${8701 + offset}/api/docs/`);
        expect(direct).toBeGreaterThan(0);
        expect(await statusOf(`http://127.0.0.1:${8787 + offset}/auth/api/docs/`), 'auth through the router').toBe(direct);
      }
      const stopped = Date.now();
      stop(runner);
      const left = await leftBehind(runner.stack, ports);
      expect(left, `left behind ${Math.round((Date.now() - stopped) / 1000)} s after the stop:\n${runner.output().slice(-2000)}`).toEqual({
        processes: [],
        ports: [],
      });
    },
    START_TIMEOUT_MS + STOP_TIMEOUT_MS + 30_000,
  );

describe('stopping the dev runner', () => {
  runnerTest('SIGKILL of the runner: the watchdogs end every wrangler and workerd, and every port is free', 'auth,router', (runner) => {
    process.kill(runner.runnerPid, 'SIGKILL');
  });

  runnerTest('SIGTERM of the runner stops everything', 'auth', (runner) => {
    process.kill(runner.runnerPid, 'SIGTERM');
  });

  runnerTest('Ctrl-C (SIGINT to the whole job) stops everything', 'auth', (runner) => {
    process.kill(-runner.launcher.pid!, 'SIGINT');
  });

  runnerTest('SIGKILL of what launched it (tsx) stops everything', 'auth', (runner) => {
    process.kill(runner.launcher.pid!, 'SIGKILL');
  });
});
