import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { executeSql } from '../scripts/auth-admin.ts';
import { applyLocalD1Migrations, startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import { accountSql } from '../workers/auth/src/account-sql.ts';
import { hashPassword } from '../workers/auth/src/passwords.ts';
import type { BenchContext } from './context.ts';
import { median, ms, percentile, sample } from './stats.ts';

/** The authentication Worker's secrets in the benches (each bench sets its own per-IP budget). */
export const AUTH_BENCH_SECRETS = {
  AUTH_SSO_SHARED_SECRET: 'bench-client-secret',
  AUTH_TOKEN_SECRET: 'bench-token-secret-0123456789abcdef0123456789',
  AUTH_TOTP_ENCRYPTION_KEY: 'YmVuY2gtdG90cC1rZXktMzItYnl0ZXMtbG9uZy0tLS0=',
};
// One client address sends every login here; the per-IP budget is not what is measured.
const SECRETS = { ...AUTH_BENCH_SECRETS, AUTH_IP_LIMIT_PER_MINUTE: '1000' };
/** The password of every account the benches enrol. */
export const AUTH_BENCH_PASSWORD = 'bench password';

/** Enrols an administrator with the benches' password in the local auth D1 at `persistTo`: its TOTP enrolment. */
export async function enrolBenchAccount(persistTo: string, name: { email: string; firstName: string; lastName: string }) {
  const { statements, enrolment } = await accountSql({
    ...name,
    role: 'admin',
    password: AUTH_BENCH_PASSWORD,
    totpEncryptionKey: AUTH_BENCH_SECRETS.AUTH_TOTP_ENCRYPTION_KEY,
    issuer: 'bench',
    mode: 'replace',
  });
  executeSql(statements, { remote: false, persistTo });
  return enrolment;
}

function djangoHash(iterations: number): string {
  const hash = pbkdf2(sha256, new TextEncoder().encode(AUTH_BENCH_PASSWORD), new TextEncoder().encode('benchsalt'), {
    c: iterations,
    dkLen: 32,
  });
  return `pbkdf2_sha256$${iterations}$benchsalt$${Buffer.from(hash).toString('base64')}`;
}

/** whoami inside the isolate and over HTTP, one password verify, refreshes per second. */
export async function benchAuth({ runs }: BenchContext) {
  const persistTo = mkdtempSync(join(tmpdir(), 'auth-bench-'));
  const config = join(ROOT, 'workers/auth/wrangler.toml');
  applyLocalD1Migrations(config, 'DB', persistTo);
  const enrolment = await enrolBenchAccount(persistTo, { email: 'bench@example.com', firstName: 'Bench', lastName: 'Account' });

  const worker = await startLocalWorker({
    config,
    entrypoint: join(ROOT, 'bench/worker/auth.ts'),
    vars: SECRETS,
    persistTo,
    logLevel: 'error',
  });
  const call = async (path: string, init?: RequestInit) => {
    const res = await worker.fetch(`http://auth${path}`, init as never);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const api = (path: string, body: unknown) =>
    call(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-client-secret': SECRETS.AUTH_SSO_SHARED_SECRET },
      body: JSON.stringify(body),
    });

  try {
    console.log(`\nAuthentication service (${runs} runs per figure where it applies)`);
    const inside = (await call(`/bench/whoami?batches=${runs}&calls=50`)) as { means: number[]; tickMs: number };
    const login = await api('/api/login/', { email: 'bench@example.com', password: AUTH_BENCH_PASSWORD, site: '' });
    const first = await api('/api/verify-2fa/', { pending_token: login.pending_token, code: enrolment.backupCodes[0] });
    const access = String(first.access_token);
    const overHttp = await sample(runs, () => call('/api/whoami/', { headers: { authorization: `Bearer ${access}` } }));
    console.log(
      `  whoami inside the isolate          p50 ${ms(median(inside.means))}  p95 ${ms(percentile(inside.means, 95))}  (per-call mean of ${runs} batches × 50; no database)`,
    );
    console.log(`  whoami over local HTTP             p50 ${ms(median(overHttp))}  p95 ${ms(percentile(overHttp, 95))}`);

    const scrypt = ((await call('/bench/password?runs=5')) as { times: number[] }).times;
    const cpuStart = process.cpuUsage();
    hashPassword(AUTH_BENCH_PASSWORD);
    const nodeCpu = process.cpuUsage(cpuStart);
    console.log(
      `  password verify, scrypt N=2^14 r=8 p=5   median ${ms(median(scrypt))} in the isolate (CPU-bound; Node: ${((nodeCpu.user + nodeCpu.system) / 1000).toFixed(0)} ms CPU)`,
    );
    for (const iterations of [600_000, 1_000_000]) {
      const django = ((await call(`/bench/password?runs=3&hash=${encodeURIComponent(djangoHash(iterations))}`)) as { times: number[] })
        .times;
      console.log(
        `  password verify, Django pbkdf2_sha256 ${iterations.toLocaleString('en')}   median ${ms(median(django))} (imported accounts, once: re-hashed on login)`,
      );
    }

    let refreshToken = String(first.refresh_token);
    const chain = Math.min(runs, 200);
    const chainStarted = performance.now();
    for (let i = 0; i < chain; i++)
      refreshToken = String((await api('/api/token/refresh/', { refresh_token: refreshToken })).refresh_token);
    const sequential = chain / ((performance.now() - chainStarted) / 1000);

    const families = await Promise.all(
      enrolment.backupCodes.slice(1, 9).map(async (code) => {
        const pending = await api('/api/login/', { email: 'bench@example.com', password: AUTH_BENCH_PASSWORD, site: '' });
        return String((await api('/api/verify-2fa/', { pending_token: pending.pending_token, code })).refresh_token);
      }),
    );
    const perFamily = Math.max(1, Math.floor(chain / families.length));
    const parallelStarted = performance.now();
    await Promise.all(
      families.map(async (token) => {
        let current = token;
        for (let i = 0; i < perFamily; i++) current = String((await api('/api/token/refresh/', { refresh_token: current })).refresh_token);
      }),
    );
    const parallel = (perFamily * families.length) / ((performance.now() - parallelStarted) / 1000);
    console.log(
      `  refreshes per second               ${sequential.toFixed(0)}/s one client in sequence (${chain}), ${parallel.toFixed(0)}/s with ${families.length} families at once (local D1)`,
    );
  } finally {
    await worker.dispose();
    rmSync(persistTo, { recursive: true, force: true });
  }
}
