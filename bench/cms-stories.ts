import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cmsSeedSql, executeCmsSql, generateCmsSeed } from '../scripts/cms-seed.ts';
import { applyLocalD1Migrations, startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import type { BenchContext } from './context.ts';
import { keepAliveClient } from './http.ts';
import { median, ms, percentile, sample } from './stats.ts';
import { PgDialect } from 'drizzle-orm/pg-core';
import { horseSearchSql, trainerSearchSql } from '../workers/cms/src/racing-lookups.ts';
import { inlined, psqlTimings } from './psql.ts';

const STORIES = Number(process.env.BENCH_CMS_STORIES ?? 100_000);
const ANCHOR = '2026-06-30';
const SECRETS = { AUTH_CLIENT_SECRET: 'bench-client-secret', SESSION_SECRET: 'bench-session-secret-0123456789abcdef0123' };

/**
 * A signed-in editor without the authentication service: the session a sign-in would store
 * (src/session.ts `newSession`), confirmed "in the future", so no request of the bench triggers
 * a recheck at the authentication service.
 */
async function sessionSql(): Promise<{ cookie: string; sql: string }> {
  const { newSession } = (await import(SESSION_MODULE)) as SessionModule;
  const user = { id: 1, email: 'bench@example.com', firstName: 'Bench', lastName: 'Editor', role: 'ADMIN' };
  const { id, row } = await newSession(SECRETS.SESSION_SECRET, user, 'bench-refresh-token-never-used');
  return {
    cookie: `app_session=${id}`,
    sql: `insert into sessions (id_hash, user_id, email, first_name, last_name, role, refresh_token_sealed, checked_at, expires_at)
          values ('${row.idHash}', ${row.userId}, '${row.email}', '${row.firstName}', '${row.lastName}', '${row.role}', '${row.refreshTokenSealed}',
                  ${row.checkedAt + 7 * 86_400_000}, ${row.expiresAt})`,
  };
}

type SessionRow = {
  idHash: string;
  userId: number;
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  refreshTokenSealed: string;
  checkedAt: number;
  expiresAt: number;
};
type SessionModule = {
  newSession(
    secret: string,
    user: { id: number; email: string; firstName: string; lastName: string; role: string },
    refreshToken: string,
  ): Promise<{ id: string; row: SessionRow }>;
};
// The Worker's own session code, loaded by path: its Workers types are not part of this Node program.
const SESSION_MODULE = '../workers/cms/src/session.ts';

const daysBefore = (days: number) => new Date(Date.parse(`${ANCHOR}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/**
 * Story list latency (p50/p95) over 100,000 generated stories in local D1, and the racing lookups
 * over the bench Postgres, through the whole Worker.
 */
export async function benchCmsStories({ url, relay, runs, today }: BenchContext) {
  const persistTo = mkdtempSync(join(tmpdir(), 'cms-bench-'));
  const config = join(ROOT, 'workers/cms/wrangler.toml');
  try {
    console.log(`\nContent management API: story list over ${STORIES.toLocaleString('en')} stories in local D1 (${runs} runs per figure)`);
    let started = performance.now();
    applyLocalD1Migrations(config, 'DB', persistTo);
    const data = generateCmsSeed({ stories: STORIES, seed: 7, anchor: ANCHOR, paragraphs: 1 });
    const session = await sessionSql();
    executeCmsSql([...cmsSeedSql(data), session.sql, 'analyze'], persistTo);
    console.log(
      `  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s (migrations, ${STORIES.toLocaleString('en')} stories and their mappings, analyze)`,
    );

    started = performance.now();
    const vars = { ...SECRETS, DATABASE_URL: url, PG_WS_PROXY: relay };
    const worker = await startLocalWorker({
      config,
      entrypoint: join(ROOT, 'bench/worker/cms.ts'),
      vars,
      // Signed in by a stored session, the bench never reaches the authentication service.
      fetchers: { AUTH: () => new Response('no authentication service in this bench', { status: 503 }) },
      persistTo,
      logLevel: 'error',
    });
    try {
      // Plain HTTP on one kept-alive connection (see bench/http.ts).
      const http = keepAliveClient((await worker.url).origin);
      const get = (path: string) => http.json<{ totalCount?: number } | unknown[]>(path, { headers: { cookie: session.cookie } });
      const cases: [string, string][] = [
        ['no filter, page 1', '/api/v1/story'],
        ['no filter, page 500', '/api/v1/story?page=500'],
        ['search "flemington"', '/api/v1/story?search=flemington'],
        ['siteId + newsType + visible', '/api/v1/story?siteId=1&newsType=2&visible=true'],
        ['date range (30 days) + sort by title', `/api/v1/story?from=${daysBefore(90)}&to=${daysBefore(61)}&sort=title`],
        ['link-search, title text', '/api/v1/story/link-search?siteIds=1,2&query=flemington'],
        ['link-search, numeric id', `/api/v1/story/link-search?siteIds=1,2,3,4&query=${Math.floor(STORIES / 2)}`],
      ];
      console.log(`  ${'request'.padEnd(40)} ${'p50'.padStart(10)} ${'p95'.padStart(10)}  matches`);
      for (const [name, path] of cases) {
        const answer = await get(path);
        const matches = Array.isArray(answer) ? `${answer.length} (capped at 20)` : String(answer.totalCount);
        const times = await sample(runs, () => get(path));
        console.log(`  ${name.padEnd(40)} ${ms(median(times)).padStart(10)} ${ms(percentile(times, 95)).padStart(10)}  ${matches}`);
      }

      // The runtime's own share of every figure above: the same search without the cookie is
      // refused (401) before any database call.
      const refused = await sample(runs, async () => {
        const answer = await http.send('/api/v1/story?search=flemington');
        if (answer.status !== 401) throw new Error(`expected 401 without a session, got ${answer.status}`);
      });
      console.log(
        `  ${'no session (401, no database call)'.padEnd(40)} ${ms(median(refused)).padStart(10)} ${ms(percentile(refused, 95)).padStart(10)}`,
      );

      // The same Worker's racing lookups, over the bench Postgres: each request is one read over
      // the driver's HTTP query path (answered by the relay on its warm connections).
      const lookups: [string, string][] = [
        ['horses "sun" (search-as-you-type)', '/api/v1/lookup/horses?query=sun'],
        ['horses "" (no database call)', '/api/v1/lookup/horses?query='],
        ['trainers "wal"', '/api/v1/lookup/trainers?query=wal'],
        ['jockeys "mc"', '/api/v1/lookup/jockeys?query=mc'],
        ['courses racing today', `/api/v1/lookup/courses?date=${today}`],
        ['races of a course, last 30 days on', '/api/v1/lookup/races?courseId=1'],
      ];
      // Their SQL in psql on a warm connection (\timing), for the ratio.
      const dialect = new PgDialect();
      const psqlWarm = (query: ReturnType<typeof horseSearchSql>) =>
        median(psqlTimings(url, `${inlined(dialect.sqlToQuery(query))};\n`.repeat(runs + 3)).slice(3));
      const warmSql: Record<string, number> = {
        '/api/v1/lookup/horses?query=sun': psqlWarm(horseSearchSql('sun')),
        '/api/v1/lookup/trainers?query=wal': psqlWarm(trainerSearchSql('wal')),
      };
      console.log(`  racing lookups (bench Postgres, one HTTP read per request)`);
      for (const [name, path] of lookups) {
        const answer = await get(path);
        const times = await sample(runs, () => get(path));
        const count = Array.isArray(answer) ? answer.length : 0;
        const warm = warmSql[path];
        const ratio =
          warm === undefined ? '' : `   SQL in psql warm p50 ${ms(warm)} → ratio ${(median(times) / warm).toFixed(1)}× (target ≤ 2×)`;
        console.log(`  ${name.padEnd(40)} ${ms(median(times)).padStart(10)} ${ms(percentile(times, 95)).padStart(10)}  ${count}${ratio}`);
      }
    } finally {
      await worker.dispose();
    }
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
}
