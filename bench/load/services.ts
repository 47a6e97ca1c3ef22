import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cmsSeedSql, executeCmsSql, generateCmsSeed } from '../../scripts/cms-seed.ts';
import { applyLocalD1Migrations, startLocalWorker } from '../../scripts/local-worker.ts';
import { ROOT } from '../../scripts/workers.ts';
import { randomBytes, sha256Hex, toBase64Url } from '#shared/crypto.ts';
import { AUTH_BENCH_PASSWORD, AUTH_BENCH_SECRETS, enrolBenchAccount } from '../auth.ts';
import { type HeapProbe, openHeapProbe } from './heap.ts';
import { workerdDescendants } from './procs.ts';

// The Workers the load bench drives, each in local workerd on a free loopback port with the
// embedded defaults' kind of configuration, signed in the way each bench section signs in, and the
// workerd process that hosts each (for its memory, and for the faults).

export type ServiceName = 'auth' | 'cms' | 'stats' | 'form';

export interface Started {
  name: ServiceName;
  origin: string;
  /**
   * Its workerd processes: wrangler runs each Worker behind a proxy Worker of its own, in a second
   * workerd, so a request crosses two (both are counted).
   */
  pids: number[];
  /**
   * A devtools session on the Worker's isolate when it was started with an inspector (the soak reads
   * its heap through it), or why none could be opened. It is opened at once: wrangler's inspector
   * relay keeps every message of the Worker's runtime (each console line, each subrequest's network
   * events) in its proxy's workerd until a devtools client takes them.
   */
  heap?: HeapProbe | Error;
  dispose(): Promise<void>;
}

type Worker = Awaited<ReturnType<typeof startLocalWorker>>;

/** Starts a Worker and names the workerd process that appeared with it. */
async function hosted(name: ServiceName, start: () => Promise<Worker>, cleanup?: () => void): Promise<Started> {
  const before = new Set(workerdDescendants());
  const worker = await start();
  const pids = await newWorkerds(worker, before);
  const heap = await heapProbeOf(worker);
  return {
    name,
    origin: (await worker.url).origin,
    pids,
    ...(heap ? { heap } : {}),
    dispose: async () => {
      if (!(heap instanceof Error)) heap?.close();
      await worker.dispose();
      cleanup?.();
    },
  };
}

/**
 * The workerd processes that appeared with a Worker. wrangler reports it ready once its proxy is, and
 * may still be starting the Worker's own workerd: one request first, so that both are there.
 */
export async function newWorkerds(worker: Worker, before: Set<number>): Promise<number[]> {
  await fetch(await worker.url)
    .then((res) => res.body?.cancel())
    .catch(() => {});
  return workerdDescendants().filter((p) => !before.has(p));
}

/** A devtools session on the Worker when it has an inspector, the reason when none opens, else undefined. */
async function heapProbeOf(worker: Worker): Promise<HeapProbe | Error | undefined> {
  const url = await worker.inspectorUrl;
  if (!url) return undefined;
  return openHeapProbe(url).catch((err: Error) => err);
}

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0] ?? '');

export const STATS_TOKEN = 'load-bench-static-token-0123456789';

export async function startStats(url: string, relay: string, inspector = false): Promise<Started> {
  return hosted('stats', () =>
    startLocalWorker({
      config: join(ROOT, 'workers/stats/wrangler.toml'),
      vars: {
        DATABASE_URL: url,
        PG_WS_PROXY: relay,
        STATIC_API_TOKEN: STATS_TOKEN,
        ADMIN_USERNAME: 'bench',
        ADMIN_PASSWORD: 'bench-password',
      },
      logLevel: 'error',
      inspector,
    }),
  );
}

/** The form Worker and a signed-in session cookie. */
export async function startForm(url: string, relay: string, inspector = false): Promise<Started & { cookie: string }> {
  const started = await hosted('form', () =>
    startLocalWorker({
      config: join(ROOT, 'workers/form/wrangler.toml'),
      vars: {
        DATABASE_URL: url,
        PG_WS_PROXY: relay,
        ADMIN_USERNAME: 'bench',
        ADMIN_PASSWORD: 'bench-password',
        SESSION_SECRET: 'bench-only-session-secret-0123456789abcdef',
      },
      logLevel: 'error',
      inspector,
    }),
  );
  const loginPage = await fetch(`${started.origin}/form/`);
  const token = /name="csrf_token" value="([^"]+)"/.exec(await loginPage.text())?.[1];
  const login = await fetch(`${started.origin}/form/`, {
    method: 'POST',
    headers: { cookie: cookiesOf(loginPage).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: token ?? '', username: 'bench', password: 'bench-password' }).toString(),
    redirect: 'manual',
  });
  const cookie = cookiesOf(login)
    .filter((c) => c.startsWith('form_session='))
    .join('; ');
  if (!cookie) throw new Error(`form sign-in failed: ${login.status}`);
  return { ...started, cookie };
}

const CMS_SECRETS = { AUTH_CLIENT_SECRET: 'bench-client-secret', SESSION_SECRET: 'bench-session-secret-0123456789abcdef0123' };

/**
 * The CMS with its demo stories in local D1 and a stored editor session confirmed "in the future"
 * (as bench/cms-stories.ts does): the load never reaches the authentication service.
 */
export async function startCms(url: string, relay: string, stories: number, inspector = false): Promise<Started & { cookie: string }> {
  const persistTo = mkdtempSync(join(tmpdir(), 'load-cms-'));
  const config = join(ROOT, 'workers/cms/wrangler.toml');
  applyLocalD1Migrations(config, 'DB', persistTo);
  // A session row as a sign-in stores it (the cookie's id, its SHA-256 the key); its refresh token
  // is never opened: the row counts as confirmed for a week, so no recheck falls due.
  const id = toBase64Url(randomBytes(32));
  const now = Date.now();
  const session = `insert into sessions (id_hash, user_id, email, first_name, last_name, role, refresh_token_sealed, checked_at, expires_at)
    values ('${await sha256Hex(id)}', 1, 'bench@example.com', 'Bench', 'Editor', 'ADMIN', 'v1.none.none', ${now + 7 * 86_400_000}, ${now + 86_400_000})`;
  executeCmsSql([...cmsSeedSql(generateCmsSeed({ stories, seed: 7, paragraphs: 1 })), session, 'analyze'], persistTo);
  const started = await hosted(
    'cms',
    () =>
      startLocalWorker({
        config,
        entrypoint: join(ROOT, 'bench/worker/cms.ts'),
        vars: { ...CMS_SECRETS, DATABASE_URL: url, PG_WS_PROXY: relay },
        fetchers: { AUTH: () => new Response('no authentication service in the load bench', { status: 503 }) },
        persistTo,
        logLevel: 'error',
        inspector,
      }),
    () => rmSync(persistTo, { recursive: true, force: true }),
  );
  return { ...started, cookie: `app_session=${id}` };
}

const AUTH_SECRETS = { ...AUTH_BENCH_SECRETS, AUTH_IP_LIMIT_PER_MINUTE: '100000' };

/**
 * The authentication Worker with enough enrolled accounts for `families` sign-ins (each uses a
 * backup code), an access token, and `signIn()` for a new refresh token family: a refresh token is
 * single-use and a reused one revokes its family, so each load connection keeps a family of its
 * own, new for each step (a refresh still in flight when a step ends would otherwise be replayed).
 */
export async function startAuth(families: number) {
  const persistTo = mkdtempSync(join(tmpdir(), 'load-auth-'));
  const config = join(ROOT, 'workers/auth/wrangler.toml');
  applyLocalD1Migrations(config, 'DB', persistTo);
  const accounts = Math.max(1, Math.ceil(families / 8));
  const codes: { email: string; code: string }[] = [];
  for (let i = 0; i < accounts; i++) {
    const email = `load${i}@example.com`;
    const enrolment = await enrolBenchAccount(persistTo, { email, firstName: 'Load', lastName: `Account ${i}` });
    for (const code of enrolment.backupCodes.slice(0, 8)) codes.push({ email, code });
  }
  const started = await hosted(
    'auth',
    () => startLocalWorker({ config, vars: AUTH_SECRETS, persistTo, logLevel: 'error' }),
    () => rmSync(persistTo, { recursive: true, force: true }),
  );
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`${started.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-client-secret': AUTH_SECRETS.AUTH_SSO_SHARED_SECRET },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const signIn = async () => {
    const next = codes.shift();
    if (!next) throw new Error('the load bench ran out of enrolled backup codes');
    const pending = await api('/api/login/', { email: next.email, password: AUTH_BENCH_PASSWORD, site: '' });
    const tokens = await api('/api/verify-2fa/', { pending_token: pending.pending_token, code: next.code });
    return { access: String(tokens.access_token), refresh: String(tokens.refresh_token) };
  };
  const first = await signIn();
  return { ...started, access: first.access, secret: AUTH_SECRETS.AUTH_SSO_SHARED_SECRET, signIn };
}

/** The heaviest runner page (the horse with most starts) and a 10-race meeting of the last 60 days. */
export async function pickTargets(url: string, today: string) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const horse = await client.query<{ id: number }>(
      'select horse_id as id from runners where not scratched group by 1 order by count(*) desc, 1 limit 1',
    );
    const meeting = await client.query<{ date: string; course_id: number }>(
      `select m.date::text as date, m.course_id from meetings m join races ra on ra.meeting_id = m.id
        where m.date < $1::date and m.date >= $1::date - 60 and not m.is_trial
        group by m.id having count(*) >= 8 order by m.date desc, count(*) desc limit 1`,
      [today],
    );
    const horses = await client.query<{ id: number }>(
      'select horse_id as id from runners where not scratched group by 1 having count(*) >= 5 order by 1 limit 2000',
    );
    if (!horse.rows[0] || !meeting.rows[0]) throw new Error('no runner or meeting in the data');
    return { horse: horse.rows[0].id, meeting: meeting.rows[0], horses: horses.rows.map((r) => r.id) };
  } finally {
    await client.end();
  }
}
