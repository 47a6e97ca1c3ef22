import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devStackPorts, MAX_PORT_OFFSET, portInUse } from '../../scripts/ports';
import { landedWorkers, ROOT } from '../../scripts/workers';
import { freshCodes, printedBackupCodes } from '../support/totp';

// `npm run dev:deno` on its own, as on a fresh clone: no `npm run dev`, no database, relay or Graph
// stand-in of the test run given to it. It starts its own (scripts/dev-dependencies.ts) on a moved
// stack (--port-offset, --state-dir in a temporary folder), and each service answers a request that
// needs them: stats and the CMS read the racing database through the relay, the form service
// renders a runner from it, the mail assistant reaches the Graph stand-in's mailbox, the auth and
// migration services sign in against their seeded D1. Ctrl-C then stops every process it started.

/** The demo data's first load into fresh embedded databases, then the Deno host's start, on a busy two-core machine. */
const START_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 30_000;

const DEMO = { email: 'demo@example.com', password: 'demo-password-1' };
const OPERATOR = { email: 'operator@example.com', password: 'operator-password-1' };
const SECRETS = { demo: 'JBSWY3DPEHPK3PXP', operator: 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF' } as const;
// The stack's auth database is its own: each TOTP step of an account is taken once, then (the demo
// account) one of the backup codes the host prints on its first start. No sign-in waits for a step.
const backupCodes: Record<keyof typeof SECRETS, string[]> = { demo: [], operator: [] };
const code = freshCodes<keyof typeof SECRETS>((name) => SECRETS[name], backupCodes);

const workers = landedWorkers();
/** Every port the stack listens on, moved by `offset`: the services and the router, the relay, the stand-in, both databases. */
const stackPorts = (offset: number) =>
  devStackPorts({ workers, offset, embeddedDatabase: true, embeddedLegacy: true, graphStandin: true, inspectors: false }).map(
    (entry) => entry.port,
  );
/** Offsets whose ports stay off Linux's ephemeral range (32768–60999): services below it, databases above it, none on `npm run dev`'s. */
const OFFSETS = Array.from({ length: Math.floor((MAX_PORT_OFFSET - 6700) / 100) + 1 }, (_, i) => 6700 + i * 100);

async function busyPorts(ports: readonly number[]): Promise<number[]> {
  const busy: number[] = [];
  for (const port of ports) if (await portInUse(port)) busy.push(port);
  return busy;
}

async function freeOffset(): Promise<number> {
  const start = Math.floor(Math.random() * OFFSETS.length);
  for (let i = 0; i < OFFSETS.length; i++) {
    const offset = OFFSETS[(start + i) % OFFSETS.length]!;
    if ((await busyPorts(stackPorts(offset))).length === 0) return offset;
  }
  throw new Error(`no port offset of ${OFFSETS[0]}…${OFFSETS.at(-1)} has all its ports free`);
}

type Proc = { pid: number; ppid: number; stat: string; args: string };

function processTable(): Proc[] {
  const ps = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' });
  return ps.stdout.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    return match ? [{ pid: Number(match[1]), ppid: Number(match[2]), stat: match[3]!, args: match[4]! }] : [];
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

let stateDir = '';
let offset = 0;
/** Every process the command started (recorded while it starts and once it serves), killed after the file whatever happened. */
const started: Proc[] = [];
const url = (name: string, path: string) => `http://127.0.0.1:${workers.find((worker) => worker.name === name)!.port + offset}${path}`;

type Stack = { launcher: ChildProcess; runnerPid: number; procs: Proc[]; record(): void; output(): string };
let stack: Stack;

/** `npm run dev:deno -- --port-offset N --state-dir DIR …` in a process group of its own (a terminal's job), once it serves. */
async function startStack(extra: string[] = []): Promise<Stack> {
  // Nothing of the test run's own stack, nor of a developer's: the command's defaults, on its moved ports.
  const inherited = [
    'DATABASE_URL',
    'LEGACY_DATABASE_URL',
    'PG_WS_PROXY',
    'GRAPH_STANDIN_URL',
    'DEV_PORT_OFFSET',
    'DEV_STATE_DIR',
    'WRANGLER_REGISTRY_PATH',
  ];
  const launcher = spawn('npm', ['run', 'dev:deno', '--', '--port-offset', String(offset), '--state-dir', stateDir, ...extra], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !inherited.includes(name))), NO_COLOR: '1' },
  });
  let output = '';
  const procs: Proc[] = [];
  const record = () => {
    const fresh = launcher.pid ? tree(launcher.pid).filter((proc) => !procs.some((p) => p.pid === proc.pid)) : [];
    procs.push(...fresh);
    started.push(...fresh);
  };
  const recording = setInterval(record, 2_000);
  const runnerPid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm run dev:deno did not serve within ${START_TIMEOUT_MS / 1000} s:\n${output.slice(-3000)}`)),
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
    launcher.once('exit', (exitCode) => {
      clearTimeout(timer);
      reject(new Error(`npm run dev:deno exited (code ${exitCode}) before serving:\n${output.slice(-3000)}`));
    });
  }).finally(() => clearInterval(recording));
  record();
  return { launcher, runnerPid, procs, record, output: () => output };
}

/** Once the stack's launcher has ended: what of its processes and ports is still there after the stop's time. */
async function leftBehind(stack: Stack): Promise<{ processes: string[]; ports: number[] }> {
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  for (;;) {
    const processes = stillRunning(stack.procs).map((proc) => `${proc.pid} ${proc.args.slice(0, 120)}`);
    const ports = await busyPorts(stackPorts(offset));
    if ((processes.length === 0 && ports.length === 0) || Date.now() > deadline) return { processes, ports };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const exited = (launcher: ChildProcess) =>
  launcher.exitCode === null && launcher.signalCode === null ? new Promise((resolve) => launcher.once('exit', resolve)) : Promise.resolve();

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'dev-deno-'));
  offset = await freeOffset();
  stack = await startStack();
  backupCodes.demo.push(...printedBackupCodes(stack.output()));
}, START_TIMEOUT_MS + 10_000);

afterAll(async () => {
  // Whatever a failed test left: nothing of the stack outlives the file.
  for (const proc of stillRunning(started)) {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

/** A cookie jar over fetch for one origin, redirects not followed. */
function client(origin: string) {
  const cookies = new Map<string, string>();
  return async (
    path: string,
    init: { method?: string; headers?: Record<string, string>; form?: Record<string, string>; json?: unknown } = {},
  ) => {
    const headers = new Headers(init.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('origin', origin);
    }
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('content-type', 'application/json');
    }
    const res = await fetch(new URL(path, origin), {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    return res;
  };
}

const hidden = (html: string, name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '';

describe('npm run dev:deno alone', () => {
  let meeting: { date: string; course_id: number } | undefined;

  it("stats: meetings and a meeting's statistics from the racing database, through the relay", { timeout: 60_000 }, async () => {
    const auth = { authorization: 'Bearer dev-static-token' };
    const meetings = await fetch(url('stats', '/meetings'), { headers: auth });
    expect(meetings.status).toBe(200);
    const list = (await meetings.json()) as { date: string; course_id: number; races: number }[];
    expect(list.length).toBeGreaterThan(0);
    meeting = list[0]!;
    const stats = await fetch(url('stats', `/meetingStats?date=${meeting.date}&courseId=${meeting.course_id}`), { headers: auth });
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({ status: 'success', meeting: { courseId: meeting.course_id } });
  });

  it('cms: a signed-in racing look-up (the courses racing on a day, with their meetings)', { timeout: 90_000 }, async () => {
    const cms = client(url('cms', ''));
    expect((await cms('/api/v1/auth/login', { json: DEMO })).status).toBe(200);
    expect((await cms('/api/v1/auth/totp-verify', { json: { code: code('demo') } })).status).toBe(200);
    const date = meeting?.date ?? new Date().toISOString().slice(0, 10);
    const courses = await cms(`/api/v1/lookup/courses?date=${date}`);
    expect(courses.status).toBe(200);
    const list = (await courses.json()) as { id: number; meetingId: number | null }[];
    expect(list.length).toBeGreaterThan(0);
    if (meeting) expect(list.map((course) => course.id)).toContain(meeting.course_id);
    expect(list.every((course) => typeof course.meetingId === 'number')).toBe(true);
  });

  it('form: sign in and a runner page rendered from the racing database', { timeout: 60_000 }, async () => {
    const form = client(url('form', ''));
    const login = await (await form('/form/')).text();
    const signedIn = await form('/form/', {
      form: { username: 'admin', password: 'admin-dev-password', csrf_token: hidden(login, 'csrf_token') },
    });
    expect(signedIn.status).toBe(302);
    const runner = await form('/form/runner/');
    expect(runner.status).toBe(302);
    const page = await form(runner.headers.get('location')!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<title>[^<]+Runner form/);
  });

  it("mail: signed in, the Graph stand-in's mailbox connected by itself", { timeout: 90_000 }, async () => {
    const mail = client(url('mail', ''));
    const first = await (await mail('/login')).text();
    const password = await mail('/login', { form: { csrf_token: hidden(first, 'csrf_token'), next: '/outlook', ...DEMO } });
    expect(password.status).toBe(200);
    const second = await password.text();
    const signedIn = await mail('/login', {
      form: { csrf_token: hidden(second, 'csrf_token'), next: '/outlook', code: code('demo') },
    });
    expect(signedIn.status).toBe(302);
    const folders = await mail('/api/folders');
    expect(folders.status).toBe(200);
    expect(((await folders.json()) as { folders: unknown[] }).folders.length).toBeGreaterThan(0);
    expect(await (await mail('/api/auth-status')).json()).toEqual({ authenticated: true });
  });

  it('auth: the sign-in page', async () => {
    const page = await fetch(url('auth', '/admin/login/'));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/name="email"/);
    expect(html).toMatch(/name="password"/);
  });

  it('migrate: the Operator signs in and the home page shows the seeded active configuration', { timeout: 90_000 }, async () => {
    const migrate = client(url('migrate', ''));
    const form = await (await migrate('/Account/Login')).text();
    const login = await migrate('/Account/Login', {
      form: { __RequestVerificationToken: hidden(form, '__RequestVerificationToken'), ...OPERATOR },
    });
    expect(login.status).toBe(302);
    const verifyPage = await (await migrate(login.headers.get('location')!)).text();
    const verify = await migrate('/Account/Verify', {
      form: {
        __RequestVerificationToken: hidden(verifyPage, '__RequestVerificationToken'),
        pendingToken: hidden(verifyPage, 'pendingToken'),
        email: OPERATOR.email,
        code: code('operator'),
      },
    });
    expect(verify.status).toBe(302);
    const home = await migrate('/');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('data-active-configuration="true"');
  });

  it('router: a service by its path prefix', async () => {
    const res = await fetch(url('router', '/stats/health'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('Ctrl-C stops everything it started: no process and no port of the stack left', { timeout: STOP_TIMEOUT_MS + 10_000 }, async () => {
    stack.record();
    // The Deno host, under its watchdog, and the Node process that holds the databases, relay and stand-in.
    expect(stack.procs.some((proc) => /deno\/host\/main\.ts/.test(proc.args))).toBe(true);
    expect(stack.procs.some((proc) => proc.pid === stack.runnerPid && /scripts\/dev-deno\.ts/.test(proc.args))).toBe(true);
    // As a terminal's Ctrl-C: SIGINT to the job's process group.
    process.kill(-stack.launcher.pid!, 'SIGINT');
    await exited(stack.launcher);
    expect(await leftBehind(stack)).toEqual({ processes: [], ports: [] });
  });
});

describe('npm run dev:deno stopped another way', () => {
  // The databases keep their demo data from the start above: these starts are short.
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    '%s to the process it names ("kill PID") leaves nothing behind',
    { timeout: START_TIMEOUT_MS + STOP_TIMEOUT_MS + 10_000 },
    async (signal) => {
      const again = await startStack(['--only', 'stats,router']);
      const meetings = await fetch(url('stats', '/meetings'), { headers: { authorization: 'Bearer dev-static-token' } });
      expect(meetings.status).toBe(200);
      expect(again.procs.some((proc) => /deno\/host\/main\.ts/.test(proc.args))).toBe(true);
      process.kill(again.runnerPid, signal);
      await exited(again.launcher);
      expect(await leftBehind(again)).toEqual({ processes: [], ports: [] });
    },
  );
});
