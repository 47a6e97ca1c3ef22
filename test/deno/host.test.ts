import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshCodes, printedBackupCodes } from '../support/totp';
import { startWorkerdServices, type WorkerdServices } from '../support/workerd-services';
// inject(): what test/global-setup.ts provides to every project (its ProvidedContext declaration).
import type {} from '../global-setup';

// The Deno host (deno/host) started as a child process on free ports with a temporary state
// directory, against the run's racing database (through its relay), legacy source and Graph
// stand-in; and beside it every Worker in local workerd as `npm run dev` starts them, with the same
// development data (test/support/workerd-services.ts). Each service's main flow runs against both,
// as a client of `npm run dev` would see it, and the two transcripts must match.

const ROOT = new URL('../..', import.meta.url).pathname;
const DENO = join(ROOT, 'node_modules', '.bin', 'deno');
const SERVICES = ['auth', 'cms', 'stats', 'form', 'migrate', 'mail', 'router'] as const;
type Service = (typeof SERVICES)[number];
const RUNTIMES = ['Deno host', 'workerd', 'workerd router by host', 'workerd router by path'] as const;
type Runtime = (typeof RUNTIMES)[number];
/** The flows run through the router as well: by each service's host name, and by its path prefix on one origin. */
const ROUTED = ['auth', 'cms', 'stats', 'form'] as const satisfies readonly Service[];
const viaRouter = (runtime: Runtime) => runtime.startsWith('workerd router');
/** Whose auth database a runtime signs in against (each TOTP step is taken once per account and database). */
const authOf = (runtime: Runtime) => (runtime === 'Deno host' ? 'Deno host' : 'workerd');

const DEMO = { email: 'demo@example.com', password: 'demo-password-1' };
const OPERATOR = { email: 'operator@example.com', password: 'operator-password-1' };
const SECRETS = { demo: 'JBSWY3DPEHPK3PXP', operator: 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF' } as const;
type Account = keyof typeof SECRETS;
// Each TOTP step is accepted once per account and auth database: the demo sign-ins on each runtime
// take steps of that runtime's own auth service, then the demo account's backup codes (workerd's
// seed returns them; the Deno host prints them on its first start). No sign-in waits for a step.
const backupCodes: Record<`${Account}@${'Deno host' | 'workerd'}`, string[]> = {
  'demo@Deno host': [],
  'operator@Deno host': [],
  'demo@workerd': [],
  'operator@workerd': [],
};
const freshCode = freshCodes<`${Account}@${'Deno host' | 'workerd'}`>(
  (name) => SECRETS[name.slice(0, name.indexOf('@')) as Account],
  backupCodes,
);
function codes(account: `${Account}@${Runtime}`): string {
  const at = account.indexOf('@');
  return freshCode(`${account.slice(0, at) as Account}@${authOf(account.slice(at + 1) as Runtime)}`);
}

let workerd: Promise<WorkerdServices>;
const base: Record<'Deno host' | 'workerd', Record<Service, string>> = {
  'Deno host': {} as Record<Service, string>,
  workerd: {} as Record<Service, string>,
};
/** Each runtime's transcript of each service's flow, compared at the end. */
const transcripts: Record<Runtime, Partial<Record<Service, Entry[]>>> = {
  'Deno host': {},
  workerd: {},
  'workerd router by host': {},
  'workerd router by path': {},
};

let state: string;
let host: ChildProcess | undefined;
let output = '';

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

/**
 * `deno test deno/host/`, started with the file so that it runs while the host and workerd start.
 * --no-check: test/deno/adapters.test.ts type-checks these files, the tests among them, through
 * `deno task check` (`deno check … deno/host/ …`).
 */
async function runModuleTests(): Promise<{ code: number | null; output: string }> {
  const tmp = join(state, 'tmp');
  await mkdir(tmp, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(
      DENO,
      [
        'test',
        '--no-prompt',
        '--no-check',
        '--unstable-cron',
        '--allow-net=127.0.0.1',
        `--allow-read=${ROOT},${state}`,
        `--allow-write=${state}`,
        'deno/host/',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ code: exitCode, output: text }));
  });
}
let moduleTests: Promise<{ code: number | null; output: string }>;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'deno-host-'));
  moduleTests = runModuleTests();
  moduleTests.catch(() => undefined);
  // Every Worker under workerd, for the comparison below; they start while the host does.
  workerd = startWorkerdServices({
    relay: inject('pgRelay'),
    databaseUrl: inject('racingDatabaseUrl'),
    legacyDatabaseUrl: inject('legacyDatabaseUrl'),
    graphStandin: inject('graphStandin'),
    noDirectCopy: inject('racingDatabaseEmbedded'),
  });
  workerd.catch(() => undefined);
  const ports: string[] = [];
  for (const name of SERVICES) {
    const port = await freePort();
    base['Deno host'][name] = `http://127.0.0.1:${port}`;
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
  host = spawn(DENO, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  backupCodes['demo@Deno host'].push(...printedBackupCodes(output));
  const services = await workerd;
  base.workerd = services.base;
  backupCodes['demo@workerd'].push(...services.devBackupCodes);
}, 150_000);

afterAll(async () => {
  await moduleTests?.catch(() => undefined);
  await (await workerd?.catch(() => undefined))?.dispose();
  if (host && host.exitCode === null) {
    const exited = new Promise((resolve) => host!.once('exit', resolve));
    host.kill('SIGTERM');
    const timer = setTimeout(() => host!.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  await rm(state, { recursive: true, force: true });
});

/**
 * How a client reaches a service: the origin it sends to, the path prefix it puts before the
 * service's paths (the router by path; the form's paths carry /form already), and the Host header
 * it sends (the router by host name).
 */
type Way = { origin: string; prefix: string; host?: string };

function wayOf(runtime: Runtime, service: Service): Way {
  if (runtime === 'workerd router by host') return { origin: base.workerd.router, prefix: '', host: `${service}.localhost` };
  if (runtime === 'workerd router by path') return { origin: base.workerd.router, prefix: service === 'form' ? '' : `/${service}` };
  return { origin: base[runtime][service], prefix: '' };
}

/** A path the service wrote (a redirect, an upload address) as the client sends it: the prefix once, no host. */
function pathFor(way: Way, path: string): string {
  const url = new URL(path, 'http://service.invalid');
  const local = url.pathname + url.search;
  return way.prefix && !(local === way.prefix || local.startsWith(`${way.prefix}/`)) ? way.prefix + local : local;
}

/** A request with another Host header (fetch does not let one be set), answered as a Response. */
function fetchWithHost(url: URL, host: string, init: { method?: string; headers: Headers; body?: BodyInit | null }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const body = typeof init.body === 'string' || init.body instanceof Uint8Array ? init.body : undefined;
    // A length, not chunks, as fetch sends a known body (uploads require it).
    const headers: Record<string, string> = {
      ...Object.fromEntries(init.headers),
      host,
      ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    };
    const req = request(url, { method: init.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(res.headers)) for (const one of [value ?? []].flat()) answer.append(name, one);
        const status = res.statusCode ?? 0;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: answer }));
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A cookie jar over fetch, redirects not followed. */
function client(way: Way) {
  const { origin } = way;
  const cookies = new Map<string, string>();
  return async (path: string, init: RequestInit & { form?: Record<string, string>; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    let body = init.body;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('origin', way.host ? `http://${way.host}` : origin);
    }
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('content-type', 'application/json');
    }
    const url = new URL(pathFor(way, path), origin);
    const res = way.host
      ? await fetchWithHost(url, way.host, { method: init.method, headers, body })
      : await fetch(url, { ...init, body, headers, redirect: 'manual' });
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

/** One runtime's origin of a service, a cookie-keeping client for it, and a transcript to record into. */
function start(runtime: Runtime, service: Service) {
  const way = wayOf(runtime, service);
  return { way, http: client(way), ...transcript(way) };
}

const hidden = (html: string, name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '';

it("passes the host modules' Deno tests (polyfills, bindings, assets, cron, configuration)", { timeout: 120_000 }, async () => {
  const result = await moduleTests;
  expect(result.code, `deno test deno/host/ failed:\n${result.output}`).toBe(0);
  expect(result.output).toMatch(/ok \| \d+ passed \| 0 failed/);
});

type Entry = [step: string, answer: Record<string, unknown>];

/** A JSON value's structure: keys (sorted) and value types; an array, its elements' distinct structures. */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const distinct = new Map<string, unknown>();
    for (const item of value) {
      const itemShape = shape(item);
      distinct.set(JSON.stringify(itemShape), itemShape);
    }
    return [...distinct.values()];
  }
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .map((key) => [key, shape(object[key])]),
    );
  }
  return typeof value;
}

/** Values that differ between any two answers (request ids, one-time tokens, timings): their type only. */
const VOLATILE = new Set(['request_id', 'loginToken', 'duration', 'totalDuration']);

function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, VOLATILE.has(key) ? typeof item : masked(item)]));
}

/** A page's title and the names of its form fields. */
function pageSummary(html: string) {
  const fields = new Set([...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bname="([^"]*)"/g)].map((m) => m[1]!));
  return { title: html.match(/<title>([^<]*)<\/title>/)?.[1] ?? null, fields: [...fields].sort() };
}

/**
 * A flow's transcript: each step's status, content type, redirect path and body, the body kept as
 * `how` says (the whole JSON value, its structure only, or a page's title and form fields).
 */
function transcript(way: Way) {
  const entries: Entry[] = [];
  const record = async (step: string, res: Response, how: 'value' | 'shape' | 'page' | 'none' = 'shape') => {
    const location = res.headers.get('location');
    const answer: Record<string, unknown> = {
      status: res.status,
      type: res.headers.get('content-type'),
      // The service's own path, whichever way it was reached.
      ...(location === null ? {} : { location: new URL(location, 'http://service.invalid').pathname.slice(way.prefix.length) }),
    };
    const text = await res.text();
    let body: unknown = text;
    if (how !== 'page' && answer.type?.toString().includes('json')) body = JSON.parse(text);
    if (how === 'value') answer.body = masked(body);
    else if (how === 'shape') answer.body = shape(body);
    else if (how === 'page') answer.page = pageSummary(text);
    entries.push([step, answer]);
    return body;
  };
  return { entries, record };
}

/** Each service's main flow against one runtime's services: its transcript, asserting what the flow needs on the way. */
const FLOWS: Record<Service, (runtime: Runtime) => Promise<Entry[]>> = {
  async stats(runtime) {
    const { way, http: get, entries, record } = start(runtime, 'stats');
    expect(await record('health', await get('/health'), 'value')).toEqual({ status: 'ok' });
    const auth = { authorization: 'Bearer dev-static-token' };
    const meetings = (await record('meetings', await get('/meetings', { headers: auth }), 'value')) as {
      course_id: number;
      date: string;
    }[];
    expect(meetings.length).toBeGreaterThan(0);
    const stats = await get(`/meetingStats?date=${meetings[0]!.date}&courseId=${meetings[0]!.course_id}`, { headers: auth });
    expect(stats.status).toBe(200);
    const body = (await record('meetingStats', stats, 'value')) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'success', meeting: { courseId: meetings[0]!.course_id } });
    expect(Array.isArray(body.trainers) && Array.isArray(body.jockeys)).toBe(true);
    // The user context Durable Object remembered that meeting for this caller.
    expect(await record('user context', await get('/api/user-context', { headers: auth }), 'value')).toEqual({
      date: meetings[0]!.date,
      course_id: meetings[0]!.course_id,
    });
    const refused = await get('/meetingStats?courseId=1', { headers: { authorization: 'Bearer wrong' } });
    expect(refused.status).toBe(401);
    expect(await record('meetingStats, wrong token', refused, 'value')).toEqual({ detail: 'Invalid token' });
    await record('bad date', await get('/meetingStats?date=2024-13-45&courseId=1', { headers: auth }), 'value');
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    await record('home page', page, 'page');
    const docs = (await record('docs', await get('/docs'), 'none')) as string;
    const css = docs.match(/\/assets\/swagger-ui-[^"]+\.css/)?.[0];
    expect(css).toBeDefined();
    const asset = await get(css!);
    expect(asset.status).toBe(200);
    const text = (await record(`asset ${css}`, asset, 'none')) as string;
    expect(text.length).toBeGreaterThan(10_000);
    entries.push(['asset length', { length: text.length }]);
    // The document names the prefix it is served under (as FastAPI's root_path does) and nothing else differs.
    const openapi = await get('/openapi.json');
    expect(openapi.status).toBe(200);
    const { servers, ...document } = (await openapi.json()) as { servers?: { url: string }[] };
    expect(servers).toEqual(way.prefix ? [{ url: way.prefix }] : undefined);
    entries.push(['openapi', { status: openapi.status, type: openapi.headers.get('content-type'), body: shape(document) }]);
    return entries;
  },

  async form(runtime) {
    const { http: form, entries, record } = start(runtime, 'form');
    expect((await form('/form/runner/')).headers.get('location')).toMatch(/\/form\/$/);
    const login = (await record('login page', await form('/form/'), 'page')) as string;
    const wrong = await form('/form/', {
      method: 'POST',
      form: { username: 'admin', password: 'nope', csrf_token: hidden(login, 'csrf_token') },
    });
    expect(wrong.status).toBe(200);
    expect(await record('wrong password', wrong, 'page')).toContain('Invalid username or password.');
    const forged = await form('/form/', {
      method: 'POST',
      form: { username: 'admin', password: 'admin-dev-password', csrf_token: 'forged' },
    });
    await record('forged csrf token', forged, 'page');
    const again = (await (await form('/form/')).text()) as string;
    const ok = await form('/form/', {
      method: 'POST',
      form: { username: 'admin', password: 'admin-dev-password', csrf_token: hidden(again, 'csrf_token') },
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toMatch(/\/form\/runner\/$/);
    await record('login', ok, 'none');
    const runner = await form('/form/runner/');
    expect(runner.status).toBe(302);
    const location = runner.headers.get('location')!;
    await record('runner, no runner named', runner, 'none');
    const page = await form(location);
    expect(page.status).toBe(200);
    expect(await record('runner page', page, 'page')).toMatch(/<title>[^<]+Runner form/);
    const dates = (await record('dates', await form('/form/api/dates/'), 'value')) as { dates: string[] };
    expect(dates.dates).toContain(inject('racingToday'));
    const css = await form('/form/static/form.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    await record('stylesheet', css, 'none');
    return entries;
  },

  async auth(runtime) {
    const { http: auth, entries, record } = start(runtime, 'auth');
    const headers = { 'x-auth-client-secret': 'dev-client-secret' };
    const post = (path: string, json: unknown, h: Record<string, string> = headers) => auth(path, { method: 'POST', json, headers: h });
    await record('login, wrong client secret', await post('/api/login/', DEMO, { 'x-auth-client-secret': 'nope' }), 'value');
    await record('login, wrong password', await post('/api/login/', { ...DEMO, password: 'not-the-password-1' }), 'value');
    const pending = (await record('login', await post('/api/login/', DEMO))) as Record<string, unknown>;
    await record('verify, wrong code', await post('/api/verify-2fa/', { pending_token: pending.pending_token, code: '000000' }), 'value');
    const tokens = (await record(
      'verify',
      await post('/api/verify-2fa/', { pending_token: pending.pending_token, code: codes(`demo@${runtime}`) }),
    )) as Record<string, unknown>;
    const whoami = await record(
      'whoami',
      await auth('/api/whoami/', { headers: { authorization: `Bearer ${String(tokens.access_token)}` } }),
      'value',
    );
    expect(whoami).toEqual({ user_name: DEMO.email, user_permissions: 'ADMIN' });
    await record('whoami, bad token', await auth('/api/whoami/', { headers: { authorization: 'Bearer at.nope' } }), 'value');
    await record('refresh', await post('/api/token/refresh/', { refresh_token: tokens.refresh_token }));
    await record('refresh, replayed token', await post('/api/token/refresh/', { refresh_token: tokens.refresh_token }), 'value');
    await record('docs stylesheet', await auth('/api/docs/swagger-ui.css'), 'none');
    // wrangler's scheduled-event endpoint belongs to the service's own server, not the router.
    const cron = await client(wayOf(viaRouter(runtime) ? 'workerd' : runtime, 'auth'))(
      `/__scheduled?cron=${encodeURIComponent('23 * * * *')}`,
    );
    expect(cron.status).toBe(200);
    expect(entries.map(([step, answer]) => [step, answer.status])).toEqual([
      ['login, wrong client secret', 401],
      ['login, wrong password', 400],
      ['login', 200],
      ['verify, wrong code', 400],
      ['verify', 200],
      ['whoami', 200],
      ['whoami, bad token', 401],
      ['refresh', 200],
      ['refresh, replayed token', 401],
      ['docs stylesheet', 200],
    ]);
    return entries;
  },

  async cms(runtime) {
    const { http: cms, entries, record } = start(runtime, 'cms');
    await record('me, signed out', await cms('/api/v1/auth/me'), 'value');
    const login = await cms('/api/v1/auth/login', { method: 'POST', json: DEMO });
    expect(login.status).toBe(200);
    expect(await record('login', login, 'value')).toMatchObject({ totpRequired: true, expiresIn: 300 });
    await record('verify, wrong code', await cms('/api/v1/auth/totp-verify', { method: 'POST', json: { code: '000000' } }), 'value');
    const verify = await cms('/api/v1/auth/totp-verify', { method: 'POST', json: { code: codes(`demo@${runtime}`) } });
    expect(verify.status).toBe(200);
    await record('verify', verify);
    expect(await record('me', await cms('/api/v1/auth/me'))).toMatchObject({ email: DEMO.email, role: 'ADMIN' });
    const created = await cms('/api/v1/story', {
      method: 'POST',
      json: { title: 'Served by the Deno host', siteIds: [1], content: 'hello' },
    });
    expect(created.status).toBe(201);
    const story = (await record('story created', created)) as { id: number; title: string; siteIds: number[] };
    expect(story).toMatchObject({ title: 'Served by the Deno host', siteIds: [1] });
    await record('story, bad body', await cms('/api/v1/story', { method: 'POST', json: { title: '', siteIds: [] } }), 'value');
    const updated = await cms(`/api/v1/story/${story.id}`, { method: 'PUT', json: { title: 'Changed', siteIds: [1] } });
    expect(await record('story updated', updated)).toMatchObject({ id: story.id, title: 'Changed' });
    const deleted = await cms(`/api/v1/story/${story.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    await record('story deleted', deleted, 'none');
    expect((await cms(`/api/v1/story/${story.id}`)).status).toBe(404);
    const list = (await record('story list', await cms('/api/v1/story?pageSize=2'))) as { items: unknown[]; totalCount: number };
    expect(list.items).toHaveLength(2);
    expect(list.totalCount).toBeGreaterThanOrEqual(300);
    entries.push(['story count', { totalCount: list.totalCount }]);
    await record('story search', await cms('/api/v1/story?search=flemington&pageSize=5'));

    const bytes = new Uint8Array(64).fill(7);
    const upload = (await record(
      'upload URL',
      await cms(`/api/v1/media/upload-url?type=photo&contentType=image/png&size=${bytes.length}`),
    )) as { uploadUrl: string; objectKey: string };
    const put = await cms(upload.uploadUrl, { method: 'PUT', body: bytes, headers: { 'content-type': 'image/png' } });
    expect(put.status).toBe(200);
    expect(await put.clone().json()).toEqual({ objectKey: upload.objectKey, sizeBytes: 64 });
    await record('upload', put);
    // Not a real PNG: refused when the record is made, and nothing stored.
    const bad = await cms('/api/v1/media', { method: 'POST', json: { type: 'photo', objectKey: upload.objectKey, title: 'x' } });
    expect(bad.status).toBe(400);
    await record('media record, not a PNG', bad, 'value');
    await record('health', await cms('/health'), 'value');
    return entries;
  },

  async migrate(runtime) {
    const { http: migrate, entries, record } = start(runtime, 'migrate');
    await record('home, signed out', await migrate('/'), 'none');
    const form = (await record('login page', await migrate('/Account/Login'), 'page')) as string;
    await record(
      'login, forged token',
      await migrate('/Account/Login', { method: 'POST', form: { __RequestVerificationToken: 'forged', ...OPERATOR } }),
      'page',
    );
    const login = await migrate('/Account/Login', {
      method: 'POST',
      form: { __RequestVerificationToken: hidden(form, '__RequestVerificationToken'), ...OPERATOR },
    });
    // A page instead of the redirect says why in its text.
    expect(login.status, login.status === 302 ? '' : (await login.clone().text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')).toBe(302);
    const location = login.headers.get('location')!;
    await record('login', login, 'none');
    const verifyPage = (await record('verify page', await migrate(location), 'page')) as string;
    const verify = await migrate('/Account/Verify', {
      method: 'POST',
      form: {
        __RequestVerificationToken: hidden(verifyPage, '__RequestVerificationToken'),
        pendingToken: hidden(verifyPage, 'pendingToken'),
        email: OPERATOR.email,
        code: codes(`operator@${runtime}`),
      },
    });
    expect(verify.status).toBe(302);
    await record('verify', verify, 'none');
    const home = await migrate('/');
    expect(home.status).toBe(200);
    expect(await record('home', home, 'page')).toContain('data-active-configuration="true"');
    // The seeded sync job is due: the cron tick starts it in its MigrationJob Durable Object, whose
    // alarms copy the legacy source's trainers (already present: every row skipped) and validate.
    const tick = await migrate(`/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
    expect(tick.status).toBe(200);
    let status = { running: 1, errored: 0, enabled: 0, total: 0 };
    for (let i = 0; i < 80 && status.running > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await (await migrate('/api/sync/status')).json()) as typeof status;
    }
    expect(status).toEqual({ running: 0, errored: 0, enabled: 1, total: 1 });
    await record('sync status after the tick', await migrate('/api/sync/status'), 'value');
    const css = await migrate('/static/migrate.css');
    expect(css.status).toBe(200);
    // assets/_headers applies to the static files.
    expect(css.headers.get('cache-control')).toBe('public, max-age=3600');
    await record('stylesheet', css, 'none');
    return entries;
  },

  async mail(runtime) {
    const { http: mail, entries, record } = start(runtime, 'mail');
    await record('mailbox, signed out', await mail('/outlook'), 'none');
    const first = (await record('login page', await mail('/login'), 'page')) as string;
    const step1 = await mail('/login', { method: 'POST', form: { csrf_token: hidden(first, 'csrf_token'), next: '/outlook', ...DEMO } });
    expect(step1.status).toBe(200);
    const second = (await record('password', step1, 'page')) as string;
    const step2 = await mail('/login', {
      method: 'POST',
      form: { csrf_token: hidden(second, 'csrf_token'), next: '/outlook', code: codes(`demo@${runtime}`) },
    });
    expect(step2.status).toBe(302);
    expect(step2.headers.get('location')).toMatch(/\/outlook$/);
    await record('code', step2, 'none');
    const outlook = await mail('/outlook');
    expect(outlook.status).toBe(200);
    await record('mailbox', outlook, 'page');
    const folders = await mail('/api/folders');
    expect(folders.status).toBe(200);
    expect(((await record('folders', folders)) as { folders: unknown[] }).folders.length).toBeGreaterThan(0);
    await record('no such message', await mail('/api/email/nope'), 'value');
    await record('delete without the anti-forgery token', await mail('/api/messages/nope/delete', { method: 'POST' }), 'value');
    return entries;
  },

  async router(runtime) {
    const origin = wayOf(runtime, 'router').origin;
    const entries: Entry[] = [];
    const getWithHost = async (host: string) => {
      const res = await fetchWithHost(new URL('/health', origin), host, { headers: new Headers() });
      return { status: res.status, body: await res.json() };
    };
    const viaRouter = await getWithHost('stats.localhost');
    expect(viaRouter).toEqual({ status: 200, body: { status: 'ok' } });
    entries.push(['stats by host name', masked(viaRouter) as Record<string, unknown>]);
    const unknown = await getWithHost('nope.localhost');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'unknown_host' });
    entries.push(['unknown host name', masked(unknown) as Record<string, unknown>]);
    const byPath = await fetch(new URL('/stats/health', origin));
    expect(byPath.status).toBe(200);
    expect(await byPath.json()).toEqual({ status: 'ok' });
    entries.push(['stats by path prefix', { status: byPath.status }]);
    return entries;
  },
};

for (const runtime of RUNTIMES) {
  describe(runtime, () => {
    it.each(viaRouter(runtime) ? ROUTED : SERVICES)("%s: the service's main flow", { timeout: 90_000 }, async (service) => {
      transcripts[runtime][service] = await FLOWS[service](runtime);
    });
  });
}

describe('Deno host and workerd', () => {
  it.each(SERVICES)('%s: the same status codes, content types, redirects and bodies for the same flow and data', (service) => {
    const host = transcripts['Deno host'][service];
    const local = transcripts.workerd[service];
    expect(host, 'the flow ran on the Deno host').toBeDefined();
    expect(local, 'the flow ran under workerd').toBeDefined();
    expect(host).toEqual(local);
  });
});

describe('the router by host name and by path prefix', () => {
  it.each(
    ROUTED.flatMap((service) =>
      (['workerd router by host', 'workerd router by path'] as const).map((runtime) => [service, runtime] as const),
    ),
  )('%s through the %s: the same answers as on its own port', (service, runtime) => {
    expect(transcripts[runtime][service], 'the flow ran through the router').toBeDefined();
    expect(transcripts[runtime][service]).toEqual(transcripts.workerd[service]);
  });
});
