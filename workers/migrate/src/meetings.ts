// The meetings comparison: a meeting of the source (the legacy racing system behind the active
// configuration: race_meeting, race_event, race_entry, venue, horse, jockey, trainer, trial_result)
// beside its counterpart in the destination (the racing database), field by field. Source values
// go through the legacy system's transforms first (DD/MM/YYYY dates, Y/N flags, one-letter codes,
// the same ones as its mapping document, scripts/racing/legacy-mapping.ts), so equal data compares
// equal. Every request value reaches SQL as a parameter.
// The meetings, races and runners are compared in meetings/.

import { HttpError } from '#shared/http-error.ts';
import { asDatabaseUnavailable } from '#shared/pg-errors.ts';
import type { ConfigurationView } from './configurations.ts';
import type { Reader, Row } from './engine/db.ts';

/** The legacy system's codes → the racing database's values (scripts/racing/legacy.ts, LEGACY_CODES). */
export const LEGACY_VALUES = {
  country: { AU: 'AUS', NZ: 'NZ' },
  category: { M: 'Metropolitan', P: 'Provincial', C: 'Country' },
  sex: { C: 'colt', F: 'filly', G: 'gelding', M: 'mare', H: 'horse' },
  discipline: { F: 'Flat', H: 'Hurdle', S: 'Steeplechase' },
} as const satisfies Record<string, Record<string, string>>;

/** Source meetings listed without ids: this many days back from today, and ahead. */
export const LIST_DAYS_BACK = 14;
export const LIST_DAYS_AHEAD = 7;
export const LIST_LIMIT = 200;

export type Value = string | number | boolean | null;
export type FieldComparison = { name: string; source: Value; destination: Value; same: boolean };
export type Status = 'matched' | 'source only' | 'destination only';
export type MatchedBy = 'id mapping' | 'date and venue';

export type SourceMeeting = {
  id: number;
  /** YYYY-MM-DD, or null when the text date is not a DD/MM/YYYY date. */
  date: string | null;
  rawDate: string;
  venueId: number;
  venueCode: string | null;
  venue: string | null;
  state: string | null;
  trackCondition: string;
  trackRating: number;
  isTrial: boolean | string;
  races: number;
  runners: number;
  trialRuns: number;
};

export type DestinationMeeting = {
  id: number;
  date: string;
  courseId: number;
  venue: string;
  state: string | null;
  trackCondition: string;
  trackRating: number;
  isTrial: boolean;
  races: number;
  runners: number;
  trialRuns: number;
};

export type MeetingPair = {
  source: SourceMeeting;
  destination: DestinationMeeting | null;
  /** How the destination meeting was found; null when it was named in the request or there is none. */
  matchedBy: MatchedBy | null;
  fields: FieldComparison[];
  differs: boolean;
};

export type RaceRow = {
  rsRaceId: number | null;
  qdgRaceId: number | null;
  raceNumber: number;
  status: Status;
  pairedBy: 'id mapping' | 'race number' | null;
  differs: boolean;
  fields: FieldComparison[];
};

export type RunnerRow = {
  rsRunnerId: number | null;
  qdgRunnerId: number | null;
  tabNumber: number;
  horse: string | null;
  status: Status;
  pairedBy: 'id mapping' | 'tab number' | 'horse' | null;
  differs: boolean;
  fields: FieldComparison[];
};

/** One parameterised statement on a database. */
export type Query = (text: string, values?: unknown[]) => Promise<Row[]>;

/** The two databases of one request, and the configuration whose id mappings apply. */
export type MeetingsDb = { source: Query; dest: Query; configId: number };

/**
 * The source's queries, with its failures said as the source's: unreachable → 503, a refused
 * login or unknown database → 502, a database without the legacy tables → 502.
 */
export function sourceQuery(sql: Reader, config: ConfigurationView): Query {
  const where = `${config.host}:${config.port}/${config.database} (configuration "${config.name}")`;
  return async (text, values) => {
    try {
      return await sql.query(text, values);
    } catch (err) {
      if (asDatabaseUnavailable(err))
        throw new HttpError(503, 'source_unavailable', `The source database ${where} is unreachable right now; try again shortly.`);
      const code = typeof err === 'object' && err !== null ? Reflect.get(err, 'code') : undefined;
      const message = err instanceof Error ? err.message : String(err);
      if (typeof code === 'string' && (code.startsWith('28') || code === '3D000')) {
        throw new HttpError(502, 'source_refused', `The source database ${where} refused the connection: ${message}`);
      }
      if (code === '42P01' || code === '42703') {
        throw new HttpError(
          502,
          'source_not_legacy',
          `The source database ${where} does not have the legacy racing tables the comparison reads (${message}).`,
        );
      }
      throw err;
    }
  };
}

// ---- value transforms ----------------------------------------------------------------------

/** DD/MM/YYYY → YYYY-MM-DD, or null when it is not a real date in that form. */
export function legacyDateToIso(text: string | null): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text?.trim() ?? '');
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const day = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === iso ? iso : null;
}

/** A Y/N flag as a boolean; anything else stays as it is (and so differs from any boolean). */
export function legacyFlag(text: string | null): boolean | string | null {
  if (text === null) return null;
  const flag = text.trim().toUpperCase();
  return flag === 'Y' ? true : flag === 'N' ? false : text;
}

/** A one-letter code as the racing database's value; an unknown code stays as it is. */
export function legacyCode(codes: Record<string, string>, text: string | null): string | null {
  if (text === null) return null;
  return Object.hasOwn(codes, text.trim()) ? codes[text.trim()]! : text;
}

/** The legacy jump time (`YYYY-MM-DD HH:MM`, UTC) as the comparison shows both sides' times. */
export function legacyTime(text: string | null): string | null {
  if (text === null) return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})/.exec(text.trim());
  return m ? `${m[1]} ${m[2]}` : text;
}

/** A numeric column (sent as text) as a number; null stays null. */
export function numberOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

export const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
export const trimmed = (value: unknown): string | null => text(value)?.trim() ?? null;

function same(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.trim() === b.trim();
  return a === b;
}

export function compareFields(pairs: [name: string, source: Value, destination: Value][]): FieldComparison[] {
  return pairs.map(([name, source, destination]) => ({ name, source, destination, same: same(source, destination) }));
}

/** One side's fields of a row that has no counterpart: nothing is the same. */
export function oneSided(pairs: [name: string, value: Value][], side: 'source' | 'destination'): FieldComparison[] {
  return pairs.map(([name, value]) => ({
    name,
    source: side === 'source' ? value : null,
    destination: side === 'destination' ? value : null,
    same: false,
  }));
}
