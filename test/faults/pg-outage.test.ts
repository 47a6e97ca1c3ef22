import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drive, type Sample } from '../../bench/load/drive';
import { STATS_TOKEN, startStats, type Started } from '../../bench/load/services';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../scripts/embedded-postgres';
import { racingToday } from '../../scripts/racing-today';
import { loadRacing } from '../../scripts/racing/load';
import { type Relay, startRelay } from '../../scripts/relay';

// The racing database stopped under load and started again (the same data folder, the same port):
// while it is down every request is answered 503 within its timeout — no 500, no hang — and once
// it is back the answers are 200 again within a bound. The figures themselves are the load bench's
// (`npm run bench -- load --faults`); this asserts only the outcome.

const CONNECTIONS = 10;
const BEFORE_MS = 2_000;
const OUTAGE_MS = 4_000;
const AFTER_MS = 8_000;
/** No answer may take longer than this (autocannon counts it as a timeout). */
const TIMEOUT_S = 8;
/** After the database is back, failures must stop within this. */
const RECOVERY_MS = 5_000;

let dataDir: string;
let port: number;
let database: EmbeddedPostgres | undefined;
let relay: Relay;
let stats: Started;
let path: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pg-outage-'));
  port = await freePort();
  database = await startEmbeddedPostgres({ dataDir, port });
  const today = racingToday();
  await loadRacing(database.url, { size: 'tiny', today });
  const client = new pg.Client(database.url);
  await client.connect();
  const { rows } = await client.query<{ date: string; course_id: number }>(
    `select m.date::text as date, m.course_id from meetings m join races r on r.meeting_id = m.id
      where m.date < $1::date and not m.is_trial group by m.id order by m.date desc, count(*) desc limit 1`,
    [today],
  );
  await client.end();
  path = `/meetingStats?date=${rows[0]!.date}&courseId=${rows[0]!.course_id}`;
  relay = await startRelay({ allow: [database.url] });
  stats = await startStats(database.url, relay.address);
}, 120_000);

afterAll(async () => {
  await stats?.dispose();
  await relay?.close();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('racing database stopped under load', () => {
  it('answers 503 while it is down, never a 500 or a hang, and 200 again soon after it returns', async () => {
    const marks = { stop: 0, back: 0 };
    let t0 = 0;
    const fault = (async () => {
      await sleep(BEFORE_MS);
      marks.stop = performance.now() - t0;
      await database!.close();
      database = undefined;
      await sleep(OUTAGE_MS);
      database = await startEmbeddedPostgres({ dataDir, port });
      marks.back = performance.now() - t0;
    })();
    t0 = performance.now();
    const { samples, figures } = await drive(
      { service: 'stats', route: 'GET /meetingStats', origin: stats.origin, path, headers: { authorization: `Bearer ${STATS_TOKEN}` } },
      CONNECTIONS,
      (BEFORE_MS + OUTAGE_MS + AFTER_MS) / 1000,
      { timeoutS: TIMEOUT_S },
    );
    await fault;

    const statuses = new Set(samples.map((s: Sample) => s.status));
    // Nothing but answers, and only 200 or the outage's 503.
    expect(figures.timeouts).toBe(0);
    expect(figures.errors).toBe(0);
    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // The outage was seen…
    expect(samples.some((s) => s.status === 503 && s.atMs > marks.stop)).toBe(true);
    // …every answer came within the timeout…
    expect(Math.max(...samples.map((s) => s.ms))).toBeLessThan(TIMEOUT_S * 1000);
    // …and once the database was back, failures stopped within the bound and 200s followed.
    const lastFailure = Math.max(0, ...samples.filter((s) => s.status !== 200).map((s) => s.atMs));
    expect(lastFailure - marks.back).toBeLessThan(RECOVERY_MS);
    expect(samples.some((s) => s.status === 200 && s.atMs > lastFailure)).toBe(true);
  }, 60_000);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
