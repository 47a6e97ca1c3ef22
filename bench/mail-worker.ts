import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GraphStandin, startGraphStandin } from '../scripts/graph-standin/server.ts';
import { applyLocalD1Migrations, startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT, executeD1 } from '../scripts/workers.ts';
import { randomBytes, sha256Hex, toBase64Url } from '#shared/crypto.ts';

const CONFIG = 'workers/mail/wrangler.toml';
export const BENCH_MAIL_CLIENT_ID = 'bench-mail-client';
export const BENCH_MAIL_OWNER = 'bench@racing.test';

export interface BenchMail {
  /** The mail Worker's origin, without a trailing slash. */
  base: string;
  /** The signed-in owner's session cookie. */
  cookie: string;
  standin: GraphStandin;
}

/**
 * The mail Worker in local workerd beside a fresh Graph stand-in, with a session stored the way a
 * sign-in stores it (so no request calls the authentication service, and the stored session is
 * not rechecked during the run). The first token-gated request connects the stand-in's mailbox.
 */
export async function withBenchMail<T>(vars: Record<string, string>, body: (mail: BenchMail) => Promise<T>): Promise<T> {
  const standin = await startGraphStandin({ port: 0 });
  const state = mkdtempSync(join(tmpdir(), 'bench-mail-'));
  try {
    applyLocalD1Migrations(CONFIG, 'DB', state);
    const id = toBase64Url(randomBytes(32));
    const idHash = await sha256Hex(id);
    const now = Date.now();
    executeD1(
      CONFIG,
      'DB',
      [
        `insert into sessions (id_hash, user_id, email, name, refresh_token_sealed, created_at, expires_at, checked_at) values ('${idHash}', 1, '${BENCH_MAIL_OWNER}', 'Bench', 'v1.none.none', ${now}, ${now + 86_400_000}, ${now})`,
      ],
      { persistTo: state },
    );
    const worker = await startLocalWorker({
      config: join(ROOT, CONFIG),
      persistTo: state,
      // An empty dev registry: the AUTH binding resolves (no request here needs it).
      registry: join(state, 'registry'),
      logLevel: 'error',
      vars: {
        GRAPH_BASE_URL: standin.graphBaseUrl,
        IDENTITY_BASE_URL: standin.identityBaseUrl,
        MS_CLIENT_ID: BENCH_MAIL_CLIENT_ID,
        AUTH_CLIENT_SECRET: 'bench-unused-auth-client-secret',
        SESSION_SECRET: 'bench-mail-session-secret-0123456789abcdef',
        MAIL_TOKEN_SECRET: 'bench-mail-token-secret-0123456789abcdef',
        MAIL_DEV_AUTO_CONNECT: 'true',
        SESSION_RECHECK_SECONDS: '86400',
        ...vars,
      },
    });
    try {
      const base = (await worker.url).toString().replace(/\/$/, '');
      return await body({ base, cookie: `mail_session=${id}`, standin });
    } finally {
      await worker.dispose();
    }
  } finally {
    await standin.close();
    rmSync(state, { recursive: true, force: true });
  }
}
