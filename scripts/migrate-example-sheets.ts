import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import type { SheetCell } from '../workers/migrate/src/imports/sheet/index.ts';
import { writeCsv, writeXlsx } from './sheet-writers.ts';
import { racingToday } from './racing-today.ts';
import { withClient } from './racing/pg-client.ts';
import { ROOT, devStateDir, executeD1, wranglerBin } from './workers.ts';
import { addDays, type ExampleSheets, type Row, SECTIONAL_HEADER, type SheetSummary, TRIAL_HEADER } from './migrate-example-sheets/rows.ts';
import { buildTrials } from './migrate-example-sheets/trials.ts';
import { buildSectional } from './migrate-example-sheets/sectional.ts';

/**
 * Example sheets of the migration app's spreadsheet imports, built from the dev racing database's
 * recent days, and the one enabled auto-sync that imports one of them:
 *
 *   examples/BarrierTrials/barrier-trials-example.xlsx   new heats at recent trial meetings, a few
 *                                                        runs already stored, a few bad rows
 *   examples/Sectional/sectional-times-example.xlsx      L600/L400/L200 of recent races run without
 *   examples/Sectional/sectional-times-example.csv       sectional times, a few stored, a few bad rows
 *   auto-sync/Sectional/<DEV_AUTO_SYNC.uuid>/…           the sheet of the Sectional auto-sync
 *
 * The rows follow the data generator's models (scripts/racing/generate.ts: `trialMeeting()` and
 * `sectionals()`) and are drawn from a fixed seed, so one database always gives the same sheets.
 * They go to the migrate Worker's local R2 (what `wrangler dev --persist-to` reads).
 */

export const EXAMPLE_FILES = {
  trials: 'barrier-trials-example.xlsx',
  sectionalXlsx: 'sectional-times-example.xlsx',
  sectionalCsv: 'sectional-times-example.csv',
} as const;

/** The Sectional auto-sync the dev runner keeps enabled (a fixed key, so re-seeding overwrites it). */
export const DEV_AUTO_SYNC = {
  area: 'Sectional',
  uuid: '6f1d2c3b-4a59-4e8d-9c7b-0a1b2c3d4e5f',
  fileName: EXAMPLE_FILES.sectionalXlsx,
  intervalMinutes: 5,
  /** The first run: a minute after seeding (the dev runner ticks the schedule every minute). */
  firstRunAfterMs: 60_000,
  updatedBy: 'dev seed',
} as const;
export const DEV_AUTO_SYNC_KEY = `auto-sync/${DEV_AUTO_SYNC.area}/${DEV_AUTO_SYNC.uuid}/${DEV_AUTO_SYNC.fileName}`;

const SHEETS_BUCKET = 'migrate-sheets';
const MIGRATE_CONFIG = 'workers/migrate/wrangler.toml';
const RECENT_DAYS = 14;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The example sheets' rows, from the racing database's last `days` days up to `today`. */
export async function buildExampleSheets(
  target: pg.ClientBase | string,
  options: { today?: string; days?: number } = {},
): Promise<ExampleSheets> {
  return withClient(target, async (client) => {
    const anchor = options.today ?? (await datasetToday(client)) ?? racingToday();
    const from = addDays(anchor, -(options.days ?? RECENT_DAYS));
    const trials = await buildTrials(client, from, anchor);
    const sectional = await buildSectional(client, from, anchor);
    return { today: anchor, trials, sectional };
  });
}

/** The day the loaded racing data is anchored on (racing_dataset), if any. */
async function datasetToday(client: pg.ClientBase): Promise<string | null> {
  const present = await client.query<{ ok: boolean }>(`SELECT to_regclass('racing_dataset') IS NOT NULL AS ok`);
  if (!present.rows[0]?.ok) return null;
  const row = await client.query<{ today: string }>('SELECT today::text AS today FROM racing_dataset ORDER BY loaded_at DESC LIMIT 1');
  return row.rows[0]?.today ?? null;
}

const csvCells = (rows: Row[]): SheetCell[][] =>
  rows.map((row) => row.map((cell) => (cell instanceof Date ? cell.toISOString().slice(0, 10) : cell)));

/** The objects to store: R2 key, bytes, content type. */
export function exampleObjects(sheets: ExampleSheets): { key: string; bytes: Uint8Array; contentType: string }[] {
  const trials = writeXlsx(TRIAL_HEADER, sheets.trials.rows, { sheetName: 'Barrier trials' });
  const sectional = writeXlsx(SECTIONAL_HEADER, sheets.sectional.rows, { sheetName: 'Sectional times' });
  const csv = new TextEncoder().encode(writeCsv(SECTIONAL_HEADER, csvCells(sheets.sectional.rows)));
  return [
    { key: `examples/BarrierTrials/${EXAMPLE_FILES.trials}`, bytes: trials, contentType: XLSX_TYPE },
    { key: `examples/Sectional/${EXAMPLE_FILES.sectionalXlsx}`, bytes: sectional, contentType: XLSX_TYPE },
    { key: `examples/Sectional/${EXAMPLE_FILES.sectionalCsv}`, bytes: csv, contentType: 'text/csv' },
    { key: DEV_AUTO_SYNC_KEY, bytes: sectional, contentType: XLSX_TYPE },
  ];
}

/** Writes objects to the migrate Worker's local R2 bucket (SHEETS) under `persistTo`. */
export function putLocalSheets(objects: { key: string; bytes: Uint8Array; contentType: string }[], persistTo: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'migrate-sheets-'));
  try {
    for (const [i, object] of objects.entries()) {
      const file = join(dir, `${i}-${object.key.split('/').pop()}`);
      writeFileSync(file, object.bytes);
      const args = [
        'r2',
        'object',
        'put',
        `${SHEETS_BUCKET}/${object.key}`,
        '--local',
        '--persist-to',
        persistTo,
        '-c',
        MIGRATE_CONFIG,
        '--file',
        file,
        '--content-type',
        object.contentType,
      ];
      const run = spawnSync(wranglerBin(), args, {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false' },
      });
      if (run.status !== 0) throw new Error(`wrangler r2 object put ${object.key} failed:\n${run.stdout}${run.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const text = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** SQL adding or resetting the enabled Sectional auto-sync on the saved example sheet, due in a minute. */
export function autoSyncSql(now = Date.now()): string[] {
  const fk = text(JSON.stringify({ runner: 'horse' }));
  const next = now + DEV_AUTO_SYNC.firstRunAfterMs;
  return [
    `INSERT INTO import_auto_syncs (area, enabled, interval_minutes, source_url, sheet_path, sheet_name, fk_config, filter, next_run_at, updated_by, updated_at)
     VALUES (${text(DEV_AUTO_SYNC.area)}, 1, ${DEV_AUTO_SYNC.intervalMinutes}, NULL, ${text(DEV_AUTO_SYNC_KEY)}, ${text(DEV_AUTO_SYNC.fileName)}, ${fk}, '', ${next}, ${text(DEV_AUTO_SYNC.updatedBy)}, ${now})
     ON CONFLICT(area) DO UPDATE SET enabled = 1, interval_minutes = excluded.interval_minutes, source_url = NULL, sheet_path = excluded.sheet_path,
       sheet_name = excluded.sheet_name, fk_config = excluded.fk_config, filter = '', next_run_at = excluded.next_run_at,
       updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
  ];
}

const describeSummary = (s: SheetSummary) =>
  `${s.rows} rows (${Object.entries(s.kinds)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ')})`;

/**
 * Builds the example sheets from the dev racing database, stores them (and the auto-sync's copy)
 * in the migrate Worker's local R2, and enables the Sectional auto-sync. Idempotent: the keys are
 * fixed and the auto-sync row is upserted. Returns a line for the start-up log.
 */
export async function seedMigrateExampleSheets(databaseUrl: pg.ClientBase | string, persistTo = devStateDir('migrate')): Promise<string> {
  const sheets = await buildExampleSheets(databaseUrl);
  putLocalSheets(exampleObjects(sheets), persistTo);
  executeD1(MIGRATE_CONFIG, 'DB', autoSyncSql(), { persistTo });
  return `example sheets from ${addDays(sheets.today, -RECENT_DAYS)} to ${sheets.today}: barrier trials ${describeSummary(sheets.trials.summary)}; sectional times ${describeSummary(sheets.sectional.summary)}; Sectional auto-sync on it every ${DEV_AUTO_SYNC.intervalMinutes} min, first run in a minute`;
}

// npx tsx scripts/migrate-example-sheets.ts [DATABASE_URL] [--dry-run]: seeds (or with --dry-run only
// describes) the example sheets, against a running dev racing database.
if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const url = args.find((a) => !a.startsWith('--')) ?? process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:54329/postgres';
  const run = args.includes('--dry-run')
    ? buildExampleSheets(url).then(
        (s) => `barrier trials ${describeSummary(s.trials.summary)}; sectional times ${describeSummary(s.sectional.summary)}`,
      )
    : seedMigrateExampleSheets(url);
  run.then(
    (line) => console.log(line),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
