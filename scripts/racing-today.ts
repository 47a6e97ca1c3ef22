/** The racing day in the business's timezone (Australian racing runs on Sydney time by default). */
export function racingToday(timeZone = process.env.RACING_TIMEZONE ?? 'Australia/Sydney', now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}
