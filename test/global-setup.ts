import { type Socket, createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../scripts/embedded-postgres';
import { startGraphStandin } from '../scripts/graph-standin/server';
import { msUntilNextRacingDay, racingToday } from '../scripts/racing-today';
import { loadLegacy } from '../scripts/racing/legacy-load';
import { startPasswordFront } from '../scripts/racing/legacy-password';
import { loadRacing } from '../scripts/racing/load';
import { startRelay } from '../scripts/relay';
import { machinePostgres } from '../scripts/machine-postgres';
import { ensureEngineBookkeeping } from '../scripts/racing/migration';
import { withClient } from '../scripts/racing/pg-client';

/** The embedded legacy source database's password (checked by its front; see legacy-password.ts). */
const LEGACY_TEST_PASSWORD = 'legacy-source-test-password';

/** A whole test run takes a few minutes; start none closer than this to midnight. */
const SAFE_BEFORE_MIDNIGHT_MS = 15 * 60_000;

/**
 * One racing database and one relay for the whole run: embedded PGlite in memory with `tiny`
 * data, or the real server named by DATABASE_URL (its racing tables are replaced with `tiny`).
 */
export default async function setup(project: TestProject) {
  // Everything below is independent until the relay: the two PGlites each load on a thread of their
  // own, so the racing and legacy loads, the machine's PostgreSQL and the Graph stand-in start together.
  const graphStandinStarting = startGraphStandin();
  const realPostgresStarting = realPostgresForCopy();
  // Awaited below; until then a failure must not count as unhandled.
  for (const starting of [graphStandinStarting, realPostgresStarting]) starting.catch(() => undefined);
  const [embedded, legacy] = await Promise.all([
    process.env.DATABASE_URL ? undefined : startEmbeddedPostgres(),
    // The migration app's source: the same world in an old system's shape, a few days ahead. Always
    // embedded (a second PGlite), or LEGACY_DATABASE_URL (its legacy tables are replaced).
    process.env.LEGACY_DATABASE_URL ? undefined : startEmbeddedPostgres(),
  ]);
  const databaseUrl = process.env.DATABASE_URL ?? embedded!.url;
  // The services work out "today" themselves: a run must not straddle the racing day's midnight,
  // or tests anchored on the setup's date would meet a service already on the next day.
  const untilMidnight = msUntilNextRacingDay();
  if (untilMidnight < SAFE_BEFORE_MIDNIGHT_MS) {
    console.log(`• waiting ${Math.ceil(untilMidnight / 1000)} s for the racing day to change before anchoring test data`);
    await new Promise((resolve) => setTimeout(resolve, untilMidnight + 2_000));
  }
  const today = racingToday();
  // PGlite takes any password, so the app reaches the legacy source through a front that checks one
  // (MD5), as a real server would: a configuration with a wrong password fails there.
  const [, , legacyFront, realPostgres, graphStandin] = await Promise.all([
    loadRacing(databaseUrl, { size: 'tiny', today }),
    loadLegacy(process.env.LEGACY_DATABASE_URL ?? legacy!.url, { size: 'tiny', today }),
    legacy
      ? startPasswordFront({ upstream: { host: '127.0.0.1', port: legacy.port }, user: 'postgres', password: LEGACY_TEST_PASSWORD })
      : undefined,
    realPostgresStarting,
    // Microsoft Graph and the identity platform, for the mail assistant (tests create a mailbox each).
    graphStandinStarting,
  ]);
  const legacyDatabaseUrl = process.env.LEGACY_DATABASE_URL ?? legacyFront!.url;
  // A port that accepts connections and never answers: what a hung database looks like.
  const held = new Set<Socket>();
  const silent = createServer((socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => silent.once('listening', resolve));
  const silentAddress = silent.address();
  if (!silentAddress || typeof silentAddress === 'string') throw new Error('no silent port');
  const silentPort = silentAddress.port;
  // The relay reaches the two databases and, for outage tests, the silent port (a hung database) and
  // port 1 (a refused one); nothing else.
  const relay = await startRelay({
    allow: [databaseUrl, legacyDatabaseUrl, `127.0.0.1:${silentPort}`, '127.0.0.1:1', ...(realPostgres ? [realPostgres] : [])],
  });
  project.provide('racingDatabaseUrl', databaseUrl);
  project.provide('racingDatabaseEmbedded', embedded !== undefined);
  project.provide('pgRelay', relay.address);
  project.provide('racingToday', today);
  project.provide('silentPort', silentPort);
  project.provide('legacyDatabaseUrl', legacyDatabaseUrl);
  project.provide('legacyDatabaseHost', new URL(legacyDatabaseUrl).host);
  project.provide('graphStandin', graphStandin.url);
  project.provide('realPostgresUrl', realPostgres ?? '');
  // The OpenAPI fuzz tests' cases per operation and seed (test/support/openapi-fuzz.ts); '' = their defaults.
  project.provide('fuzzRuns', process.env.FUZZ_RUNS ?? '');
  project.provide('fuzzSeed', process.env.FUZZ_SEED ?? '');
  return async () => {
    for (const socket of held) socket.destroy();
    silent.close();
    await relay.close();
    await graphStandin.close();
    await embedded?.close();
    await legacyFront?.close();
    await legacy?.close();
  };
}

/**
 * A real PostgreSQL server for what the embedded one cannot do (the migration engine's COPY path):
 * TEST_REAL_POSTGRES_URL, else the machine's cluster (started when down) with a database of its own,
 * holding the engine's bookkeeping tables. Without one the tests that need it are skipped — except
 * in CI, where .ci/run installs it and its absence fails the run.
 */
async function realPostgresForCopy(): Promise<string | undefined> {
  let url = process.env.TEST_REAL_POSTGRES_URL;
  try {
    url ??= await machinePostgres({ role: 'racing_test', password: 'racing_test', database: 'racing_test_copy' });
  } catch (error) {
    if (process.env.CI) throw error;
    console.log(`• no PostgreSQL server (${error instanceof Error ? error.message : error}): the COPY-path tests are skipped`);
    return undefined;
  }
  await withClient(url, (client) => ensureEngineBookkeeping((text) => client.query(text)));
  return url;
}

declare module 'vitest' {
  export interface ProvidedContext {
    racingDatabaseUrl: string;
    /** Whether that is the embedded PGlite (which cannot take COPY … FROM STDIN). */
    racingDatabaseEmbedded: boolean;
    pgRelay: string;
    racingToday: string;
    silentPort: number;
    /** The migration app's legacy source database (tiny; with its password), and its host:port for allow-lists. */
    legacyDatabaseUrl: string;
    legacyDatabaseHost: string;
    /** the Graph stand-in's origin: Graph under `/v1.0`, the identity platform under `/{tenant}/oauth2/v2.0`, control under `/_standin` */
    graphStandin: string;
    /** A real PostgreSQL database ('' when there is none; see realPostgresForCopy). */
    realPostgresUrl: string;
    /** FUZZ_RUNS and FUZZ_SEED of the run ('' when unset). */
    fuzzRuns: string;
    fuzzSeed: string;
  }
}
