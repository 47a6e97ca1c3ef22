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
