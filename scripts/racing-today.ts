/** The racing day in the business's timezone (Australian racing runs on Sydney time by default). */
export function racingToday(timeZone = process.env.RACING_TIMEZONE ?? 'Australia/Sydney', now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** Milliseconds until the racing day changes (the next midnight in the timezone). */
export function msUntilNextRacingDay(timeZone = process.env.RACING_TIMEZONE ?? 'Australia/Sydney', now = new Date()): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
    .formatToParts(now)
    .reduce<Record<string, number>>((acc, part) => (part.type === 'literal' ? acc : { ...acc, [part.type]: Number(part.value) }), {});
  const elapsed = ((parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)) * 1000 + now.getMilliseconds();
  return 86_400_000 - elapsed;
}
