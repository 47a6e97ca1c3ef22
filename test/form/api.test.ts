import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchForm, json, query, sessionCookie, untilCacheHit } from './helpers';

const today = env.RACING_TODAY;
let cookie: string;
beforeAll(async () => {
  cookie = await sessionCookie();
});

describe('GET /form/api/dates/', () => {
  it('all race dates, newest first, as YYYY-MM-DD', async () => {
    const { res, body } = await json<{ dates: string[] }>('/form/api/dates/', cookie);
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(['dates']);
    const expected = await query<{ d: string }>('select distinct date::text as d from meetings where not is_trial order by 1 desc');
    expect(body.dates).toEqual(expected.map((r) => r.d));
    expect(body.dates).toContain(today);
    expect([...body.dates].sort().reverse()).toEqual(body.dates);
  });

  it('is answered from the cache the second time', async () => {
    await fetchForm('/form/api/dates/', { cookie });
    const res = await untilCacheHit('/form/api/dates/', cookie, 'dates');
    expect((await res.json<{ dates: string[] }>()).dates).toContain(today);
  });
});

describe('GET /form/api/meetings/', () => {
  it('the meetings of a date: {meeting_id (string), meeting_name}', async () => {
    const { res, body } = await json<{ meetings: { meeting_id: string; meeting_name: string }[] }>(
      `/form/api/meetings/?date=${today}`,
      cookie,
    );
    expect(res.status).toBe(200);
    const expected = await query<{ id: string; name: string }>(
      'select m.id::text as id, c.name from meetings m join courses c on c.id = m.course_id where m.date = $1 and not m.is_trial order by c.name, m.id',
      [today],
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(body.meetings).toEqual(expected.map((r) => ({ meeting_id: r.id, meeting_name: r.name })));
  });

  it.each(['', '?date=', '?date=2026-02-30', '?date=tomorrow', '?date=2026-1-1', `?date=${'9'.repeat(3000)}`, '?date=1899-12-31'])(
    'missing or bad date %s: 200 {meetings: []}',
    async (qs) => {
      const { res, body } = await json(`/form/api/meetings/${qs.slice(0, 200)}`, cookie);
      expect(res.status).toBe(200);
      expect(body).toEqual({ meetings: [] });
    },
  );
});

describe('GET /form/api/races/', () => {
  it('the races of a date with the spec’s fields and types', async () => {
    const { body } = await json<{ races: Record<string, unknown>[] }>(`/form/api/races/?date=${today}`, cookie);
    const [count] = await query<{ n: number }>(
      'select count(*)::int as n from races r join meetings m on m.id = r.meeting_id where m.date = $1 and not m.is_trial',
      [today],
    );
    expect(body.races).toHaveLength(count!.n);
    for (const race of body.races) {
      expect(Object.keys(race).sort()).toEqual(['class_level', 'course_name', 'distance', 'race_id', 'race_name', 'race_number']);
      expect(typeof race.race_id).toBe('number');
      expect(typeof race.race_number).toBe('number');
      expect(race.distance).toMatch(/^\d+m$/);
      expect(typeof race.class_level).toBe('string');
    }
  });

  it('filtered to one venue with meeting', async () => {
    const [meeting] = await query<{ id: number; name: string; n: number }>(
      `select m.id, c.name, (select count(*)::int from races r where r.meeting_id = m.id) as n
       from meetings m join courses c on c.id = m.course_id where m.date = $1 and not m.is_trial order by m.id limit 1`,
      [today],
    );
    const { body } = await json<{ races: { course_name: string; race_number: number }[] }>(
      `/form/api/races/?date=${today}&meeting=${meeting!.id}`,
      cookie,
    );
    expect(body.races).toHaveLength(meeting!.n);
    expect(new Set(body.races.map((r) => r.course_name))).toEqual(new Set([meeting!.name]));
    expect(body.races.map((r) => r.race_number)).toEqual([...Array(meeting!.n).keys()].map((i) => i + 1));
  });

  it.each(['', '?date=', '?date=2026-13-01', `?date=${today}&meeting=abc`, `?date=${today}&meeting=-4`, `?date=${today}&meeting=99999999`])(
    'missing or bad parameters %s: 200 {races: []}',
    async (qs) => {
      const { res, body } = await json(`/form/api/races/${qs}`, cookie);
      expect(res.status).toBe(200);
      expect(body).toEqual({ races: [] });
    },
  );
});

describe('GET /form/api/runners/', () => {
  it('a race’s runners (scratchings left out), by tab number, with the spec’s fields', async () => {
    const [race] = await query<{ id: number }>(
      'select race_id as id from runners group by race_id having bool_or(scratched) and bool_or(not scratched) order by race_id limit 1',
    );
    const expected = await query<{ horse_id: number; tab_number: number; name: string; barrier: number }>(
      'select ru.horse_id, ru.tab_number, h.name, ru.barrier from runners ru join horses h on h.id = ru.horse_id where race_id = $1 and not scratched order by tab_number',
      [race!.id],
    );
    const { body } = await json<{ runners: Record<string, unknown>[] }>(`/form/api/runners/?race_id=${race!.id}`, cookie);
    expect(body.runners.map((r) => [r.horse_id, r.tab_number, r.horse_name, r.barrier])).toEqual(
      expected.map((r) => [r.horse_id, r.tab_number, r.name, r.barrier]),
    );
    for (const runner of body.runners) {
      expect(Object.keys(runner).sort()).toEqual(['barrier', 'horse_id', 'horse_name', 'jockey', 'tab_number', 'trainer']);
      expect(typeof runner.jockey).toBe('string');
      expect(typeof runner.trainer).toBe('string');
    }
  });

  it.each(['', '?race_id=', '?race_id=abc', '?race_id=1.5', '?race_id=-1', '?race_id=0', '?race_id=99999999999', '?race_id=2147483647'])(
    'missing, invalid or unknown race id %s: 200 {runners: []}',
    async (qs) => {
      const { res, body } = await json(`/form/api/runners/${qs}`, cookie);
      expect(res.status).toBe(200);
      expect(body).toEqual({ runners: [] });
    },
  );
});

describe('GET /form/api/search/ (public)', () => {
  it('finds horses by name, prefix matches first: {horses: [{id, runner_name, country}], query, count}', async () => {
    const [horse] = await query<{ id: number; name: string; country: string }>('select id, name, country from horses order by id limit 1');
    const q = horse!.name.slice(0, 5);
    const { res, body } = await json<{ horses: { id: number; runner_name: string; country: string }[]; query: string; count: number }>(
      `/form/api/search/?q=${encodeURIComponent(q)}`,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['count', 'horses', 'query']);
    expect(body.query).toBe(q);
    expect(body.count).toBe(body.horses.length);
    expect(body.horses).toContainEqual({ id: horse!.id, runner_name: horse!.name, country: horse!.country });
    const prefixed = body.horses.map((h) => h.runner_name.toLowerCase().startsWith(q.toLowerCase()));
    expect(prefixed.indexOf(false) === -1 || !prefixed.slice(prefixed.indexOf(false)).includes(true)).toBe(true);
    for (const hit of body.horses) expect(hit.runner_name.toLowerCase()).toContain(q.toLowerCase());
  });

  it('matches inside names too, case-insensitively', async () => {
    const [horse] = await query<{ id: number; name: string }>("select id, name from horses where name like '% %' order by id limit 1");
    const word = horse!.name.split(' ')[1]!.toUpperCase();
    const { body } = await json<{ horses: { id: number }[] }>(`/form/api/search/?q=${encodeURIComponent(word)}`);
    expect(body.horses.length).toBeGreaterThan(0);
  });

  it.each([
    ['', ''],
    ['ab', 'ab'],
    ['%20ab%20', 'ab'],
  ])('fewer than 3 characters (q=%s): {horses: [], query, min_chars: 3}', async (q, trimmed) => {
    const { res, body } = await json(`/form/api/search/?q=${q}`);
    expect(res.status).toBe(200);
    expect(body).toEqual({ horses: [], query: trimmed, min_chars: 3 });
  });

  it('no q at all is a query of ""', async () => {
    const { body } = await json('/form/api/search/');
    expect(body).toEqual({ horses: [], query: '', min_chars: 3 });
  });

  it('% and _ are literal characters, not wildcards', async () => {
    const { body } = await json<{ horses: unknown[]; count: number }>('/form/api/search/?q=%25%25%25');
    expect(body.count).toBe(0);
    const under = await json<{ horses: unknown[] }>('/form/api/search/?q=___');
    expect(under.body.horses).toEqual([]);
  });

  it('a query over 100 characters: 400 with a message', async () => {
    const { res, body } = await json(`/form/api/search/?q=${'a'.repeat(101)}`);
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', message: 'q must be at most 100 characters' });
  });

  it('an address past 4096 characters: 414 with a JSON body', async () => {
    const { res, body } = await json(`/form/api/search/?q=abc&x=${'a'.repeat(5000)}`);
    expect(res.status).toBe(414);
    expect(body).toMatchObject({ error: 'uri_too_long' });
  });

  it('is cached by query', async () => {
    await fetchForm('/form/api/search/?q=lady');
    const res = await untilCacheHit('/form/api/search/?q=lady', undefined, 'search');
    expect(res.status).toBe(200);
  });
});

describe('JSON routes: the rest', () => {
  it('an unknown lookup is a JSON 404 (signed in)', async () => {
    const { res, body } = await json('/form/api/nothing/', cookie);
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ error: 'not_found' });
  });

  it('a path without its slash is sent to the one with it, query kept', async () => {
    const res = await fetchForm('/form/api/search?q=abc');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/form/api/search/?q=abc');
  });
});
