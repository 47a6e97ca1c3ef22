import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertPortsFree, portInUse } from '../../scripts/ports';
import { ROOT } from '../../scripts/workers';

// The dev runner (scripts/dev.ts, as `npm run dev` starts it through tsx), however it stops, leaves
// no process and no port of its stack behind: its `wrangler dev`s, their workerd, the databases.
// It starts a subset of the Workers (--only) to keep each start short; the spawning is the same.

/** Every fixed port of the dev stack: the six services and the router, their inspectors, the relay, both databases. */
const STACK_PORTS = [8701, 8702, 8703, 8704, 8705, 8706, 8787, 9701, 9702, 9703, 9704, 9705, 9706, 9787, 8790, 54329, 54330];
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

async function busyPorts(): Promise<number[]> {
  const busy: number[] = [];
  for (const port of STACK_PORTS) if (await portInUse(port)) busy.push(port);
  return busy;
}

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

/** `tsx scripts/dev.ts --only …` in a process group of its own (a terminal's job), once it serves. */
async function startRunner(only: string): Promise<Runner> {
  const launcher = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/dev.ts', '--only', only], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The embedded databases, whatever the environment names.
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL' && name !== 'LEGACY_DATABASE_URL')),
  });
  let output = '';
  // What it has started so far, for the clean-up should the start fail half-way.
  const record = () => started.push(...tree(launcher.pid!).filter((proc) => !started.some((p) => p.pid === proc.pid)));
  const recording = setInterval(record, 2_000);
  const runnerPid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the dev runner did not serve within ${START_TIMEOUT_MS / 1000} s:\n${output.slice(-3000)}`)), START_TIMEOUT_MS);
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
async function leftBehind(stack: readonly Proc[]): Promise<{ processes: string[]; ports: number[] }> {
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  for (;;) {
    const processes = stillRunning(stack).map((proc) => `${proc.pid} ${proc.args.slice(0, 120)}`);
    const ports = await busyPorts();
    if ((processes.length === 0 && ports.length === 0) || Date.now() > deadline) return { processes, ports };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const runnerTest = (name: string, only: string, stop: (runner: Runner) => void) =>
  it(
    name,
    async () => {
      // The ports must be free to begin with (a dev stack running here would hold them).
      await assertPortsFree(STACK_PORTS.map((port) => ({ port, what: 'dev stack' })));
      const runner = await startRunner(only);
      const workerds = runner.stack.filter((proc) => /\bworkerd\b/.test(proc.args));
      expect(workerds.length, 'workerd processes under the runner').toBeGreaterThan(0);
      expect(await busyPorts()).toEqual(expect.arrayContaining([8701, 8790, 54329]));
      const stopped = Date.now();
      stop(runner);
      const left = await leftBehind(runner.stack);
      expect(left, `left behind ${Math.round((Date.now() - stopped) / 1000)} s after the stop:\n${runner.output().slice(-2000)}`).toEqual({ processes: [], ports: [] });
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
