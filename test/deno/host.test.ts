import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestAuthService, type TestAuthService } from '../support/auth-service';
import { freshCodes } from '../support/totp';
// inject(): what test/global-setup.ts provides to every project (its ProvidedContext declaration).
import type {} from '../global-setup';

// The Deno host (deno/host) started as a child process on free ports with a temporary state
// directory, against the run's racing database (through its relay), legacy source and Graph
// stand-in; each service's main flow over HTTP, as a client of `npm run dev` would see it.

const ROOT = new URL('../..', import.meta.url).pathname;
const DENO = join(ROOT, 'node_modules', '.bin', 'deno');
const SERVICES = ['auth', 'cms', 'stats', 'form', 'migrate', 'mail', 'router'] as const;
type Service = (typeof SERVICES)[number];

const DEMO = { email: 'demo@example.com', password: 'demo-password-1' };
const OPERATOR = { email: 'operator@example.com', password: 'operator-password-1' };
const WORKERD_ACCOUNT = { email: 'deno-compare@example.com', password: 'deno-compare-password-1', totpSecret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', role: 'admin' as const };
const SECRETS = { demo: 'JBSWY3DPEHPK3PXP', operator: 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF', workerd: WORKERD_ACCOUNT.totpSecret } as const;
// Each TOTP step is accepted once per account: the three demo sign-ins below take three steps.
const code = freshCodes<keyof typeof SECRETS>((name) => SECRETS[name], { demo: [], operator: [], workerd: [] });
// The development secrets of workers/auth/.dev.vars.example, so both answer the same client secret.
const AUTH_DEV_VARS = {
  AUTH_SSO_SHARED_SECRET: 'dev-client-secret',
  AUTH_TOKEN_SECRET: 'dev-token-secret-change-me-in-production-0123456789',
  AUTH_TOTP_ENCRYPTION_KEY: 'ZGV2LXRvdHAta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0=',
};
let workerdAuth: Promise<TestAuthService>;
let hostAuthFlow: FlowStep[] | undefined;

let state: string;
let host: ChildProcess | undefined;
let output = '';
const base = {} as Record<Service, string>;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'deno-host-'));
  // The auth Worker under workerd, for the comparison below; it starts while the host does.
  workerdAuth = startTestAuthService({ compare: WORKERD_ACCOUNT }, AUTH_DEV_VARS);
  workerdAuth.catch(() => undefined);
  const ports: string[] = [];
  for (const name of SERVICES) {
    const port = await freePort();
    base[name] = `http://127.0.0.1:${port}`;
    ports.push('--port', `${name}=${port}`);
  }
  const args = [
    'run',
    '--no-prompt',
    '--allow-all',
    '--unstable-cron',
    'deno/host/main.ts',
    '--state',
    join(state, 'data'),
    ...ports,
    '--pg-ws-proxy',
    inject('pgRelay'),
    '--database-url',
    inject('racingDatabaseUrl'),
    '--legacy-database-url',
    inject('legacyDatabaseUrl'),
    '--graph-standin',
    inject('graphStandin'),
    // The tests tick the Cron Triggers themselves, as `wrangler dev --test-scheduled` lets them.
    '--no-crons',
    '--test-scheduled',
    ...(inject('racingDatabaseEmbedded') ? ['--var', 'migrate.MIGRATE_DIRECT_COPY:off'] : []),
  ];
  host = spawn(DENO, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Deno host did not start within 45 s:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (/^Ready$/m.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    host!.stdout!.on('data', onData);
    host!.stderr!.on('data', onData);
    host!.once('exit', (exitCode) => {
      clearTimeout(timer);
      reject(new Error(`the Deno host exited with ${exitCode}:\n${output}`));
    });
  });
}, 60_000);

afterAll(async () => {
  await (await workerdAuth.catch(() => undefined))?.dispose();
  if (host && host.exitCode === null) {
    const exited = new Promise((resolve) => host!.once('exit', resolve));
    host.kill('SIGTERM');
    const timer = setTimeout(() => host!.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  await rm(state, { recursive: true, force: true });
});

/** A cookie jar over fetch, redirects not followed. */
function client(origin: string) {
  const cookies = new Map<string, string>();
  return async (path: string, init: RequestInit & { form?: Record<string, string>; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    let body = init.body;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('origin', origin);
    }
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('content-type', 'application/json');
    }
    const res = await fetch(new URL(path, origin), { ...init, body, headers, redirect: 'manual' });
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

/** A GET with another Host header (fetch does not let one be set). */
function getWithHost(url: string, hostHeader: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { host: hostHeader } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    })
      .on('error', reject)
      .end();
  });
}

type Client = ReturnType<typeof client>;
type FlowStep = [step: string, status: number, fields: string[]];

/** login → verify → whoami → refresh with the failures between: each answer's status and JSON field names. */
async function authFlow(auth: Client, account: { email: string; password: string }, totp: () => string) {
  const steps: FlowStep[] = [];
  const headers = { 'x-auth-client-secret': 'dev-client-secret' };
  const record = async (step: string, res: Response) => {
    const body = (await res.json()) as Record<string, unknown>;
    steps.push([step, res.status, Object.keys(body).sort()]);
    return body;
  };
  const post = (path: string, json: unknown, h: Record<string, string> = headers) => auth(path, { method: 'POST', json, headers: h });
  await record('login, wrong client secret', await post('/api/login/', account, { 'x-auth-client-secret': 'nope' }));
  await record('login, wrong password', await post('/api/login/', { ...account, password: 'not-the-password-1' }));
  const pending = await record('login', await post('/api/login/', account));
  await record('verify, wrong code', await post('/api/verify-2fa/', { pending_token: pending.pending_token, code: '000000' }));
  const tokens = await record('verify', await post('/api/verify-2fa/', { pending_token: pending.pending_token, code: totp() }));
  const whoami = await record('whoami', await auth('/api/whoami/', { headers: { authorization: `Bearer ${String(tokens.access_token)}` } }));
  await record('whoami, bad token', await auth('/api/whoami/', { headers: { authorization: 'Bearer at.nope' } }));
  await record('refresh', await post('/api/token/refresh/', { refresh_token: tokens.refresh_token }));
  await record('refresh, replayed token', await post('/api/token/refresh/', { refresh_token: tokens.refresh_token }));
  return { steps, whoami };
}

const hidden = (html: string, name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '';

it("passes the host modules' Deno tests (polyfills, bindings, assets, cron, configuration)", { timeout: 120_000 }, async () => {
  const tmp = join(state, 'tmp');
  await mkdir(tmp, { recursive: true });
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(DENO, ['test', '--no-prompt', '--unstable-cron', '--allow-net=127.0.0.1', `--allow-read=${ROOT},${state}`, `--allow-write=${state}`, 'deno/host/'], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ code: exitCode, output: text }));
  });
  expect(result.code, `deno test deno/host/ failed:\n${result.output}`).toBe(0);
  expect(result.output).toMatch(/ok \| \d+ passed \| 0 failed/);
});

describe('Deno host', () => {
  it('stats: health, /meetingStats with the static token, the token guard, a page and a text-module asset', async () => {
    const get = client(base.stats);
    expect(await (await get('/health')).json()).toEqual({ status: 'ok' });
    const auth = { authorization: 'Bearer dev-static-token' };
    const meetings = (await (await get('/meetings', { headers: auth })).json()) as { course_id: number; date: string }[];
    expect(meetings.length).toBeGreaterThan(0);
    const res = await get(`/meetingStats?date=${meetings[0]!.date}&courseId=${meetings[0]!.course_id}`, { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'success', meeting: { courseId: meetings[0]!.course_id } });
    expect(Array.isArray(body.trainers) && Array.isArray(body.jockeys)).toBe(true);
    // The user context Durable Object remembered that meeting for this caller.
    expect(await (await get('/api/user-context', { headers: auth })).json()).toEqual({ date: meetings[0]!.date, course_id: meetings[0]!.course_id });
    const refused = await get('/meetingStats?courseId=1', { headers: { authorization: 'Bearer wrong' } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ detail: 'Invalid token' });
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const docs = await (await get('/docs')).text();
    const css = docs.match(/\/assets\/swagger-ui-[^"]+\.css/)?.[0];
    expect(css).toBeDefined();
    const asset = await get(css!);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(10_000);
  });

  it('form: login, a runner page (Postgres, sessions, cache) and a static asset', async () => {
    const form = client(base.form);
    expect((await form('/form/runner/')).headers.get('location')).toMatch(/\/form\/$/);
    const login = await (await form('/form/')).text();
    const wrong = await form('/form/', { method: 'POST', form: { username: 'admin', password: 'nope', csrf_token: hidden(login, 'csrf_token') } });
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toContain('Invalid username or password.');
    const again = await (await form('/form/')).text();
    const ok = await form('/form/', { method: 'POST', form: { username: 'admin', password: 'admin-dev-password', csrf_token: hidden(again, 'csrf_token') } });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toMatch(/\/form\/runner\/$/);
    const runner = await form('/form/runner/');
    expect(runner.status).toBe(302);
    const page = await form(runner.headers.get('location')!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<title>[^<]+Runner form/);
    const dates = (await (await form('/form/api/dates/')).json()) as { dates: string[] };
    expect(dates.dates).toContain(inject('racingToday'));
    const css = await form('/form/static/form.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('auth: login → verify (TOTP) → whoami → refresh, and its Cron Trigger', async () => {
    const auth = client(base.auth);
    const flow = await authFlow(auth, DEMO, () => code('demo'));
    hostAuthFlow = flow.steps;
    expect(flow.steps).toEqual([
      ['login, wrong client secret', 401, ['error', 'success']],
      ['login, wrong password', 400, ['error', 'success']],
      ['login', 200, ['enrolled', 'pending_token', 'success']],
      ['verify, wrong code', 400, ['error', 'success']],
      ['verify', 200, ['access_token', 'expires_in', 'refresh_token', 'refresh_token_expires_at', 'success', 'user']],
      ['whoami', 200, ['user_name', 'user_permissions']],
      ['whoami, bad token', 401, ['error', 'success']],
      ['refresh', 200, ['access_token', 'expires_in', 'refresh_token', 'refresh_token_expires_at', 'success']],
      ['refresh, replayed token', 401, ['error', 'success']],
    ]);
    expect(flow.whoami).toEqual({ user_name: DEMO.email, user_permissions: 'ADMIN' });
    expect((await auth('/api/docs/swagger-ui.css')).status).toBe(200);
    const cron = await auth(`/__scheduled?cron=${encodeURIComponent('23 * * * *')}`);
    expect(cron.status).toBe(200);
  });

  it('auth: the same flow gives the same status codes and JSON fields as the Worker under workerd', { timeout: 60_000 }, async () => {
    expect(hostAuthFlow, 'the auth flow on the host ran first').toBeDefined();
    const workerd = await workerdAuth;
    const flow = await authFlow(client(workerd.url), WORKERD_ACCOUNT, () => code('workerd'));
    expect(flow.steps).toEqual(hostAuthFlow);
    expect(flow.whoami).toEqual({ user_name: WORKERD_ACCOUNT.email, user_permissions: 'ADMIN' });
  });

  it('cms: sign-in through the auth service binding, a story round trip and a photo upload (R2, FixedLengthStream)', async () => {
    const cms = client(base.cms);
    const login = await cms('/api/v1/auth/login', { method: 'POST', json: DEMO });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({ totpRequired: true, expiresIn: 300 });
    const verify = await cms('/api/v1/auth/totp-verify', { method: 'POST', json: { code: code('demo') } });
    expect(verify.status).toBe(200);
    expect(await (await cms('/api/v1/auth/me')).json()).toMatchObject({ email: DEMO.email, role: 'ADMIN' });
    const created = await cms('/api/v1/story', { method: 'POST', json: { title: 'Served by the Deno host', siteIds: [1], content: 'hello' } });
    expect(created.status).toBe(201);
    const story = (await created.json()) as { id: number; title: string; siteIds: number[] };
    expect(story).toMatchObject({ title: 'Served by the Deno host', siteIds: [1] });
    const updated = await cms(`/api/v1/story/${story.id}`, { method: 'PUT', json: { title: 'Changed', siteIds: [1] } });
    expect(await updated.json()).toMatchObject({ id: story.id, title: 'Changed' });
    expect((await cms(`/api/v1/story/${story.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await cms(`/api/v1/story/${story.id}`)).status).toBe(404);
    const list = (await (await cms('/api/v1/story?pageSize=2')).json()) as { items: unknown[]; totalCount: number };
    expect(list.items).toHaveLength(2);
    expect(list.totalCount).toBeGreaterThanOrEqual(300);

    const bytes = new Uint8Array(64).fill(7);
    const upload = (await (await cms(`/api/v1/media/upload-url?type=photo&contentType=image/png&size=${bytes.length}`)).json()) as { uploadUrl: string; objectKey: string };
    const put = await fetch(upload.uploadUrl.replace(/^http:\/\/[^/]+/, base.cms), { method: 'PUT', body: bytes, headers: { 'content-type': 'image/png' } });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ objectKey: upload.objectKey, sizeBytes: 64 });
    // Not a real PNG: refused when the record is made, and nothing stored.
    const bad = await cms('/api/v1/media', { method: 'POST', json: { type: 'photo', objectKey: upload.objectKey, title: 'x' } });
    expect(bad.status).toBe(400);
    expect((await cms('/health')).status).toBe(200);
  });

  it('migrate: Operator sign-in through the auth service binding, the home page, and a sync-job run from its cron', async () => {
    const migrate = client(base.migrate);
    const form = await (await migrate('/Account/Login')).text();
    const login = await migrate('/Account/Login', { method: 'POST', form: { __RequestVerificationToken: hidden(form, '__RequestVerificationToken'), ...OPERATOR } });
    expect(login.status).toBe(302);
    const verifyPage = await (await migrate(login.headers.get('location')!)).text();
    const verify = await migrate('/Account/Verify', {
      method: 'POST',
      form: { __RequestVerificationToken: hidden(verifyPage, '__RequestVerificationToken'), pendingToken: hidden(verifyPage, 'pendingToken'), email: OPERATOR.email, code: code('operator') },
    });
    expect(verify.status).toBe(302);
    const home = await migrate('/');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('data-active-configuration="true"');
    // The seeded sync job is due: the cron tick starts it in its MigrationJob Durable Object, whose
    // alarms copy the legacy source's trainers (already present: every row skipped) and validate.
    const tick = await migrate(`/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
    expect(tick.status).toBe(200);
    let status = { running: 1, errored: 0, enabled: 0, total: 0 };
    for (let i = 0; i < 40 && status.running > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await (await migrate('/api/sync/status')).json()) as typeof status;
    }
    expect(status).toEqual({ running: 0, errored: 0, enabled: 1, total: 1 });
    const css = await migrate('/static/migrate.css');
    expect(css.status).toBe(200);
    // assets/_headers applies to the static files.
    expect(css.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('mail: sign-in through the auth service binding and the stand-in mailbox', async () => {
    const mail = client(base.mail);
    const first = await (await mail('/login')).text();
    const step1 = await mail('/login', { method: 'POST', form: { csrf_token: hidden(first, 'csrf_token'), next: '/outlook', ...DEMO } });
    expect(step1.status).toBe(200);
    const second = await step1.text();
    const step2 = await mail('/login', { method: 'POST', form: { csrf_token: hidden(second, 'csrf_token'), next: '/outlook', code: code('demo') } });
    expect(step2.status).toBe(302);
    expect(step2.headers.get('location')).toMatch(/\/outlook$/);
    expect((await mail('/outlook')).status).toBe(200);
    const folders = await mail('/api/folders');
    expect(folders.status).toBe(200);
    expect(((await folders.json()) as { folders: unknown[] }).folders.length).toBeGreaterThan(0);
  });

  it('router: forwards by host name through service bindings', async () => {
    const viaRouter = await getWithHost(`${base.router}/health`, 'stats.localhost');
    expect(viaRouter).toEqual({ status: 200, body: { status: 'ok' } });
    const unknown = await getWithHost(`${base.router}/health`, 'nope.localhost');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'unknown_host' });
  });
});
