// What the example sheets are made of: their headings, the shape of their rows and summaries, and
// the drawing helpers both builders use.

import type { SheetCell } from '../../workers/migrate/src/imports/sheet/index.ts';
import { isoDate, parseIsoDate } from '../racing/calendar.ts';
import type { Random } from '../racing/random.ts';

export const TRIAL_HEADER = ['Date', 'Course', 'Heat', 'Distance', 'Horse', 'Jockey', 'Trainer', 'Barrier', 'Position', 'Margin', 'Time'];
export const SECTIONAL_HEADER = ['Date', 'Course', 'Race', 'Horse', 'Tab', 'Segment', 'Time'];

export const SEED = 20_260_421;

/** What a sheet holds: its rows, and how many of them are of each kind (new, existing, or a problem). */
export type SheetSummary = { rows: number; kinds: Record<string, number> };

export type ExampleSheets = {
  /** The day the window ends on and how many days before it were looked at. */
  today: string;
  trials: { rows: (SheetCell | Date)[][]; summary: SheetSummary };
  sectional: { rows: (SheetCell | Date)[][]; summary: SheetSummary };
};

export type Row = (SheetCell | Date)[];

export const hundredths = (value: number) => Math.round(value * 100) / 100;
export const dayCell = (date: string) => new Date(`${date}T00:00:00Z`);
export const addDays = (date: string, days: number) => isoDate(parseIsoDate(date) + days);

/** Same formula as the generator's winning time (scripts/racing/generate.ts). */
export function winningTime(distance: number, trackRating: number, random: Random): number {
  const metresPerSecond = 17.4 - (Math.max(0, distance - 1000) / 1000) * 0.55 - (trackRating - 4) * 0.18;
  return distance / metresPerSecond + random.normal(0, 0.5);
}

/** `count` items drawn without replacement, in their original order. */
export function sample<T>(items: readonly T[], count: number, random: Random): T[] {
  const picked = random.shuffle(items.map((_, i) => i)).slice(0, count);
  return picked.sort((a, b) => a - b).map((i) => items[i]!);
}

export function tally(kinds: Record<string, number>, kind: string, n = 1) {
  kinds[kind] = (kinds[kind] ?? 0) + n;
}
