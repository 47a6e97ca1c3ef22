import { join } from 'node:path';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import { runnerPageSql, salesJson } from '../workers/form/src/runner-page.ts';
import type { BenchContext } from './context.ts';
import { keepAliveClient } from './http.ts';
import { inlined, psqlTimings, psqlWallTimes } from './psql.ts';
import { median, ms, percentile, sample } from './stats.ts';

const USERNAME = 'bench';
const PASSWORD = 'bench-password';

/**
 * The runner page: through the Worker on a first view (cold cache) and a repeat view (cached), and
 * its SQL in psql. The ratio of the two views' medians is what issue 35 asks to keep at most 2×.
 */
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
  // A first view reads the page data and the sales in one statement.
  const pageSql = inlined(dialect.sqlToQuery(runnerPageSql({ horseId: horse.id }, salesJson(horse.id))));

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

    // The same statement in psql: warm (one session, \timing) and cold (new connection each).
    const statements = `${pageSql};\n`;
    const warm = psqlTimings(url, statements.repeat(runs));
    const cold = psqlWallTimes(url, statements, Math.min(runs, 50));

    console.log(
      `  uncached  Worker→relay→PG  p50 ${ms(median(uncached))} (p95 ${ms(percentile(uncached, 95))})` +
        `   page SQL in psql: warm p50 ${ms(median(warm))} → ratio ${(median(uncached) / median(warm)).toFixed(1)}×;` +
        ` new connection (psql) p50 ${ms(median(cold))} → ratio ${(median(uncached) / median(cold)).toFixed(2)}×`,
    );
    console.log(`  cached    Worker (Cache API)  p50 ${ms(median(cached))} (p95 ${ms(percentile(cached, 95))})   target ≤ 10 ms`);
    console.log(`  first view / repeat view       ${(median(uncached) / median(cached)).toFixed(2)}×   target ≤ 2× (issue 35)`);
    console.log(`  baseline  login page, no data p50 ${ms(median(baseline))}   (the local runtime's own cost per request)`);
  } finally {
    await worker.dispose();
  }
}
