// Calendar arithmetic on whole days (days since 1970-01-01, UTC), so generation never depends on
// the machine's clock or time zone.

const MS_PER_DAY = 86_400_000;

export type Day = number;

export function parseIsoDate(iso: string): Day {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!match) throw new Error(`expected a date as YYYY-MM-DD, got "${iso}"`);
  const [, y, m, d] = match.map(Number);
  const ms = Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 1);
  if (isoDate(ms / MS_PER_DAY) !== iso) throw new Error(`not a calendar date: "${iso}"`);
  return ms / MS_PER_DAY;
}

export function isoDate(day: Day): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

export function dayOfDate(year: number, month: number, dayOfMonth: number): Day {
  return Date.UTC(year, month - 1, dayOfMonth) / MS_PER_DAY;
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(day: Day): number {
  return (((day + 4) % 7) + 7) % 7;
}

export function yearOf(day: Day): number {
  return new Date(day * MS_PER_DAY).getUTCFullYear();
}

/** 1 … 12. */
export function monthOf(day: Day): number {
  return new Date(day * MS_PER_DAY).getUTCMonth() + 1;
}

/** Racing seasons, and so horses' ages, turn over on 1 August. */
export function seasonYear(day: Day): number {
  return monthOf(day) >= 8 ? yearOf(day) : yearOf(day) - 1;
}

function firstSunday(year: number, month: number): Day {
  const first = dayOfDate(year, month, 1);
  return first + ((7 - weekday(first)) % 7);
}

function lastSunday(year: number, month: number): Day {
  const last = dayOfDate(year, month + 1, 1) - 1;
  return last - weekday(last);
}

export type TimeZone = 'AEST' | 'AEST-DST' | 'ACST' | 'ACST-DST' | 'AWST' | 'NZST-DST';

/** Minutes ahead of UTC on that day (racing is at midday, so the hour of the switch is moot). */
export function utcOffsetMinutes(zone: TimeZone, day: Day): number {
  const year = yearOf(day);
  const australianSummer = day < firstSunday(year, 4) || day >= firstSunday(year, 10);
  const newZealandSummer = day < firstSunday(year, 4) || day >= lastSunday(year, 9);
  switch (zone) {
    case 'AEST':
      return 600;
    case 'AEST-DST':
      return australianSummer ? 660 : 600;
    case 'ACST':
      return 570;
    case 'ACST-DST':
      return australianSummer ? 630 : 570;
    case 'AWST':
      return 480;
    case 'NZST-DST':
      return newZealandSummer ? 780 : 720;
  }
}

/** ISO timestamp in UTC for a local wall-clock time on a day. */
export function utcTimestamp(day: Day, localMinutes: number, zone: TimeZone): string {
  const ms = (day * 1440 + localMinutes - utcOffsetMinutes(zone, day)) * 60_000;
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
