import { Hono } from 'hono';
import type { FormEnv } from '../context.ts';
import { signedIn } from '../guards.ts';
import { racingToday } from '../config.ts';
import { BadParams, COUNTRY_PATTERN, parseDate, parseId } from '../params.ts';
import { cachedRaceCard } from '../data.ts';
import { countriesOn, dateStrip, guideMeetings } from '../queries.ts';
import { guidePage } from '../views/guide.tsx';
import { badRequestPage } from '../views/render.tsx';

export const guide = new Hono<FormEnv>();

guide.get('/', signedIn, async (c) => {
  const bad = new BadParams();
  const date =
    bad.optional('date', c.req.query('date'), parseDate, 'a real date as YYYY-MM-DD') ?? racingToday(c.var.config.RACING_TIMEZONE);
  const country = bad.optional(
    'country',
    c.req.query('country'),
    (v) => (COUNTRY_PATTERN.test(v) ? v : undefined),
    'a country code such as AUS or NZ',
  );
  const raceId = bad.optional('race', c.req.query('race'), parseId, 'a race id (a whole number from 1)');
  if (bad.problems.length > 0) return badRequestPage(c, bad.problems);

  const { cache, racing } = c.var;
  const [dates, countries, meetings] = await cache.getAll([
    { kind: 'date_strip', parts: { date }, load: () => dateStrip(racing, date) },
    { kind: 'countries', parts: { date }, load: () => countriesOn(racing, date) },
    { kind: 'guide', parts: { date, country }, load: () => guideMeetings(racing, date, country) },
  ] as const);
  const card = raceId === undefined ? undefined : await cachedRaceCard(c, raceId);
  return c.html(
    guidePage({
      selected_date: date,
      selected_country: country,
      dates: dates.includes(date) ? dates : [...dates, date].sort(),
      countries,
      meetings,
      selected_race_id: raceId,
      selected_race_number: card?.race?.race_number,
      selected_race_name: card?.race?.race_name,
      runners: card?.runners ?? [],
    }),
  );
});
