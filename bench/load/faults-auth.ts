import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeSql } from '../../scripts/auth-admin.ts';
import { cmsSeedSql, executeCmsSql, generateCmsSeed } from '../../scripts/cms-seed.ts';
import { applyLocalD1Migrations, startLocalWorker } from '../../scripts/local-worker.ts';
import { ROOT } from '../../scripts/workers.ts';
import { accountSql } from '../../workers/auth/src/account-sql.ts';
import { drive } from './drive.ts';
import type { LoadOptions } from './index.ts';

const CONNECTIONS = 50;
const BEFORE_S = 4;
const AFTER_S = 14;
/** The CMS rechecks a session this often (its smallest setting); it keeps one for 3 periods without the auth service. */
const RECHECK_S = 10;
const SECRET = 'load-bench-client-secret';
const TOTP_KEY = 'YmVuY2gtdG90cC1rZXktMzItYnl0ZXMtbG9uZy0tLS0=';
const PASSWORD = 'load bench password';

/**
 * The authentication service stopped under load: the CMS story list, read by 50 connections with a
 * session signed in through the real auth Worker (by service binding), keeps answering inside the
 * session's grace period, while new sign-ins, tried twice a second, get a clear 502/503.
 */
export async function authOutage(url: string, relay: string, options: LoadOptions) {
  const root = mkdtempSync(join(tmpdir(), 'load-auth-outage-'));
  const registry = join(root, 'registry');
  const authConfig = join(ROOT, 'workers/auth/wrangler.toml');
  const cmsConfig = join(ROOT, 'workers/cms/wrangler.toml');
  applyLocalD1Migrations(authConfig, 'DB', join(root, 'auth'));
  applyLocalD1Migrations(cmsConfig, 'DB', join(root, 'cms'));
  executeCmsSql([...cmsSeedSql(generateCmsSeed({ stories: 2_000, seed: 7, paragraphs: 1 })), 'analyze'], join(root, 'cms'));
  const { statements, enrolment } = await accountSql({
    email: 'editor@example.com',
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
    config: authConfig,
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
  const cms = await startLocalWorker({
    config: cmsConfig,
    entrypoint: join(ROOT, 'bench/worker/cms.ts'),
    vars: {
      AUTH_CLIENT_SECRET: SECRET,
      SESSION_SECRET: 'load-bench-session-secret-0123456789abcdef',
      SESSION_RECHECK_SECONDS: String(RECHECK_S),
      DATABASE_URL: url,
      PG_WS_PROXY: relay,
    },
    persistTo: join(root, 'cms'),
    registry,
    logLevel: 'error',
  });
  try {
    const origin = (await cms.url).origin;
    const codes = [...enrolment.backupCodes];
    const signIn = async (): Promise<{ status: number; cookie?: string }> => {
      const post = (path: string, body: unknown) =>
        fetch(`${origin}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutS * 1000),
        });
      const login = await post('/api/v1/auth/login', { email: 'editor@example.com', password: PASSWORD });
      if (login.status !== 200) return { status: login.status };
      const { loginToken } = (await login.json()) as { loginToken: string };
      const verify = await post('/api/v1/auth/totp-verify', { code: codes.shift(), loginToken });
      const cookie = verify.headers
        .getSetCookie()
        .map((c) => c.split(';')[0] ?? '')
        .find((c) => c.startsWith('app_session='));
      return { status: verify.status, cookie };
    };
    const session = await signIn();
    if (!session.cookie) throw new Error(`CMS sign-in through the auth Worker failed: ${session.status}`);

    console.log(
      `\nFault: the authentication service stopped after ${BEFORE_S} s under ${CONNECTIONS} connections to the CMS story list (session recheck every ${RECHECK_S} s)`,
    );
    const t0 = performance.now();
    const signIns: { atMs: number; status: number; ms: number }[] = [];
    let stopAt = 0;
    const fault = (async () => {
      await sleep(BEFORE_S * 1000);
      stopAt = performance.now() - t0;
      await auth.dispose();
      authRunning = false;
      // New sign-ins while it is down.
      while (performance.now() - t0 < (BEFORE_S + AFTER_S - 1) * 1000) {
        const started = performance.now();
        const outcome = await signIn().catch(() => ({ status: 0 }));
        signIns.push({ atMs: started - t0, status: outcome.status, ms: performance.now() - started });
        await sleep(500);
      }
    })();
    const { samples, figures } = await drive(
      { service: 'cms', route: 'GET /api/v1/story', origin, path: '/api/v1/story', headers: { cookie: session.cookie } },
      CONNECTIONS,
      BEFORE_S + AFTER_S,
      { timeoutS: options.timeoutS },
    );
    await fault;
    const during = samples.filter((s) => s.atMs > stopAt);
    const statuses = (list: { status: number }[]) => {
      const counts: Record<string, number> = {};
      for (const s of list) counts[s.status || 'error'] = (counts[s.status || 'error'] ?? 0) + 1;
      return counts;
    };
    const result = {
      storyListWhileAuthDown: statuses(during),
      storyListErrors: figures.errors,
      signInsWhileAuthDown: statuses(signIns),
      slowestSignInMs: Math.round(Math.max(0, ...signIns.map((s) => s.ms))),
    };
    const show = (counts: Record<string, number>) =>
      Object.entries(counts)
        .map(([s, n]) => `${n}× ${s}`)
        .join(', ');
    console.log(
      `  CMS story list with a session while auth was down: ${show(result.storyListWhileAuthDown)} (errors/timeouts ${result.storyListErrors});` +
        ` new sign-ins: ${show(result.signInsWhileAuthDown)} (slowest ${result.slowestSignInMs} ms)`,
    );
    return result;
  } finally {
    await cms.dispose().catch(() => {});
    if (authRunning) await auth.dispose().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
