import pg from 'pg';
import { racingToday } from '../../scripts/racing-today.ts';
import { loadRacing, racingDatasetInfo } from '../../scripts/racing/load.ts';
import { SIZE_PROFILES } from '../../scripts/racing/sizes.ts';
import type { PgInstance } from './pg-instance.ts';

/** The data sets of the load bench: `demo`, and `demo` over ten times its days of results (10× the rows). */
export const DATA_SETS = {
  demo: { database: 'racing_load_demo', historyDays: SIZE_PROFILES.demo.historyDays },
  'demo×10': { database: 'racing_load_demo_x10', historyDays: SIZE_PROFILES.demo.historyDays * 10 },
} as const;

export type DataSetName = keyof typeof DATA_SETS;

/** The URL of a data set on the bench's server, loaded when missing or older than three days. */
export async function ensureData(instance: PgInstance, name: DataSetName): Promise<{ url: string; today: string; runners: number }> {
  const { database, historyDays } = DATA_SETS[name];
  const url = await instance.url(database);
  const info = await racingDatasetInfo(url);
  const today = racingToday();
  const fresh =
    info && info.size === 'demo' && info.missingTables.length === 0 && (Date.parse(today) - Date.parse(info.today)) / 86_400_000 <= 3;
  if (!fresh) {
    console.log(`• loading the ${name} data (${historyDays} days of results) anchored on ${today}…`);
    const { elapsedMs } = await loadRacing(url, { size: 'demo', today, historyDays });
    console.log(`• ${name} loaded in ${(elapsedMs / 1000).toFixed(0)} s`);
    // Freshly loaded pages: their hint bits and visibility map set now, not by the first measured reads.
    const client = new pg.Client(url);
    await client.connect();
    await client.query('VACUUM ANALYZE');
    await client.end();
  }
  const client = new pg.Client(url);
  await client.connect();
  const { rows } = await client.query<{ n: number }>('select count(*)::int as n from runners');
  await client.end();
  return { url, today: fresh ? info.today : today, runners: rows[0]!.n };
}
