import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { SEGMENT_SECONDS } from '../workers/migrate/src/imports/areas.ts';
import { type SheetCell, writeCsv, writeXlsx } from '../workers/migrate/src/imports/sheet.ts';
import { racingToday } from './racing-today.ts';
import { isoDate, parseIsoDate } from './racing/calendar.ts';
import { runRace } from './racing/market.ts';
import { withClient } from './racing/pg-client.ts';
import { Random } from './racing/random.ts';
import { ROOT, devStateDir, executeD1, wranglerBin } from './workers.ts';

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

export const TRIAL_HEADER = ['Date', 'Course', 'Heat', 'Distance', 'Horse', 'Jockey', 'Trainer', 'Barrier', 'Position', 'Margin', 'Time'];
export const SECTIONAL_HEADER = ['Date', 'Course', 'Race', 'Horse', 'Tab', 'Segment', 'Time'];

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
const SEED = 20_260_421;
const RECENT_DAYS = 14;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What a sheet holds: its rows, and how many of them are of each kind (new, existing, or a problem). */
export type SheetSummary = { rows: number; kinds: Record<string, number> };

export type ExampleSheets = {
  /** The day the window ends on and how many days before it were looked at. */
  today: string;
  trials: { rows: (SheetCell | Date)[][]; summary: SheetSummary };
  sectional: { rows: (SheetCell | Date)[][]; summary: SheetSummary };
};

type Row = (SheetCell | Date)[];

const hundredths = (value: number) => Math.round(value * 100) / 100;
const dayCell = (date: string) => new Date(`${date}T00:00:00Z`);
const addDays = (date: string, days: number) => isoDate(parseIsoDate(date) + days);

/** Same formula as the generator's winning time (scripts/racing/generate.ts). */
function winningTime(distance: number, trackRating: number, random: Random): number {
  const metresPerSecond = 17.4 - (Math.max(0, distance - 1000) / 1000) * 0.55 - (trackRating - 4) * 0.18;
  return distance / metresPerSecond + random.normal(0, 0.5);
}

/** `count` items drawn without replacement, in their original order. */
function sample<T>(items: readonly T[], count: number, random: Random): T[] {
  const picked = random.shuffle(items.map((_, i) => i)).slice(0, count);
  return picked.sort((a, b) => a - b).map((i) => items[i]!);
}

function tally(kinds: Record<string, number>, kind: string, n = 1) {
  kinds[kind] = (kinds[kind] ?? 0) + n;
}

// Names that are unique (any case) in their table, so a sheet's name finds exactly one row.
const UNIQUE_NAMES = `
  unique_horses AS (SELECT lower(name) AS name FROM horses GROUP BY 1 HAVING count(*) = 1),
  unique_trainers AS (SELECT lower(name) AS name FROM trainers GROUP BY 1 HAVING count(*) = 1),
  unique_jockeys AS (SELECT lower(name) AS name FROM jockeys GROUP BY 1 HAVING count(*) = 1)`;

type TrialMeeting = {
  id: number;
  date: string;
  course: string;
  course_id: number;
  track_rating: number;
  last_heat: number;
  country: string;
  state: string | null;
};
type Candidate = { horse: string; trainer: string; jockey: string | null };

async function buildTrials(client: pg.ClientBase, from: string, today: string): Promise<ExampleSheets['trials']> {
  const random = new Random(SEED, 'migrate-example:barrier-trials');
  const kinds: Record<string, number> = {};
  const rows: Row[] = [];
  // Trial meetings of the window whose course name and day find exactly one trial meeting.
  const meetings = (
    await client.query<TrialMeeting>(
      `SELECT m.id, m.date::text AS date, c.name AS course, c.id AS course_id, m.track_rating, c.country, c.state,
              (SELECT coalesce(max(t.heat_number), 0) FROM trial_runs t WHERE t.meeting_id = m.id)::int AS last_heat
       FROM meetings m JOIN courses c ON c.id = m.course_id
       WHERE m.is_trial AND m.date BETWEEN $1::date AND $2::date
         AND NOT EXISTS (SELECT 1 FROM meetings m2 JOIN courses c2 ON c2.id = m2.course_id
                         WHERE m2.is_trial AND m2.date = m.date AND lower(c2.name) = lower(c.name) AND m2.id <> m.id)
       ORDER BY m.date, m.id`,
      [from, today],
    )
  ).rows;
  if (meetings.length === 0) return { rows, summary: { rows: 0, kinds } };
  const chosen = sample(meetings, Math.min(4, meetings.length), random);

  for (const meeting of chosen) {
    // Horses that raced in the meeting's state (or country) in the two months before it, with the
    // trainer and jockey of their latest run; none of them already at this meeting.
    const candidates = (
      await client.query<Candidate>(
        `WITH ${UNIQUE_NAMES},
         recent AS (
           SELECT DISTINCT ON (ru.horse_id) ru.horse_id, ru.trainer_id, ru.jockey_id
           FROM runners ru JOIN races r ON r.id = ru.race_id JOIN meetings m ON m.id = r.meeting_id JOIN courses c ON c.id = m.course_id
           WHERE m.date BETWEEN $2::date - 60 AND $2::date - 1 AND c.country = $3 AND c.state IS NOT DISTINCT FROM $4
           ORDER BY ru.horse_id, m.date DESC, ru.id DESC)
         SELECT h.name AS horse, t.name AS trainer, j.name AS jockey
         FROM recent x JOIN horses h ON h.id = x.horse_id JOIN trainers t ON t.id = x.trainer_id JOIN jockeys j ON j.id = x.jockey_id
         WHERE lower(h.name) IN (SELECT name FROM unique_horses) AND lower(t.name) IN (SELECT name FROM unique_trainers)
           AND lower(j.name) IN (SELECT name FROM unique_jockeys)
           AND NOT EXISTS (SELECT 1 FROM trial_runs tr WHERE tr.meeting_id = $1 AND tr.horse_id = x.horse_id)
         ORDER BY x.horse_id
         LIMIT 400`,
        [meeting.id, meeting.date, meeting.country, meeting.state],
      )
    ).rows;
    const heats = random.int(1, 2);
    const pool = random.shuffle([...candidates]);
    for (let h = 1; h <= heats && pool.length >= 4; h++) {
      const heatNumber = meeting.last_heat + h;
      const distance = random.pick([800, 850, 900, 950, 1000, 1000, 1050, 1100]);
      const size = Math.min(random.int(4, 8), pool.length);
      const field = pool.splice(0, size);
      const strengths = field.map(() => random.normal(0, 0.8));
      const trackRating = Math.min(Number(meeting.track_rating), 6);
      const winnerTime = winningTime(distance, trackRating, random) * 1.02;
      const barriers = random.shuffle(field.map((_, i) => i + 1));
      for (const { starter, position, margin } of runRace(strengths, random, 2.2)) {
        const runner = field[starter]!;
        rows.push([
          dayCell(meeting.date),
          meeting.course,
          heatNumber,
          distance,
          runner.horse,
          runner.jockey,
          runner.trainer,
          barriers[starter]!,
          position,
          margin,
          hundredths(winnerTime + margin * 0.17),
        ]);
        tally(kinds, 'new');
      }
    }
  }
  const firstNew = rows[0];

  // Runs already stored, exactly as they are: importing them changes nothing.
  const existing = (
    await client.query<{
      date: string;
      course: string;
      heat_number: number;
      distance: number;
      horse: string;
      jockey: string | null;
      trainer: string;
      barrier: number;
      finishing_position: number;
      margin: string;
      time_seconds: string;
    }>(
      `WITH ${UNIQUE_NAMES}
       SELECT m.date::text AS date, c.name AS course, tr.heat_number, tr.distance, h.name AS horse, j.name AS jockey, t.name AS trainer,
              tr.barrier, tr.finishing_position, tr.margin::text AS margin, tr.time_seconds::text AS time_seconds
       FROM trial_runs tr JOIN meetings m ON m.id = tr.meeting_id JOIN courses c ON c.id = m.course_id
       JOIN horses h ON h.id = tr.horse_id JOIN trainers t ON t.id = tr.trainer_id LEFT JOIN jockeys j ON j.id = tr.jockey_id
       WHERE tr.meeting_id = ANY($1::int[])
         AND lower(h.name) IN (SELECT name FROM unique_horses) AND lower(t.name) IN (SELECT name FROM unique_trainers)
         AND (j.id IS NULL OR lower(j.name) IN (SELECT name FROM unique_jockeys))
         AND (SELECT count(*) FROM trial_runs o WHERE o.meeting_id = tr.meeting_id AND o.heat_number = tr.heat_number AND o.horse_id = tr.horse_id) = 1
       ORDER BY tr.id`,
      [chosen.map((m) => m.id)],
    )
  ).rows;
  for (const run of sample(existing, Math.min(4, existing.length), random)) {
    rows.push([
      dayCell(run.date),
      run.course,
      run.heat_number,
      run.distance,
      run.horse,
      run.jockey,
      run.trainer,
      run.barrier,
      run.finishing_position,
      Number(run.margin),
      Number(run.time_seconds),
    ]);
    tally(kinds, 'existing (unchanged)');
  }

  if (firstNew) {
    const base = (horse: SheetCell, time: SheetCell, course: SheetCell = firstNew[1] as string, heat = Number(firstNew[2]) + 10): Row => [
      firstNew[0]!,
      course,
      heat,
      firstNew[3]!,
      horse,
      firstNew[5]!,
      firstNew[6]!,
      3,
      2,
      1.5,
      time,
    ];
    const meeting = chosen[0]!;
    // A horse name the database does not have.
    let unknown = 'Quillon Starwhisper';
    for (let n = 2; (await client.query('SELECT 1 FROM horses WHERE lower(name) = lower($1)', [unknown])).rowCount; n++)
      unknown = `Quillon Starwhisper ${n}`;
    rows.push(base(unknown, Number(firstNew[10]) + 0.26));
    tally(kinds, 'unknown horse');
    // A course with no barrier-trial meeting that day (a race meeting's course, when there is one).
    const noTrial = await client.query<{ name: string }>(
      `SELECT c.name FROM courses c
       WHERE NOT EXISTS (SELECT 1 FROM meetings m JOIN courses c2 ON c2.id = m.course_id WHERE m.is_trial AND m.date = $1::date AND lower(c2.name) = lower(c.name))
       ORDER BY (SELECT count(*) FROM meetings m WHERE m.course_id = c.id AND m.date = $1::date) DESC, c.id LIMIT 1`,
      [meeting.date],
    );
    if (noTrial.rows[0]) {
      rows.push([dayCell(meeting.date), noTrial.rows[0].name, 1, 1000, firstNew[4]!, firstNew[5]!, firstNew[6]!, 2, 1, 0, 59.84]);
      tally(kinds, 'unknown meeting');
    }
    rows.push(base(firstNew[4] as string, 'fast', undefined, Number(firstNew[2]) + 11));
    rows.push(base(firstNew[4] as string, 5, undefined, Number(firstNew[2]) + 12));
    tally(kinds, 'bad time', 2);
    // The first new run again: the same heat and horse.
    rows.push([...firstNew]);
    tally(kinds, 'duplicate');
  }
  return { rows, summary: { rows: rows.length, kinds } };
}

type SectionalRace = { id: number; meeting_id: number; race_number: number; date: string; course: string; track_rating: number };
type SectionalRunner = { race_id: number; horse: string; tab_number: number; margin: string };

async function buildSectional(client: pg.ClientBase, from: string, today: string): Promise<ExampleSheets['sectional']> {
  const random = new Random(SEED, 'migrate-example:sectional');
  const kinds: Record<string, number> = {};
  const rows: Row[] = [];
  const meetingUnique = `NOT EXISTS (SELECT 1 FROM meetings m2 JOIN courses c2 ON c2.id = m2.course_id
                          WHERE NOT m2.is_trial AND m2.date = m.date AND lower(c2.name) = lower(c.name) AND m2.id <> m.id)`;
  // Races of the window that have been run (results in) and have no sectional times yet.
  const untimed = (
    await client.query<SectionalRace>(
      `SELECT r.id, r.meeting_id, r.race_number, m.date::text AS date, c.name AS course, m.track_rating
       FROM races r JOIN meetings m ON m.id = r.meeting_id JOIN courses c ON c.id = m.course_id
       WHERE NOT m.is_trial AND m.date BETWEEN $1::date AND $2::date AND ${meetingUnique}
         AND EXISTS (SELECT 1 FROM runners ru WHERE ru.race_id = r.id AND ru.finishing_position IS NOT NULL)
         AND NOT EXISTS (SELECT 1 FROM runners ru JOIN sectional_times s ON s.runner_id = ru.id WHERE ru.race_id = r.id)
       ORDER BY m.date, m.id, r.race_number`,
      [from, today],
    )
  ).rows;
  if (untimed.length === 0) return { rows, summary: { rows: 0, kinds } };
  const races = sample(untimed, Math.min(4, untimed.length), random);
  const runners = (
    await client.query<SectionalRunner>(
      `SELECT ru.race_id, h.name AS horse, ru.tab_number, ru.margin::text AS margin
       FROM runners ru JOIN horses h ON h.id = ru.horse_id
       WHERE ru.race_id = ANY($1::int[]) AND NOT ru.scratched AND ru.margin IS NOT NULL
         AND (SELECT count(*) FROM runners o JOIN horses oh ON oh.id = o.horse_id WHERE o.race_id = ru.race_id AND lower(oh.name) = lower(h.name)) = 1
       ORDER BY ru.race_id, ru.finishing_position, ru.tab_number`,
      [races.map((r) => r.id)],
    )
  ).rows;
  for (const race of races) {
    // The generator's sectionals(): the race's last 600 m by the going, each runner's by its margin.
    const lastSix = 34 + (Number(race.track_rating) - 4) * 0.45 + random.normal(0, 0.6);
    for (const runner of runners.filter((r) => r.race_id === race.id)) {
      const margin = Number(runner.margin);
      const l600 = lastSix + margin * 0.17 * (0.3 + random.next() * 0.6) + random.normal(0, 0.15);
      const l400 = l600 * (0.645 + random.next() * 0.02);
      const l200 = l400 * (0.495 + random.next() * 0.025);
      for (const [segment, time] of [
        ['L600', l600],
        ['L400', l400],
        ['L200', l200],
      ] as const) {
        rows.push([
          dayCell(race.date),
          race.course,
          Number(race.race_number),
          runner.horse,
          Number(runner.tab_number),
          segment,
          hundredths(time),
        ]);
        tally(kinds, 'new');
      }
    }
  }

  // Times already stored, exactly as they are: one runner's three segments.
  const stored = (
    await client.query<{
      date: string;
      course: string;
      race_number: number;
      horse: string;
      tab_number: number;
      segment: string;
      time_seconds: string;
      runner_id: number;
    }>(
      `SELECT m.date::text AS date, c.name AS course, r.race_number, h.name AS horse, ru.tab_number, s.segment, s.time_seconds::text AS time_seconds, ru.id AS runner_id
       FROM sectional_times s JOIN runners ru ON ru.id = s.runner_id JOIN races r ON r.id = ru.race_id JOIN meetings m ON m.id = r.meeting_id
       JOIN courses c ON c.id = m.course_id JOIN horses h ON h.id = ru.horse_id
       WHERE NOT m.is_trial AND m.date BETWEEN $1::date AND $2::date AND ${meetingUnique} AND NOT ru.scratched
         AND (SELECT count(*) FROM sectional_times o WHERE o.runner_id = s.runner_id AND o.segment = s.segment) = 1
         AND (SELECT count(*) FROM runners o JOIN horses oh ON oh.id = o.horse_id WHERE o.race_id = ru.race_id AND lower(oh.name) = lower(h.name)) = 1
       ORDER BY ru.id, s.segment DESC
       LIMIT 300`,
      [from, today],
    )
  ).rows;
  const storedRunners = [...new Set(stored.map((s) => s.runner_id))];
  if (storedRunners.length) {
    const runnerId = storedRunners[random.int(0, storedRunners.length - 1)];
    for (const s of stored.filter((x) => x.runner_id === runnerId)) {
      rows.push([dayCell(s.date), s.course, Number(s.race_number), s.horse, Number(s.tab_number), s.segment, Number(s.time_seconds)]);
      tally(kinds, 'existing (unchanged)');
    }
  }

  const first = rows[0];
  const race = races[0]!;
  if (first) {
    // A horse that ran that window, but not in this race.
    const other = runners.find(
      (r) => r.race_id !== race.id && !runners.some((x) => x.race_id === race.id && x.horse.toLowerCase() === r.horse.toLowerCase()),
    );
    const outsider =
      other?.horse ??
      (
        await client.query<{ name: string }>(
          `SELECT h.name FROM horses h WHERE NOT EXISTS (SELECT 1 FROM runners ru WHERE ru.race_id = $1 AND ru.horse_id = h.id) ORDER BY h.id LIMIT 1`,
          [race.id],
        )
      ).rows[0]?.name ??
      'Quillon Starwhisper';
    rows.push([first[0]!, first[1]!, first[2]!, outsider, 14, 'L600', 35.12]);
    tally(kinds, 'unknown horse');
    const last = await client.query<{ n: number }>('SELECT max(race_number)::int AS n FROM races WHERE meeting_id = $1', [race.meeting_id]);
    rows.push([first[0]!, first[1]!, Math.min(30, Number(last.rows[0]?.n ?? 10) + 1), first[3]!, first[4]!, 'L600', 34.9]);
    tally(kinds, 'unknown race');
    const [lo, hi] = SEGMENT_SECONDS.L200!;
    rows.push([first[0]!, first[1]!, first[2]!, first[3]!, first[4]!, 'L200', hundredths(hi + (hi - lo) * 0.7)]);
    tally(kinds, 'bad time');
    rows.push([first[0]!, first[1]!, first[2]!, first[3]!, first[4]!, 'L900', 52.4]);
    tally(kinds, 'bad segment');
    rows.push([...first]);
    tally(kinds, 'duplicate');
  }
  return { rows, summary: { rows: rows.length, kinds } };
}

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
