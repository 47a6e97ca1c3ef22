import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { asDatabaseUnavailable, sqlStateOf } from '#shared/pg-errors.ts';
import { pgDate, pgInt, pgNumeric, type RacingReads, selectOne, typedSql } from '#shared/pg.ts';
import { raceCardJson, raceCardRunnerSchema } from './queries.ts';
import { runSchema, runsOf } from './runs.ts';

// The runner page's data: one statement for the horse, its runs and trials and the toolbar, and
// the horse's sales. On a first view both are read in that one statement (one round trip); when
// only one of them is missing from the cache (the page data keeps for 120 s, the sales for 600 s),
// only that one is read.

const horseSchema = z.object({
  id: pgInt,
  name: z.string(),
  country: z.string(),
  foaling_year: pgInt,
  sex: z.string(),
  sire: z.string(),
  dam: z.string(),
});
export type Horse = z.output<typeof horseSchema>;

const trialRunSchema = z.object({
  date: pgDate,
  course: z.string(),
  heat_number: pgInt,
  distance: pgInt,
  jockey: z.string().nullable(),
  barrier: pgInt,
  finishing_position: pgInt,
  margin: pgNumeric,
  time_seconds: pgNumeric,
});
export type TrialRun = z.output<typeof trialRunSchema>;

const toolbarMeetingSchema = z.object({ meeting_id: pgInt, meeting_name: z.string() });
type ToolbarMeeting = z.output<typeof toolbarMeetingSchema>;

const toolbarRaceSchema = z.object({ race_id: pgInt, race_number: pgInt, race_name: z.string(), distance: pgInt, class_level: z.string() });
type ToolbarRace = z.output<typeof toolbarRaceSchema>;

/** The runner page's one row. */
const runnerPageRow = z.object({
  horse: horseSchema.nullable(),
  runs: z.array(runSchema),
  trial_runs: z.array(trialRunSchema),
  selected_date: pgDate.nullable(),
  selected_meeting_id: pgInt.nullable(),
  selected_race_id: pgInt.nullable(),
  date_meetings: z.array(toolbarMeetingSchema),
  meeting_races: z.array(toolbarRaceSchema),
  selected_race_runners: z.array(raceCardRunnerSchema),
});
export type RunnerPageData = z.output<typeof runnerPageRow>;

export interface RunnerPageQuery {
  horseId: number;
  date?: string;
  meetingId?: number;
  raceId?: number;
}

/**
 * The runner page in one statement: horse, runs, trials, and the toolbar. The toolbar's race is
 * the `race` asked for; else the horse's run on `date`; else (no date) its latest run. Its meeting
 * and date follow from the race; without a race, the `meeting` asked for or the date's first one.
 */
export function runnerPage(db: RacingReads, q: RunnerPageQuery): Promise<RunnerPageData> {
  return selectOne(db, typedSql('the runner page', runnerPageRow, runnerPageSql(q)));
}

/**
 * The runner page's statement; with `sales` (a JSON array expression, see salesJson) the horse's
 * sales come back in the same row. Exported for the benchmark, which runs the same SQL in psql.
 */
export function runnerPageSql(q: RunnerPageQuery, sales?: SQL): SQL {
  const date = q.date ?? null;
  return sql`with
    runs as (${runsOf(sql`ru.horse_id = ${q.horseId}`)}),
    sel_race as (select coalesce(
      (select ra.id from races ra join meetings m on m.id = ra.meeting_id
        where ra.id = ${q.raceId ?? null}::int and (${date}::date is null or m.date = ${date}::date)
          and (${q.meetingId ?? null}::int is null or m.id = ${q.meetingId ?? null}::int)),
      (select race_id from runs where date = ${date}::text
        and (${q.meetingId ?? null}::int is null or meeting_id = ${q.meetingId ?? null}::int) order by race_number limit 1),
      (select race_id from runs where ${date}::date is null order by date desc, race_number desc limit 1)
    ) as id),
    sel_meeting as (select coalesce(
      (select meeting_id from races where id = (select id from sel_race)),
      (select m.id from meetings m where m.id = ${q.meetingId ?? null}::int and m.date = ${date}::date and not m.is_trial),
      (select m.id from meetings m join courses co on co.id = m.course_id
        where m.date = ${date}::date and not m.is_trial order by co.name, m.id limit 1)
    ) as id),
    sel_date as (select coalesce((select date from meetings where id = (select id from sel_meeting)), ${date}::date) as date)
    select
      (select row_to_json(x) from (select id, name, country, foaling_year, sex, sire, dam from horses where id = ${q.horseId}) x) as horse,
      (select coalesce(json_agg(runs), '[]'::json) from runs) as runs,
      (select coalesce(json_agg(x), '[]'::json) from (
        select m.date::text as date, co.name as course, tr.heat_number, tr.distance, j.name as jockey, tr.barrier,
               tr.finishing_position, tr.margin, tr.time_seconds
        from trial_runs tr join meetings m on m.id = tr.meeting_id join courses co on co.id = m.course_id
        left join jockeys j on j.id = tr.jockey_id
        where tr.horse_id = ${q.horseId} order by m.date desc, tr.heat_number desc limit 50) x) as trial_runs,
      (select date::text from sel_date) as selected_date,
      (select id from sel_meeting) as selected_meeting_id,
      (select id from sel_race) as selected_race_id,
      (select coalesce(json_agg(x order by x.meeting_name, x.meeting_id), '[]'::json) from (
        select m.id as meeting_id, co.name as meeting_name from meetings m join courses co on co.id = m.course_id
        where m.date = (select date from sel_date) and not m.is_trial) x) as date_meetings,
      (select coalesce(json_agg(x order by x.race_number), '[]'::json) from (
        select id as race_id, race_number, name as race_name, distance, class as class_level
        from races where meeting_id = (select id from sel_meeting)) x) as meeting_races,
      ${raceCardJson(sql`(select id from sel_race)`)} as selected_race_runners${
        sales
          ? sql`,
      ${sales} as sales`
          : sql``
      }`;
}

const saleSchema = z.object({
  sale_name: z.string(),
  lot: pgInt,
  sale_date: pgDate,
  price: pgInt,
  vendor: z.string(),
  purchaser: z.string(),
});
export type Sale = z.output<typeof saleSchema>;

/** Where the sales come from: a JSON array expression over the horse's id. Replaceable in tests. */
export type SalesSql = (horseId: number) => SQL;

/** A horse's sales as a JSON array, latest first. */
export const salesJson: SalesSql = (horseId) =>
  sql`(select coalesce(json_agg(json_build_object(
      'sale_name', s.sale_name, 'lot', s.lot, 'sale_date', s.sale_date::text, 'price', s.price,
      'vendor', s.vendor, 'purchaser', s.purchaser
    ) order by s.sale_date desc, s.id desc), '[]'::json)
    from sales s where s.horse_id = ${horseId})`;

const salesRow = z.object({ sales: z.array(saleSchema) });
const runnerPageWithSalesRow = runnerPageRow.extend(salesRow.shape);

/** The runner page's two parts, as the data cache keeps them. */
export interface RunnerParts {
  page: RunnerPageData;
  sales: Sale[];
}

/** A part as loaded (the data cache's LoadedPart): `store: false` for a fallback never cached. */
type Loaded<T> = { value: T; store: boolean };
type LoadedRunnerParts = { page?: Loaded<RunnerPageData>; sales?: Loaded<Sale[]> };

export interface RunnerPartsOptions {
  salesSql?: SalesSql;
  /** Told of a failed sales read; the page then shows no sales, and they are not cached. */
  onSalesError: (err: unknown) => void;
}

/**
 * The parts the cache lacks. Both: one statement. Should that statement fail with a query error
 * (not an outage), the page data is read alone and the sales apart, so that a failing sales read
 * leaves the page up with no sales (the spec). One part: that part's statement.
 */
export async function loadRunnerParts(
  db: RacingReads,
  q: RunnerPageQuery,
  missing: readonly (keyof RunnerParts)[],
  options: RunnerPartsOptions,
): Promise<LoadedRunnerParts> {
  const salesSql = options.salesSql ?? salesJson;
  const readSales = async (): Promise<Loaded<Sale[]>> => {
    try {
      const row = await selectOne(db, typedSql('the sales', salesRow, sql`select ${salesSql(q.horseId)} as sales`));
      return { value: row.sales, store: true };
    } catch (err) {
      options.onSalesError(err);
      return { value: [], store: false };
    }
  };
  if (!missing.includes('page')) return { sales: await readSales() };
  if (!missing.includes('sales')) return { page: { value: await runnerPage(db, q), store: true } };
  try {
    const { sales, ...page } = await selectOne(
      db,
      typedSql('the runner page with sales', runnerPageWithSalesRow, runnerPageSql(q, salesSql(q.horseId))),
    );
    return { page: { value: page, store: true }, sales: { value: sales, store: true } };
  } catch (err) {
    if (sqlStateOf(err) === undefined || asDatabaseUnavailable(err)) throw err;
  }
  const [page, sales] = await Promise.all([runnerPage(db, q), readSales()]);
  return { page: { value: page, store: true }, sales };
}
