// Parsing of path and query values. Pages answer a bad value with a 400 page naming it; the
// JSON lookups treat it as missing (the spec's empty array).

import { isCalendarDate } from '#shared/dates.ts';

const MAX_ID = 2_147_483_647;

/** A database id (a positive int4), or undefined. */
export function parseId(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,10}$/.test(value)) return undefined;
  const id = Number(value);
  return id >= 1 && id <= MAX_ID ? id : undefined;
}

/** A real calendar date YYYY-MM-DD between 1900 and 2999, or undefined (2026-02-30 is not one). */
export function parseDate(value: string | undefined): string | undefined {
  if (value === undefined || !isCalendarDate(value)) return undefined;
  const year = Number(value.slice(0, 4));
  return year >= 1900 && year <= 2999 ? value : undefined;
}

export const TABS = ['brief', 'detailed'] as const;
export type Tab = (typeof TABS)[number];

export function parseTab(value: string | undefined): Tab | undefined {
  return TABS.find((tab) => tab === value);
}

export const COUNTRY_PATTERN = /^[A-Z]{2,3}$/;

/** Longest search query accepted; longer ones are a 400. */
export const MAX_QUERY_LENGTH = 100;

/** A form page's bad query values, as `name: problem` messages. */
export class BadParams {
  readonly problems: string[] = [];

  /** An optional value: absent or empty is fine, present and unparseable is a problem. */
  optional<T>(name: string, raw: string | undefined, parse: (value: string) => T | undefined, expected: string): T | undefined {
    if (raw === undefined || raw === '') return undefined;
    const value = parse(raw);
    if (value === undefined) this.problems.push(`${name} must be ${expected} (got “${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}”)`);
    return value;
  }
}
