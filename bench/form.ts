import { join } from 'node:path';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import { runnerPageSql, salesSql } from '../workers/form/src/queries.ts';
import type { BenchContext } from './context.ts';
import { keepAliveClient } from './http.ts';
import { inlined, psqlTimings, psqlWallTimes } from './psql.ts';
import { median, ms, percentile, sample } from './stats.ts';

const USERNAME = 'bench';
const PASSWORD = 'bench-password';

/** The runner page: through the Worker uncached and cached, against its SQL in psql. */
export async function benchForm({ url, relay, runs }: BenchContext) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // The horse with the most starts: the heaviest runner page in the data.
  const { rows } = await client.query<{ id: number; starts: number }>(
    'select horse_id as id, count(*)::int as starts from runners where not scratched group by 1 order by 2 desc, 1 limit 1',
  );
  await client.end();
  // BENCH_FORM_HORSE picks another horse.
  const horse = process.env.BENCH_FORM_HORSE ? { id: Number(process.env.BENCH_FORM_HORSE), starts: undefined } : rows[0]!;

  const dialect = new PgDialect();
  const pageSql = inlined(dialect.sqlToQuery(runnerPageSql({ horseId: horse.id })));
  const salesText = inlined(dialect.sqlToQuery(salesSql(horse.id)));

  const worker = await startLocalWorker({
    config: join(ROOT, 'workers/form/wrangler.toml'),
    vars: {
      DATABASE_URL: url,
      PG_WS_PROXY: relay,
      ADMIN_USERNAME: USERNAME,
      ADMIN_PASSWORD: PASSWORD,
      SESSION_SECRET: 'bench-only-session-secret-0123456789abcdef',
    },
  });
  try {
    const loginPage = await worker.fetch('http://bench/form/');
    const loginCookie = loginPage.headers
      .getSetCookie()
      .map((c) => c.split(';')[0] ?? '')
      .join('; ');
    const token = /name="csrf_token" value="([^"]+)"/.exec(await loginPage.text())![1]!;
    const login = await worker.fetch('http://bench/form/', {
      method: 'POST',
      headers: { cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: token, username: USERNAME, password: PASSWORD }).toString(),
      redirect: 'manual',
    });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0] ?? '')
      .filter((c) => c.startsWith('form_session='))
      .join('; ');
    if (!cookie) throw new Error(`bench login failed: ${login.status}`);

    const path = `/form/runner/${horse.id}/`;
    // Plain HTTP on one kept-alive connection (see bench/http.ts), the host name in the Host header.
    const http = keepAliveClient((await worker.url).origin);
    const open = async (host: string, expect: 'hit' | 'miss') => {
      const res = await http.ok(path, { host, headers: { cookie } });
      if (!res.text.includes('data-horse-name')) throw new Error(`${path}: not a runner page`);
      const outcome = String(res.headers['x-form-cache'] ?? '');
      if (!outcome.includes(`runner_page=${expect}`)) throw new Error(`expected a cache ${expect}, got "${outcome}"`);
    };

    console.log(
      `\nRunner form: runner page of horse ${horse.id}${horse.starts === undefined ? '' : ` (${horse.starts} starts, the most in the data)`}, ${runs} runs each`,
    );
    // Cache keys are made under the request's origin: a new host name per request is a cold cache.
    let n = 0;
    const uncached = await sample(runs, () => open(`uncached-${n++}.bench`, 'miss'));
    await open('cached.bench', 'miss');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cached = await sample(runs, () => open('cached.bench', 'hit'));
    // What any request costs through the local runtime: the login page (no data, no cache).
    const baseline = await sample(runs, () => http.ok('/form/', { host: 'bench' }));
    http.close();

    // The same two statements in psql: warm (one session, \timing) and cold (new connection each).
    const statements = `${pageSql};\n${salesText};\n`;
    const timings = psqlTimings(url, statements.repeat(runs));
    const warm: number[] = [];
    for (let i = 0; i + 1 < timings.length; i += 2) warm.push(timings[i]! + timings[i + 1]!);
    const cold = psqlWallTimes(url, statements, Math.min(runs, 50));

    console.log(
      `  uncached  Worker→relay→PG  p50 ${ms(median(uncached))} (p95 ${ms(percentile(uncached, 95))})` +
        `   page SQL in psql: warm p50 ${ms(median(warm))} → ratio ${(median(uncached) / median(warm)).toFixed(1)}×;` +
        ` new connection (psql) p50 ${ms(median(cold))} → ratio ${(median(uncached) / median(cold)).toFixed(2)}×`,
    );
    console.log(`  cached    Worker (Cache API)  p50 ${ms(median(cached))} (p95 ${ms(percentile(cached, 95))})   target ≤ 10 ms`);
    console.log(`  baseline  login page, no data p50 ${ms(median(baseline))}   (the local runtime's own cost per request)`);
  } finally {
    await worker.dispose();
  }
}
