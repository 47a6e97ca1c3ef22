import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeSql } from '../../scripts/auth-admin.ts';
import { cmsSeedSql, executeCmsSql, generateCmsSeed } from '../../scripts/cms-seed.ts';
import { applyLocalD1Migrations, startLocalWorker } from '../../scripts/local-worker.ts';
import { ROOT } from '../../scripts/workers.ts';
import { accountSql } from '../../workers/auth/src/account-sql.ts';
import { type SignIn, signInCms, signInMail, signInMigrate } from './auth-clients.ts';
import { drive, type Scenario } from './drive.ts';
import type { LoadOptions } from './index.ts';

/** Connections of each service's signed-in readers while the authentication service is down. */
const CONNECTIONS = { cms: 50, migrate: 20, mail: 20 } as const;
const BEFORE_S = 4;
const AFTER_S = 14;
/**
 * The CMS and the mail assistant recheck a session this often (their smallest useful setting);
 * each keeps one for 3 periods without the auth service. The migration app asks the auth service
 * only when its session's access token nears expiry (minutes away here).
 */
const RECHECK_S = 10;
const SECRET = 'load-bench-client-secret';
const TOTP_KEY = 'YmVuY2gtdG90cC1rZXktMzItYnl0ZXMtbG9uZy0tLS0=';
const PASSWORD = 'load bench password';
const EMAIL = 'editor@example.com';

type ServiceName = keyof typeof CONNECTIONS;

/**
 * The authentication service stopped under load: the CMS story list, the migration app's session
 * list and the mail assistant's connect page, each read by many connections with a session signed
 * in through the real auth Worker (by service binding), keep answering inside the session's grace
 * period, while new sign-ins to each, tried twice a second, get a clear 502/503.
 */
export async function authOutage(url: string, relay: string, options: LoadOptions) {
  const root = mkdtempSync(join(tmpdir(), 'load-auth-outage-'));
  const registry = join(root, 'registry');
  const config = (service: string) => join(ROOT, `workers/${service}/wrangler.toml`);
  for (const service of ['auth', 'cms', 'migrate', 'mail']) applyLocalD1Migrations(config(service), 'DB', join(root, service));
  executeCmsSql([...cmsSeedSql(generateCmsSeed({ stories: 2_000, seed: 7, paragraphs: 1 })), 'analyze'], join(root, 'cms'));
  const { statements, enrolment } = await accountSql({
    email: EMAIL,
    firstName: 'Load',
    lastName: 'Editor',
    role: 'admin',
    password: PASSWORD,
    totpEncryptionKey: TOTP_KEY,
    issuer: 'bench',
    mode: 'replace',
  });
  executeSql(statements, { remote: false, persistTo: join(root, 'auth') });
  const auth = await startLocalWorker({
    config: config('auth'),
    vars: {
      AUTH_SSO_SHARED_SECRET: SECRET,
      AUTH_TOKEN_SECRET: 'load-bench-token-secret-0123456789abcdef0123',
      AUTH_TOTP_ENCRYPTION_KEY: TOTP_KEY,
    },
    persistTo: join(root, 'auth'),
    registry,
    logLevel: 'error',
  });
  let authRunning = true;
  const common = { registry, logLevel: 'error' as const };
  const workers: { name: ServiceName; worker: Awaited<ReturnType<typeof startLocalWorker>> }[] = [];
  try {
    workers.push({
      name: 'cms',
      worker: await startLocalWorker({
        ...common,
        config: config('cms'),
        entrypoint: join(ROOT, 'bench/worker/cms.ts'),
        persistTo: join(root, 'cms'),
        vars: {
          AUTH_CLIENT_SECRET: SECRET,
          SESSION_SECRET: 'load-bench-session-secret-0123456789abcdef',
          SESSION_RECHECK_SECONDS: String(RECHECK_S),
          DATABASE_URL: url,
          PG_WS_PROXY: relay,
        },
      }),
    });
    workers.push({
      name: 'migrate',
      worker: await startLocalWorker({
        ...common,
        config: config('migrate'),
        persistTo: join(root, 'migrate'),
        vars: {
          AUTH_CLIENT_SECRET: SECRET,
          SESSION_SECRET: 'load-bench-migrate-session-secret-0123456789',
          CONFIG_ENCRYPTION_KEY: 'load-bench-config-encryption-key-0123456789',
          DATABASE_URL: url,
          PG_WS_PROXY: relay,
        },
      }),
    });
    workers.push({
      name: 'mail',
      worker: await startLocalWorker({
        ...common,
        config: config('mail'),
        persistTo: join(root, 'mail'),
        vars: {
          AUTH_CLIENT_SECRET: SECRET,
          SESSION_SECRET: 'load-bench-mail-session-secret-0123456789abc',
          MAIL_TOKEN_SECRET: 'load-bench-mail-token-secret-0123456789abcd',
          SESSION_RECHECK_SECONDS: String(RECHECK_S),
          // No mailbox is read here (the connect page of a signed-in user): Graph is never called.
          GRAPH_BASE_URL: 'http://127.0.0.1:9/v1.0',
          IDENTITY_BASE_URL: 'http://127.0.0.1:9',
          MS_CLIENT_ID: 'load-bench-mail-client',
        },
      }),
    });
    const origins = Object.fromEntries(
      await Promise.all(workers.map(async ({ name, worker }) => [name, (await worker.url).origin.replace(/\/$/, '')])),
    ) as Record<ServiceName, string>;
    const codes = [...enrolment.backupCodes];
    const account = { email: EMAIL, password: PASSWORD, code: () => codes.shift() };
    const timeoutMs = options.timeoutS * 1000;
    const signIn: Record<ServiceName, (ms?: number) => Promise<SignIn>> = {
      cms: (ms = timeoutMs) => signInCms(origins.cms, account, ms),
      migrate: (ms = timeoutMs) => signInMigrate(origins.migrate, account, ms),
      mail: (ms = timeoutMs) => signInMail(origins.mail, account, ms),
    };
    const routes: Record<ServiceName, { route: string; path: string }> = {
      cms: { route: 'GET /api/v1/story', path: '/api/v1/story' },
      migrate: { route: 'GET /Session', path: '/Session' },
      mail: { route: 'GET /connect', path: '/connect' },
    };
    const scenarios: Scenario[] = [];
    for (const name of Object.keys(CONNECTIONS) as ServiceName[]) {
      // the first sign-ins hash the password on a loaded machine: a longer limit than the run's
      const session = await signIn[name](60_000).catch((err: unknown) => {
        throw new Error(`${name} sign-in through the auth Worker: ${err instanceof Error ? err.message : String(err)}`);
      });
      if (!session.cookie) throw new Error(`${name} sign-in through the auth Worker failed: ${session.status}`);
      const { route, path } = routes[name];
      const check = await fetch(`${origins[name]}${path}`, { headers: { cookie: session.cookie }, redirect: 'manual' });
      if (check.status !== 200) throw new Error(`${name} ${path} with a session: ${check.status}`);
      scenarios.push({ service: name, route, origin: origins[name], path, headers: { cookie: session.cookie } });
    }

    console.log(
      `\nFault: the authentication service stopped after ${BEFORE_S} s under ${CONNECTIONS.cms} connections to the CMS story list, ` +
        `${CONNECTIONS.migrate} to the migration app's session list and ${CONNECTIONS.mail} to the mail assistant's connect page ` +
        `(CMS and mail sessions rechecked every ${RECHECK_S} s)`,
    );
    const t0 = performance.now();
    const signIns: Record<ServiceName, { atMs: number; status: number; ms: number }[]> = { cms: [], migrate: [], mail: [] };
    let stopAt = 0;
    const fault = (async () => {
      await sleep(BEFORE_S * 1000);
      stopAt = performance.now() - t0;
      await auth.dispose();
      authRunning = false;
      // New sign-ins to each service while it is down.
      while (performance.now() - t0 < (BEFORE_S + AFTER_S - 1) * 1000) {
        for (const name of Object.keys(signIns) as ServiceName[]) {
          const started = performance.now();
          const outcome = await signIn[name]().catch(() => ({ status: 0 }));
          signIns[name].push({ atMs: started - t0, status: outcome.status, ms: performance.now() - started });
        }
        await sleep(500);
      }
    })();
    const runs = await Promise.all(
      scenarios.map((scenario) =>
        drive(scenario, CONNECTIONS[scenario.service as ServiceName], BEFORE_S + AFTER_S, { timeoutS: options.timeoutS }),
      ),
    );
    await fault;
    const statuses = (list: { status: number }[]) => {
      const counts: Record<string, number> = {};
      for (const s of list) counts[s.status || 'error'] = (counts[s.status || 'error'] ?? 0) + 1;
      return counts;
    };
    const show = (counts: Record<string, number>) =>
      Object.entries(counts)
        .map(([s, n]) => `${n}× ${s}`)
        .join(', ');
    const result: Record<string, unknown> = {};
    for (const [i, scenario] of scenarios.entries()) {
      const name = scenario.service as ServiceName;
      const { samples, figures } = runs[i]!;
      const during = samples.filter((s) => s.atMs > stopAt);
      const figure = {
        route: scenario.route,
        connections: CONNECTIONS[name],
        whileAuthDown: statuses(during),
        slowestWhileDownMs: Math.round(Math.max(0, ...during.filter((s) => s.status > 0).map((s) => s.ms))),
        errors: figures.errors,
        signInsWhileAuthDown: statuses(signIns[name]),
        slowestSignInMs: Math.round(Math.max(0, ...signIns[name].map((s) => s.ms))),
      };
      result[name] = figure;
      console.log(
        `  ${name} ${scenario.route} with a session while auth was down: ${show(figure.whileAuthDown)} (errors/timeouts ${figure.errors},` +
          ` slowest ${figure.slowestWhileDownMs} ms); new sign-ins: ${show(figure.signInsWhileAuthDown)} (slowest ${figure.slowestSignInMs} ms)`,
      );
    }
    return result;
  } finally {
    for (const { worker } of workers) await worker.dispose().catch(() => {});
    if (authRunning) await auth.dispose().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
