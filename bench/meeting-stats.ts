import { join } from 'node:path';
import pg from 'pg';
import { startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import { MEETING_STATS_SQL } from '../workers/stats/src/statistics.ts';
import { applyMissingRacingMigrations } from './racing-schema.ts';
import type { BenchContext } from './context.ts';
import { keepAliveClient } from './http.ts';
import { inlined, psqlTimings, psqlWallTimes } from './psql.ts';
import { median, ms, percentile, sample } from './stats.ts';

// `npm run bench -- stats`: GET /meetingStats for a 10-race meeting end to end through the stats
// Worker, against (1) the same statement run by psql, and (2) one query per person.
// (bench/stats.ts holds the shared median/percentile helpers, hence this file's name.)

const TOKEN = 'bench-static-token-0123456789';

/** Indexes of migration 0001 that a bench database loaded before it lacks (the same definitions). */
const MIGRATION_INDEXES = [
  `create index if not exists runners_trainer_id_wins_idx on runners (trainer_id) where finishing_position = 1`,
  `create index if not exists runners_jockey_id_wins_idx on runners (jockey_id) where finishing_position = 1`,
];

const BAND = `case
      when r.starting_price is null then null
      when r.starting_price <= 2.00 then 1 when r.starting_price <= 3.50 then 2 when r.starting_price <= 6.00 then 3
      when r.starting_price <= 11.00 then 4 when r.starting_price <= 21.00 then 5 else 6
    end`;

/**
 * The one-query-per-person way: one statement per trainer or jockey, returning that person's
 * counts (window totals, bands, top horses, last win), found through the person's runner index.
 */
function personSql(column: 'trainer_id' | 'jockey_id'): string {
  return `
with mine as (
  select r.horse_id, m.id as meeting_id, m.date, r.finishing_position as pos, ${BAND} as band,
    (select count(*) from runners x where x.race_id = r.race_id and not x.scratched and x.finishing_position is not null) as starters
  from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
  where r.${column} = $2 and m.date between $1::date - 365 and $1::date - 1 and not m.is_trial
    and not r.scratched and r.finishing_position is not null
),
scored as (
  select *, pos = 1 as won, pos = 1 or pos <= case when starters >= 8 then 3 when starters >= 5 then 2 else 0 end as placed from mine
)
select count(*)::int as starts, (count(*) filter (where won))::int as wins,
  (count(*) filter (where won and date >= $1::date - 30))::int as wins_30d, count(distinct meeting_id)::int as meetings,
  coalesce(sum(pos), 0)::int as pos_sum,
  to_char(coalesce(max(date) filter (where won), (select max(m.date) from runners r join races ra on ra.id = r.race_id
    join meetings m on m.id = ra.meeting_id where r.${column} = $2 and r.finishing_position = 1 and not r.scratched
    and not m.is_trial and m.date < $1::date - 365)), 'YYYY-MM-DD') as last_win_date,
  (select json_agg(json_build_array(band, n, w, p) order by band) from (select band, count(*) n, count(*) filter (where won) w,
    count(*) filter (where placed) p from scored where band is not null group by band) b) as bands,
  (select json_agg(json_build_array(name, n, w)) from (select h.name, count(*) n, count(*) filter (where s.won) w from scored s
    join horses h on h.id = s.horse_id group by h.id, h.name having count(*) >= 3
    order by count(*) filter (where s.won)::numeric / count(*) desc, count(*) filter (where s.won) desc, h.name collate "C", h.id limit 5) t) as top_horses
from scored`;
}

/** The baseline of every band over the window, across the database (what each person's IVs divide by). */
const BASELINE_SQL = `
select band, count(*)::int as starts, (count(*) filter (where pos = 1))::int as wins,
  (count(*) filter (where pos = 1 or pos <= case when starters >= 8 then 3 when starters >= 5 then 2 else 0 end))::int as places
from (
  select r.finishing_position as pos, ${BAND} as band, count(*) over (partition by r.race_id) as starters
  from meetings m join races ra on ra.meeting_id = m.id join runners r on r.race_id = ra.id
  where m.date between $1::date - 365 and $1::date - 1 and not m.is_trial and not r.scratched and r.finishing_position is not null
) s where band is not null group by band`;

async function pickMeeting(client: pg.Client, today: string) {
  const { rows } = await client.query<{ date: string; course_id: number; course: string; runners: number }>(
    `select m.date::text as date, m.course_id, c.name as course, count(r.id) filter (where not r.scratched)::int as runners
       from meetings m join courses c on c.id = m.course_id join races ra on ra.meeting_id = m.id join runners r on r.race_id = ra.id
      where m.date < $1::date and m.date >= $1::date - 60 and not m.is_trial
      group by m.id, c.name having count(distinct ra.id) = 10
      order by m.date desc, runners desc limit 1`,
    [today],
  );
  if (!rows[0]) throw new Error('no 10-race meeting in the last 60 days of bench data');
  return rows[0];
}

/** The statement as the Worker runs it (JIT off), prepared once and executed `executions` times. */
function psqlScript(date: string, courseId: number, executions: number): string {
  return [
    'set jit = off;',
    `prepare meeting_stats(date, int, text) as ${MEETING_STATS_SQL};`,
    ...Array.from({ length: executions }, () => `execute meeting_stats('${date}', ${courseId}, 'all');`),
  ].join('\n');
}

/** Other meetings of the last 60 days, one per date (the first request of each date), most runners first. */
async function otherDays(client: pg.Client, today: string, except: string, count: number) {
  const { rows } = await client.query<{ date: string; course_id: number }>(
    `select distinct on (m.date) m.date::text as date, m.course_id
       from meetings m join races ra on ra.meeting_id = m.id join runners r on r.race_id = ra.id
      where m.date < $1::date and m.date >= $1::date - 60 and m.date <> $2::date and not m.is_trial
      group by m.id order by m.date, count(*) desc limit $3`,
    [today, except, count],
  );
  return rows;
}

export async function benchStats({ url, relay, runs, today }: BenchContext) {
  const client = new pg.Client(url);
  await client.connect();
  for (const statement of MIGRATION_INDEXES) await client.query(statement);
  await applyMissingRacingMigrations(client);
  const meeting = await pickMeeting(client, today);
  const path = `/meetingStats?date=${meeting.date}&courseId=${meeting.course_id}`;

  const worker = await startLocalWorker({
    config: join(ROOT, 'workers/stats/wrangler.toml'),
    vars: { DATABASE_URL: url, PG_WS_PROXY: relay, STATIC_API_TOKEN: TOKEN, ADMIN_USERNAME: 'bench', ADMIN_PASSWORD: 'bench-password' },
  });
  try {
    // Plain HTTP on one kept-alive connection (see bench/http.ts).
    const http = keepAliveClient((await worker.url).origin);
    const withToken = { host: 'stats', headers: { Authorization: `Bearer ${TOKEN}` } };
    const call = () => http.json<{ trainers: unknown[]; jockeys: unknown[] }>(path, withToken);
    const first = await call();
    const people = { trainers: first.trainers.length, jockeys: first.jockeys.length };
    console.log(
      `\nMeeting statistics: ${meeting.course} ${meeting.date}, 10 races, ${meeting.runners} runners, ` +
        `${people.trainers} trainers + ${people.jockeys} jockeys (${runs} runs)`,
    );

    // The statistics read daily aggregates (racing migration 0004): there is no per-date fill any more.
    const workerTimes = await sample(runs, call);
    // The first request of a date: a meeting on another day, each asked once.
    const firstRuns = Math.min(runs, 30);
    const firstOfDay: number[] = [];
    for (const other of await otherDays(client, today, meeting.date, firstRuns)) {
      const started = performance.now();
      await http.ok(`/meetingStats?date=${other.date}&courseId=${other.course_id}`, withToken);
      firstOfDay.push(performance.now() - started);
    }
    const psqlRuns = Math.min(runs, 50);
    // A fresh psql process and connection per run, and the statement's own execution time on a warm connection.
    const cold = psqlWallTimes(url, psqlScript(meeting.date, meeting.course_id, 1), psqlRuns);
    const warm = psqlTimings(url, psqlScript(meeting.date, meeting.course_id, psqlRuns + 3)).slice(-psqlRuns);
    // The same statement sent as text each time (planned on every run, as the HTTP path does).
    const literal = `${inlined({ sql: MEETING_STATS_SQL, params: [meeting.date, meeting.course_id, 'all'] })};\n`;
    const planned = psqlTimings(url, `set jit = off;\n${literal.repeat(psqlRuns + 3)}`).slice(-psqlRuns);
    // What the triggers cost a result correction: one runner's finishing position rewritten
    // (unchanged), which recomputes its date's aggregates, timed in psql.
    const {
      rows: [start],
    } = await client.query<{ id: number }>(
      `select r.id from runners r join races ra on ra.id = r.race_id join meetings m on m.id = ra.meeting_id
        where m.date = $1::date - 1 and not r.scratched and r.finishing_position is not null limit 1`,
      [meeting.date],
    );
    const correction = start
      ? psqlTimings(
          url,
          `update runners set finishing_position = finishing_position where id = ${start.id};\n`.repeat(Math.min(runs, 20) + 2),
        ).slice(2)
      : [];
    const old = 260;
    console.log(
      `  GET /meetingStats (daily aggregates)   p50 ${ms(median(workerTimes))} (p95 ${ms(percentile(workerTimes, 95))})   target ≤ 40 ms (was ${old} ms)`,
    );
    console.log(
      `  GET /meetingStats, first of a date     p50 ${ms(median(firstOfDay))} (p95 ${ms(percentile(firstOfDay, 95))}, ${firstOfDay.length} other dates)   ` +
        `÷ ${old} ms before = ${(median(firstOfDay) / old).toFixed(2)}× (target ≤ 1.2×)`,
    );
    console.log(
      `  statement, psql warm (\\timing)        p50 ${ms(median(warm))}   Worker ÷ psql ${(median(workerTimes) / median(warm)).toFixed(2)}×`,
    );
    console.log(
      `  statement, psql warm, planned each run p50 ${ms(median(planned))}   Worker ÷ psql ${(median(workerTimes) / median(planned)).toFixed(2)}×`,
    );
    console.log(`  statement, psql new connection         p50 ${ms(median(cold))}`);
    const floor = await sample(runs, () => http.ok('/health', withToken));
    console.log(`  GET /health through the same path      p50 ${ms(median(floor))}   (the local runtime's own cost per request)`);
    if (correction.length)
      console.log(
        `  a result correction (one runner; its date's aggregates recomputed by the triggers), psql p50 ${ms(median(correction))}`,
      );

    // One query per person on one warm connection (kinder to the baseline than a connection per query).
    const ids = await client.query<{ role: 'trainer' | 'jockey'; id: number }>(
      `select distinct 'trainer' as role, r.trainer_id as id from meetings m join races ra on ra.meeting_id = m.id
         join runners r on r.race_id = ra.id where m.date = $1::date and m.course_id = $2 and not m.is_trial and not r.scratched
       union select distinct 'jockey', r.jockey_id from meetings m join races ra on ra.meeting_id = m.id
         join runners r on r.race_id = ra.id where m.date = $1::date and m.course_id = $2 and not m.is_trial and not r.scratched
         and r.jockey_id is not null`,
      [meeting.date, meeting.course_id],
    );
    await client.query('set jit = off');
    const perPerson = async (baselineEach: boolean) => {
      if (!baselineEach) await client.query(BASELINE_SQL, [meeting.date]);
      for (const person of ids.rows) {
        await client.query(personSql(person.role === 'trainer' ? 'trainer_id' : 'jockey_id'), [meeting.date, person.id]);
        if (baselineEach) await client.query(BASELINE_SQL, [meeting.date]);
      }
    };
    const naiveRuns = Math.max(3, Math.min(runs, 5));
    const naive = await sample(naiveRuns, () => perPerson(true), 1);
    const shared = await sample(Math.min(runs, 20), () => perPerson(false), 2);
    console.log(
      `  one query per person, each with its baseline (${ids.rows.length} × 2 queries)   median ${ms(median(naive))}   ` +
        `set-based Worker is ${(median(naive) / median(workerTimes)).toFixed(1)}× faster (target ≥ 10×)`,
    );
    console.log(
      `  one query per person, baseline once (${ids.rows.length} + 1 queries)            median ${ms(median(shared))}   ` +
        `set-based Worker is ${(median(shared) / median(workerTimes)).toFixed(1)}× faster`,
    );
    http.close();
  } finally {
    await worker.dispose();
    await client.end();
  }
}
