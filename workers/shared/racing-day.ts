import { z } from 'zod';

/** An IANA time zone name the runtime knows; racing days begin at midnight there. */
export const racingTimezone = z
  .string()
  .default('Australia/Sydney')
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en-CA', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone');

/** Today's racing date (YYYY-MM-DD) in the given time zone. */
export function racingToday(timeZone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** A real calendar date written YYYY-MM-DD (no 2026-02-30). */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as yyyy-MM-dd')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'must be a real calendar date');
