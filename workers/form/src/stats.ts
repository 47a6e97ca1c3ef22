import type { Run } from './runs.ts';

// Statistics of a list of runs. Only runs with a result count (acceptances and scratchings do
// not); a dead heat for first counts as a win for each horse in it.

export interface RunRecord {
  starts: number;
  wins: number;
  seconds: number;
  thirds: number;
  /** Wins / starts × 100, one decimal; 0 with no starts. */
  win_pct: number;
  /** (Wins + seconds + thirds) / starts × 100, one decimal. */
  place_pct: number;
}

export interface GroupRecord extends RunRecord {
  key: string;
}

export interface FormStats {
  career: RunRecord;
  by_country: GroupRecord[];
  by_jockey: GroupRecord[];
  by_trainer: GroupRecord[];
  by_distance: GroupRecord[];
  by_track: GroupRecord[];
  by_class: GroupRecord[];
  by_sot: GroupRecord[];
  last5: { figures: string; positions: number[]; record: RunRecord };
  preferred_range: (GroupRecord & { min_starts: number }) | null;
  consecutive_wins: { current: number; longest: number };
}

/** Distance ranges, in metres, inclusive. */
export const DISTANCE_RANGES = [
  { key: '≤1200 m', min: 0, max: 1200 },
  { key: '1201–1400 m', min: 1201, max: 1400 },
  { key: '1401–1600 m', min: 1401, max: 1600 },
  { key: '1601–2000 m', min: 1601, max: 2000 },
  { key: '2001–2400 m', min: 2001, max: 2400 },
  { key: '≥2401 m', min: 2401, max: Number.POSITIVE_INFINITY },
] as const;

/** A range needs this many starts before it can be the preferred one. */
export const PREFERRED_RANGE_MIN_STARTS = 3;

export const STAT_DEFINITIONS: Record<keyof FormStats, string> = {
  career:
    'Every run with a result: starts, wins (first, dead heats included), seconds, thirds, win % = wins ÷ starts, place % = (wins + seconds + thirds) ÷ starts, one decimal.',
  by_country: 'The same record per country of the course raced at.',
  by_jockey: 'The same record per rider.',
  by_trainer: 'The same record per trainer.',
  by_distance: `The same record per distance range: ${DISTANCE_RANGES.map((r) => r.key).join(', ')}.`,
  by_track: 'The same record per course.',
  by_class: 'The same record per race class (Maiden, Class 1, BM64, Listed, Group 1, …).',
  by_sot: 'The same record per state of the track: Firm, Good, Soft or Heavy, whatever the rating.',
  last5: 'The five latest runs with a result, latest first, as form figures (1–9, 0 for tenth or worse) and their record.',
  preferred_range: `The distance range with the best record among those with at least ${PREFERRED_RANGE_MIN_STARTS} starts: highest win %, then highest place %, then most starts, then the shorter range.`,
  consecutive_wins: 'Current = wins in a row up to the latest run with a result; longest = the longest such run of wins.',
};

export function distanceRange(distance: number): string {
  return (DISTANCE_RANGES.find((r) => distance >= r.min && distance <= r.max) ?? DISTANCE_RANGES[0]).key;
}

export function stateOfTrack(condition: string): string {
  return condition.trim().split(/\s+/)[0] || 'Unknown';
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10);

function record(runs: readonly Run[]): RunRecord {
  let wins = 0;
  let seconds = 0;
  let thirds = 0;
  for (const run of runs) {
    if (run.finishing_position === 1) wins++;
    else if (run.finishing_position === 2) seconds++;
    else if (run.finishing_position === 3) thirds++;
  }
  const starts = runs.length;
  return { starts, wins, seconds, thirds, win_pct: pct(wins, starts), place_pct: pct(wins + seconds + thirds, starts) };
}

/** Groups by key; largest groups first, then by key. */
function groupBy(runs: readonly Run[], keyOf: (run: Run) => string): GroupRecord[] {
  const groups = new Map<string, Run[]>();
  for (const run of runs) {
    const key = keyOf(run);
    const list = groups.get(key);
    if (list) list.push(run);
    else groups.set(key, [run]);
  }
  return [...groups].map(([key, list]) => ({ key, ...record(list) })).sort((a, b) => b.starts - a.starts || a.key.localeCompare(b.key));
}

/** Latest first: date, then race number as the day's order, then race id. */
function latestFirst(a: Run, b: Run): number {
  return b.date.localeCompare(a.date) || b.race_number - a.race_number || b.race_id - a.race_id;
}

export function formFigure(position: number): string {
  return position >= 10 ? '0' : String(position);
}

export function computeStats(allRuns: readonly Run[]): FormStats {
  const runs = allRuns.filter((run) => run.finishing_position !== null).sort(latestFirst);
  const byDistance = groupBy(runs, (run) => distanceRange(run.distance));
  const rangeOrder = (key: string) => DISTANCE_RANGES.findIndex((r) => r.key === key);
  const preferred = byDistance
    .filter((g) => g.starts >= PREFERRED_RANGE_MIN_STARTS)
    .sort((a, b) => b.win_pct - a.win_pct || b.place_pct - a.place_pct || b.starts - a.starts || rangeOrder(a.key) - rangeOrder(b.key))[0];

  let current = 0;
  while (current < runs.length && runs[current]!.finishing_position === 1) current++;
  let longest = 0;
  let streak = 0;
  for (const run of runs) {
    streak = run.finishing_position === 1 ? streak + 1 : 0;
    longest = Math.max(longest, streak);
  }

  const lastFive = runs.slice(0, 5);
  const positions = lastFive.map((run) => run.finishing_position!);
  return {
    career: record(runs),
    by_country: groupBy(runs, (run) => run.country),
    by_jockey: groupBy(runs, (run) => run.jockey ?? 'Rider not recorded'),
    by_trainer: groupBy(runs, (run) => run.trainer),
    by_distance: [...byDistance].sort((a, b) => rangeOrder(a.key) - rangeOrder(b.key)),
    by_track: groupBy(runs, (run) => run.course),
    by_class: groupBy(runs, (run) => run.class_level),
    by_sot: groupBy(runs, (run) => stateOfTrack(run.track_condition)),
    last5: { figures: positions.map(formFigure).join(''), positions, record: record(lastFive) },
    preferred_range: preferred ? { ...preferred, min_starts: PREFERRED_RANGE_MIN_STARTS } : null,
    consecutive_wins: { current, longest },
  };
}
