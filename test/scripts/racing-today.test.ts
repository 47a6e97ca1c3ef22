import { describe, expect, it } from 'vitest';
import { msUntilNextRacingDay, racingToday } from '../../scripts/racing-today';

describe('racing day', () => {
  it('is the date in Sydney, which runs ahead of UTC', () => {
    expect(racingToday('Australia/Sydney', new Date('2026-11-23T12:59:00Z'))).toBe('2026-11-23');
    expect(racingToday('Australia/Sydney', new Date('2026-11-23T13:00:00Z'))).toBe('2026-11-24');
  });

  it('tells how long until the racing day changes', () => {
    // 23:50 in Sydney (daylight saving, UTC+11) is ten minutes before the next day.
    expect(msUntilNextRacingDay('Australia/Sydney', new Date('2026-11-23T12:50:00Z'))).toBe(10 * 60_000);
    expect(msUntilNextRacingDay('Australia/Sydney', new Date('2026-06-23T13:50:00Z'))).toBe(10 * 60_000);
    expect(msUntilNextRacingDay('UTC', new Date('2026-11-23T00:00:00.000Z'))).toBe(86_400_000);
    expect(msUntilNextRacingDay('UTC', new Date('2026-11-23T23:59:59.500Z'))).toBe(500);
  });
});
