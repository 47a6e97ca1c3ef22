// The id mappings (which destination row each source row became, per configuration and destination
// table) live in two tables of the destination, and every source id in exactly one of them:
// - `migration_id_ranges`: runs of consecutive integer source ids that became consecutive integer
//   destination ids (source_lo…source_hi → dest_lo…). A copy chunk of a table with integer keys
//   writes one such row per run — usually one per chunk — instead of one row per source row.
// - `migration_id_mappings`: one row per source id, for everything else (non-integer or composite
//   keys, non-integer destination keys, and pairs an operator confirmed or added).
// The helpers below are the only SQL that reads them, so lookups, listings and deletions see both.

/** A text source id as the integer the ranges hold, or NULL when it is not one (in canonical form). */
export function sourceNumber(sourceText: string): string {
  return `(CASE WHEN ${sourceText} ~ '^(0|-?[1-9][0-9]{0,17})$' THEN (${sourceText})::bigint END)`;
}

/** The range holding an integer source id: the greatest source_lo at or below it, checked against source_hi. */
function rangeLookup(config: string, table: string, sourceNum: string, select: (r: string) => string): string {
  return `(SELECT CASE WHEN r.source_hi >= ${sourceNum} THEN ${select('r')} END FROM migration_id_ranges r
    WHERE r.config_id = ${config} AND r.dest_table = ${table} AND r.source_lo <= ${sourceNum}
    ORDER BY r.source_lo DESC LIMIT 1)`;
}

export type LookupOptions = {
  /** The source id as an integer (sourceNumber of it), when the statement has it already. */
  sourceNum?: string;
  /** SQL booleans computed once per statement: false skips that table's index probe for every row. */
  rowsMayHold?: string;
  rangesMayHold?: string;
};

/**
 * The destination id (text) of one source id (a text SQL expression), or NULL: one index probe
 * into each table. Correlated on purpose, so the planner probes the index per row rather than
 * hashing every mapping of the table.
 */
export function mappedId(config: string, table: string, sourceText: string, options: LookupOptions = {}): string {
  const num = options.sourceNum ?? sourceNumber(sourceText);
  const row = `(SELECT m.dest_id FROM migration_id_mappings m WHERE m.config_id = ${config} AND m.dest_table = ${table} AND m.source_id = ${sourceText})`;
  const range = rangeLookup(config, table, num, (r) => `(${r}.dest_lo + (${num} - ${r}.source_lo))::text`);
  const guarded = (may: string | undefined, probe: string) => (may ? `CASE WHEN ${may} THEN ${probe} END` : probe);
  return `coalesce(${guarded(options.rowsMayHold, row)}, ${guarded(options.rangesMayHold, range)})`;
}

/** Whether the per-row table holds any mapping of (config, table): one probe, for rowsMayHold. */
export function rowsExist(config: string, table: string): string {
  return `EXISTS (SELECT 1 FROM migration_id_mappings m WHERE m.config_id = ${config} AND m.dest_table = ${table})`;
}

/** Whether the ranges hold any mapping of (config, table): one probe, for rangesMayHold. */
export function rangesExist(config: string, table: string): string {
  return `EXISTS (SELECT 1 FROM migration_id_ranges r WHERE r.config_id = ${config} AND r.dest_table = ${table})`;
}

/** Whether any range of (config, table) overlaps the integers lo…hi: two probes, for rangesMayHold. */
export function rangesOverlap(config: string, table: string, lo: string, hi: string): string {
  return `(EXISTS (SELECT 1 FROM migration_id_ranges r WHERE r.config_id = ${config} AND r.dest_table = ${table} AND r.source_lo BETWEEN ${lo} AND ${hi})
    OR coalesce(${rangeLookup(config, table, lo, () => 'true')}, false))`;
}

/** A `where` written against `$t.` for one of the two tables (alias m or r). */
const on = (where: string, alias: 'm' | 'r') => where.replace(/\$t\./g, `${alias}.`);

/**
 * Every mapping as rows (config_id, dest_table, source_id, source_table, dest_id, run_id), ranges
 * expanded; `where` filters both tables (columns config_id, dest_table, source_table, run_id).
 */
export function allMappings(where: string): string {
  return `(SELECT m.config_id, m.dest_table, m.source_id, m.source_table, m.dest_id, m.run_id FROM migration_id_mappings m WHERE ${on(where, 'm')}
    UNION ALL
    SELECT r.config_id, r.dest_table, (r.source_lo + g.o)::text, r.source_table, (r.dest_lo + g.o)::text, r.run_id
    FROM migration_id_ranges r CROSS JOIN LATERAL generate_series(0::bigint, r.source_hi - r.source_lo) AS g(o) WHERE ${on(where, 'r')})`;
}

/** How many source ids the mappings matching `where` cover (no expansion). */
export function countMappings(where: string): string {
  return `((SELECT count(*) FROM migration_id_mappings m WHERE ${on(where, 'm')})
    + (SELECT coalesce(sum(r.source_hi - r.source_lo + 1), 0) FROM migration_id_ranges r WHERE ${on(where, 'r')}))::int`;
}

/** The destination tables that the mappings matching `where` went into, one row each (dest_table), sorted. */
export function mappedDestTables(where: string): string {
  return `SELECT m.dest_table FROM migration_id_mappings m WHERE ${on(where, 'm')}
    UNION SELECT r.dest_table FROM migration_id_ranges r WHERE ${on(where, 'r')} ORDER BY dest_table`;
}

/** Deletes the mappings matching `where`, selecting how many source ids they covered (n). */
export function deleteMappings(where: string): string {
  return `WITH gone_rows AS (DELETE FROM migration_id_mappings m WHERE ${on(where, 'm')} RETURNING 1),
    gone_ranges AS (DELETE FROM migration_id_ranges r WHERE ${on(where, 'r')} RETURNING r.source_hi - r.source_lo + 1 AS n)
    SELECT ((SELECT count(*) FROM gone_rows) + (SELECT coalesce(sum(n), 0) FROM gone_ranges))::int AS n`;
}

/**
 * CTEs (a leading comma included) that record new mappings `from` (a CTE with src_id, dest_id as
 * text and src_num, dest_num as their bigint values, NULL when not integers in canonical form):
 * integer pairs as runs of consecutive ids in the ranges, the rest as rows. `mapped` counts them.
 * Parameters: config, dest table, source table, run id (SQL expressions).
 */
export function recordMappings(from: string, config: string, table: string, sourceTable: string, runId: string): string {
  return `,
  new_maps AS (
    SELECT src_id, dest_id, src_num AS s, dest_num AS d FROM ${from}
  ),
  -- The usual chunk of fresh rows is one run (consecutive ids on both sides: as many ids as the
  -- span, one difference between them): one aggregate, no sort.
  map_span AS (
    SELECT count(*) AS n, min(s) AS s_lo, max(s) AS s_hi, min(d - s) AS k_lo, max(d - s) AS k_hi
    FROM new_maps WHERE s IS NOT NULL AND d IS NOT NULL
  ),
  map_one AS (
    SELECT coalesce(n > 0 AND s_hi - s_lo + 1 = n AND k_lo = k_hi, false) AS yes FROM map_span
  ),
  map_steps AS (
    SELECT s, d, CASE WHEN s = lag(s) OVER w + 1 AND d = lag(d) OVER w + 1 THEN 0 ELSE 1 END AS step
    FROM new_maps WHERE s IS NOT NULL AND d IS NOT NULL AND NOT (SELECT yes FROM map_one) WINDOW w AS (ORDER BY s)
  ),
  map_runs AS (
    SELECT s, d, sum(step) OVER (ORDER BY s) AS run FROM map_steps
  ),
  range_maps AS (
    INSERT INTO migration_id_ranges (config_id, dest_table, source_lo, source_hi, dest_lo, source_table, run_id)
    SELECT ${config}, ${table}, s_lo, s_hi, s_lo + k_lo, ${sourceTable}, ${runId} FROM map_span WHERE (SELECT yes FROM map_one)
    UNION ALL
    SELECT ${config}, ${table}, min(s), max(s), min(d), ${sourceTable}, ${runId} FROM map_runs GROUP BY run
    ON CONFLICT DO NOTHING RETURNING source_hi - source_lo + 1 AS n
  ),
  row_maps AS (
    INSERT INTO migration_id_mappings (config_id, dest_table, source_id, source_table, dest_id, run_id)
    SELECT ${config}, ${table}, src_id, ${sourceTable}, dest_id, ${runId} FROM new_maps WHERE s IS NULL OR d IS NULL
    ON CONFLICT DO NOTHING RETURNING 1
  ),
  mapped AS (
    SELECT ((SELECT coalesce(sum(n), 0) FROM range_maps) + (SELECT count(*) FROM row_maps))::int AS n
  )`;
}

/**
 * CTEs (a trailing comma included) that re-point source ids held by ranges: each range holding one
 * of `sources` (a text[] expression) is deleted and its other source ids written to the per-row
 * table, so the same statement can then upsert `sources` there. Ranges are at most a chunk long.
 */
export function splitRanges(config: string, table: string, sources: string): string {
  return `hit AS (
    DELETE FROM migration_id_ranges r USING (SELECT DISTINCT ${sourceNumber('s')} AS n FROM unnest(${sources}) AS u(s)) x
    WHERE r.config_id = ${config} AND r.dest_table = ${table} AND x.n BETWEEN r.source_lo AND r.source_hi
    RETURNING r.*
  ),
  unsplit AS (
    INSERT INTO migration_id_mappings (config_id, dest_table, source_id, source_table, dest_id, run_id, created_at)
    SELECT h.config_id, h.dest_table, (h.source_lo + g.o)::text, h.source_table, (h.dest_lo + g.o)::text, h.run_id, h.created_at
    FROM hit h CROSS JOIN LATERAL generate_series(0::bigint, h.source_hi - h.source_lo) AS g(o)
    WHERE NOT (h.source_lo + g.o)::text = ANY(${sources})
    ON CONFLICT DO NOTHING RETURNING 1
  ),`;
}
