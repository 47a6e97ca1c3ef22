import { Hono } from 'hono';
import { errorBody } from '#shared/errors.ts';
import { hasNul, NUL_MESSAGE } from '#shared/text.ts';
import type { FormEnv } from '../context.ts';
import { anonymous } from '#shared/guard.ts';
import { signedIn } from '../guards.ts';
import { MAX_QUERY_LENGTH, parseDate, parseId } from '../params.ts';
import { cachedRaceCard, cachedSearch } from '../data.ts';
import { meetingsOn, raceDates, racesOn } from '../queries.ts';

// JSON lookups. A missing or unusable parameter is not an error here: the spec answers it with
// an empty array under the response's key.
export const api = new Hono<FormEnv>();

export const MIN_SEARCH_CHARS = 3;

api.get('/dates/', signedIn, async (c) => {
  const dates = await c.var.cache.get('dates', {}, () => raceDates(c.var.racing));
  return c.json({ dates });
});

api.get('/meetings/', signedIn, async (c) => {
  const date = parseDate(c.req.query('date'));
  if (!date) return c.json({ meetings: [] });
  return c.json({ meetings: await c.var.cache.get('meetings', { date }, () => meetingsOn(c.var.racing, date)) });
});

api.get('/races/', signedIn, async (c) => {
  const date = parseDate(c.req.query('date'));
  const meetingParam = c.req.query('meeting');
  const meeting = meetingParam === undefined || meetingParam === '' ? undefined : parseId(meetingParam);
  // A meeting that is given but not an id matches no venue.
  if (!date || (meetingParam && meeting === undefined)) return c.json({ races: [] });
  return c.json({ races: await c.var.cache.get('races', { date, meeting }, () => racesOn(c.var.racing, date, meeting)) });
});

api.get('/runners/', signedIn, async (c) => {
  const raceId = parseId(c.req.query('race_id'));
  if (raceId === undefined) return c.json({ runners: [] });
  const card = await cachedRaceCard(c, raceId);
  const runners = card.runners
    .filter((r) => !r.scratched)
    .map((r) => ({
      horse_id: r.horse_id,
      tab_number: r.tab_number,
      horse_name: r.horse_name,
      jockey: r.jockey ?? '',
      trainer: r.trainer,
      barrier: r.barrier,
    }));
  return c.json({ runners });
});

/** Public. Also used by the search box on every page. */
api.get('/search/', anonymous, async (c) => {
  const query = (c.req.query('q') ?? '').trim();
  if (query.length > MAX_QUERY_LENGTH) {
    return c.json(errorBody(c, 'invalid_request', `q must be at most ${MAX_QUERY_LENGTH} characters`), 400);
  }
  if (hasNul(query)) return c.json(errorBody(c, 'invalid_request', `q ${NUL_MESSAGE}`), 400);
  if ([...query].length < MIN_SEARCH_CHARS) return c.json({ horses: [], query, min_chars: MIN_SEARCH_CHARS });
  const horses = await cachedSearch(c, query);
  return c.json({ horses, query, count: horses.length });
});
