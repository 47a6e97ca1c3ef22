import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../scripts/embedded-postgres';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';
import { type Relay, startRelay } from '../../scripts/relay';

// An embedded database runs a statement to its end and no statement timeout interrupts it. Started
// from one process with a relay, another embedded database and the Graph stand-in (as the dev
// runner and the test setup do), a long statement on it holds that database only: the rest keeps
// answering while it runs.

/** The long statement's length; each probe must answer well within it. */
const SLOW_SECONDS = 8;
const PROMPT_MS = 2_500;

let busy: EmbeddedPostgres;
let other: EmbeddedPostgres;
let relay: Relay;
let standin: GraphStandin;

beforeAll(async () => {
  [busy, other] = await Promise.all([startEmbeddedPostgres(), startEmbeddedPostgres()]);
  relay = await startRelay({ allow: [busy.url, other.url] });
  standin = await startGraphStandin({ seed: 'empty' });
}, 120_000);
afterAll(async () => {
  await standin?.close();
  await relay?.close();
  await Promise.all([busy?.close(), other?.close()]);
});

async function elapsedMs(probe: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await probe();
  return Math.round(performance.now() - start);
}

async function queryDirect(url: string, text: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** One statement through the relay's HTTP path (what the Workers' `racingReads()` use): its rows, as arrays of text. */
async function queryThroughRelay(url: string, text: string): Promise<unknown> {
  const res = await fetch(`${relay.address.replace('ws:', 'http:')}/sql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Neon-Connection-String': url },
    body: JSON.stringify({ query: text, params: [] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { rows: unknown }).rows;
}

describe('a long statement on one embedded database', () => {
  it('holds that database only: the other database, the relay and the Graph stand-in answer at once', async () => {
    const client = new pg.Client({ connectionString: busy.url });
    await client.connect();
    try {
      const start = performance.now();
      let slowMs: number | undefined;
      const slow = client.query(`select pg_sleep(${SLOW_SECONDS})`).then(() => {
        slowMs = performance.now() - start;
      });
      // Awaited below; a failed probe ends the connection under it first.
      slow.catch(() => undefined);
      // Until the statement has reached the database.
      await new Promise((resolve) => setTimeout(resolve, 300));

      const probes = {
        otherDatabase: await elapsedMs(async () => expect(await queryDirect(other.url, 'select 41 + 1 as n')).toEqual([{ n: 42 }])),
        relayToOtherDatabase: await elapsedMs(async () => expect(await queryThroughRelay(other.url, 'select 1 as n')).toEqual([['1']])),
        relayHttp: await elapsedMs(async () => expect((await fetch(`${relay.address.replace('ws:', 'http:')}/`)).status).toBe(426)),
        graphStandin: await elapsedMs(async () =>
          expect((await fetch(`${standin.identityBaseUrl}/common/v2.0/.well-known/openid-configuration`)).status).toBe(200),
        ),
      };
      // All of them while the long statement still runs, each one promptly.
      expect(slowMs, `the long statement ended before the probes did (probes: ${JSON.stringify(probes)})`).toBeUndefined();
      for (const [probe, ms] of Object.entries(probes)) expect(ms, probe).toBeLessThan(PROMPT_MS);

      await slow;
      expect(slowMs).toBeGreaterThanOrEqual(SLOW_SECONDS * 1000 - 500);
      // And the database that ran it serves again afterwards.
      expect(await queryDirect(busy.url, 'select 2 as n')).toEqual([{ n: 2 }]);
    } finally {
      await client.end();
    }
  }, 60_000);
});
