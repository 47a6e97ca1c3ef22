import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/cms/schema.ts';
import { openRacingDb, racingDbConfigSchema } from '#shared/pg.ts';
import { api, signIn, UNREACHABLE_RACING, withEnv } from './helpers';

const db = drizzle(env.DB, { schema });
const racing = openRacingDb(racingDbConfigSchema.parse(env));
const raw = async <T>(query: ReturnType<typeof sql>) => (await racing.execute(query)).rows as T[];

let cookie: string;
let siteIds: number[];

beforeAll(async () => {
  cookie = await signIn('lookups');
  const sites = await db
    .insert(schema.sites)
    .values([
      { name: 'Racing Daily', url: 'https://racingdaily.example' },
      { name: 'Form Weekly', url: 'https://formweekly.example' },
      { name: 'Country Tracks', url: 'https://countrytracks.example' },
    ])
    .returning();
  siteIds = sites.map((site) => site.id);
  await db.insert(schema.authors).values(AUTHORS.map((name) => ({ name })));
  await db.insert(schema.contributors).values(CONTRIBUTORS.map((name) => ({ name })));
  await db.insert(schema.newsTypes).values([
    { siteId: siteIds[0]!, name: 'Race Previews' },
    { siteId: siteIds[0]!, name: 'Breaking' },
    { siteId: siteIds[1]!, name: 'Form Analysis' },
    { siteId: siteIds[2]!, name: 'Picnic Races' },
  ]);
});

afterAll(async () => {
  await racing.$client.end();
});

const AUTHORS = ['Zoe Writer', 'Adam Scribe'];
const CONTRIBUTORS = ['Tipster Tom', 'Analyst Ann'];
const ownSites = <S extends { id: number }>(list: S[]) => list.filter((site) => siteIds.includes(site.id));
const ownNames = (list: { name: string }[], names: string[]) => list.map((row) => row.name).filter((name) => names.includes(name));

const get = async <T>(path: string) => {
  const res = await api(path, { cookie });
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return res.json<T>();
};

const expectBadRequest = async (path: string, field: string) => {
  const res = await api(path, { cookie });
  expect(res.status, path).toBe(400);
  const body = await res.json<{ error: string; issues: { field: string }[] }>();
  expect(body.error).toBe('invalid_request');
  expect(body.issues.map((i) => i.field)).toContain(field);
};

describe('D1 lookups', () => {
  // The project's files share one D1 (they take turns in one workerd): other files' sites, authors
  // and contributors may be listed too, so each list is read for this file's own rows, in order.
  it('lists sites, authors and contributors by name', async () => {
    const sites = ownSites(await get<{ id: number; name: string; url: string }[]>('/api/v1/lookup/sites'));
    expect(sites.map((s) => s.name)).toEqual(['Country Tracks', 'Form Weekly', 'Racing Daily']);
    expect(sites[0]).toEqual({ id: siteIds[2], name: 'Country Tracks', url: 'https://countrytracks.example' });
    expect(ownNames(await get<{ name: string }[]>('/api/v1/lookup/authors'), AUTHORS)).toEqual(['Adam Scribe', 'Zoe Writer']);
    expect(ownNames(await get<{ name: string }[]>('/api/v1/lookup/contributors'), CONTRIBUTORS)).toEqual(['Analyst Ann', 'Tipster Tom']);
  });

  it('bootstrap answers the lists asked for and leaves out unknown keys', async () => {
    const body = await get<Record<string, { id: number; name: string }[]>>(
      '/api/v1/lookup/bootstrap?keys=sites, contributors,horses,SITES,nonsense',
    );
    expect(Object.keys(body).sort()).toEqual(['contributors', 'sites']);
    expect(ownSites(body.sites ?? [])).toHaveLength(3);
    expect(ownNames(body.contributors!, CONTRIBUTORS)).toEqual(['Analyst Ann', 'Tipster Tom']);
    expect(await get('/api/v1/lookup/bootstrap?keys=authors,sites,contributors')).toEqual({
      authors: await get('/api/v1/lookup/authors'),
      sites: await get('/api/v1/lookup/sites'),
      contributors: await get('/api/v1/lookup/contributors'),
    });
    expect(await get('/api/v1/lookup/bootstrap')).toEqual({});
    expect(await get('/api/v1/lookup/bootstrap?keys=')).toEqual({});
  });

  it('news types of the given sites; [] for none', async () => {
    const both = await get<{ name: string; siteId: number }[]>(`/api/v1/lookup/news-types?siteIds=${siteIds[0]},${siteIds[1]}`);
    expect(both.map((n) => n.name)).toEqual(['Breaking', 'Form Analysis', 'Race Previews']);
    expect(new Set(both.map((n) => n.siteId))).toEqual(new Set([siteIds[0], siteIds[1]]));
    expect(await get(`/api/v1/lookup/news-types?siteIds=${siteIds[2]}`)).toEqual([
      expect.objectContaining({ name: 'Picnic Races', siteId: siteIds[2] }),
    ]);
    expect(await get('/api/v1/lookup/news-types?siteIds=')).toEqual([]);
    expect(await get('/api/v1/lookup/news-types')).toEqual([]);
    expect(await get('/api/v1/lookup/news-types?siteIds=999999')).toEqual([]);
  });

  it('answers 400 for malformed site ids and over-long keys', async () => {
    await expectBadRequest('/api/v1/lookup/news-types?siteIds=1,abc', 'query.siteIds');
    await expectBadRequest('/api/v1/lookup/news-types?siteIds=-1', 'query.siteIds');
    await expectBadRequest(`/api/v1/lookup/news-types?siteIds=${'1,'.repeat(2000)}`, 'query.siteIds');
    await expectBadRequest(`/api/v1/lookup/bootstrap?keys=${'x'.repeat(600)}`, 'query.keys');
  });
});

describe('racing lookups', () => {
  it('horses: names starting with the query first, then containing it; at most 20', async () => {
    const [horse] = await raw<{ id: number; name: string }>(sql`select id, name from horses order by id limit 1`);
    const needle = horse!.name.slice(0, 3);
    const found = await get<{ id: number; name: string; country: string; foalingYear: number; sex: string }[]>(
      `/api/v1/lookup/horses?query=${encodeURIComponent(needle.toUpperCase())}`,
    );
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThanOrEqual(20);
    const lower = needle.toLowerCase();
    for (const item of found) expect(item.name.toLowerCase()).toContain(lower);
    const ranks = found.map((item) => (item.name.toLowerCase().startsWith(lower) ? 0 : 1));
    expect(ranks).toEqual([...ranks].sort());
    const [{ count }] = (await raw<{ count: number }>(
      sql`select count(*)::int as count from horses where lower(name) like ${`%${lower}%`}`,
    )) as [{ count: number }];
    expect(found.length).toBe(Math.min(count, 20));
    const exact = await get<{ id: number }[]>(`/api/v1/lookup/horses?query=${encodeURIComponent(horse!.name)}`);
    expect(exact.map((h) => h.id)).toContain(horse!.id);
    expect(found[0]).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      country: expect.any(String),
      foalingYear: expect.any(Number),
      sex: expect.any(String),
    });
  });

  it('trainers and jockeys search the same way', async () => {
    const [trainer] = await raw<{ id: number; name: string }>(sql`select id, name from trainers order by id limit 1`);
    const trainers = await get<{ id: number; name: string; state: string }[]>(
      `/api/v1/lookup/trainers?query=${encodeURIComponent(trainer!.name)}`,
    );
    expect(trainers.map((t) => t.id)).toContain(trainer!.id);
    const [jockey] = await raw<{ id: number; name: string }>(sql`select id, name from jockeys order by id limit 1`);
    const jockeys = await get<{ id: number; apprentice: boolean }[]>(`/api/v1/lookup/jockeys?query=${encodeURIComponent(jockey!.name)}`);
    expect(jockeys.map((j) => j.id)).toContain(jockey!.id);
    expect(typeof jockeys[0]!.apprentice).toBe('boolean');
  });

  it('treats % and _ in the query as plain characters', async () => {
    expect(await get('/api/v1/lookup/horses?query=%25')).toEqual([]);
    expect(await get('/api/v1/lookup/trainers?query=_')).toEqual([]);
  });

  it('an empty query answers [] without touching the database', async () => {
    // With the racing database unreachable, any query would be a 503.
    for (const path of [
      '/api/v1/lookup/horses?query=',
      '/api/v1/lookup/horses',
      '/api/v1/lookup/trainers?query=%20%20',
      '/api/v1/lookup/jockeys?query=',
    ]) {
      const res = await withEnv(path, { headers: { cookie } }, UNREACHABLE_RACING);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toEqual([]);
    }
    const searched = await withEnv('/api/v1/lookup/horses?query=win', { headers: { cookie } }, UNREACHABLE_RACING);
    expect(searched.status).toBe(503);
    expect(await searched.json()).toMatchObject({ error: 'database_unavailable' });
  });

  it('answers 400 for an over-long query', async () => {
    await expectBadRequest(`/api/v1/lookup/horses?query=${'a'.repeat(101)}`, 'query.query');
  });

  it('courses: all by name, or those racing on a date with their meeting', async () => {
    const all = await get<{ id: number; name: string; meetingId: number | null }[]>('/api/v1/lookup/courses');
    const [{ count }] = (await raw<{ count: number }>(sql`select count(*)::int as count from courses`)) as [{ count: number }];
    expect(all).toHaveLength(count);
    expect(all.map((c) => c.name)).toEqual([...all.map((c) => c.name)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(all.every((c) => c.meetingId === null)).toBe(true);

    const [day] = await raw<{ date: string }>(
      sql`select date::text as date from meetings where not is_trial group by date order by count(*) desc, date limit 1`,
    );
    const expected = await raw<{ id: number; meeting_id: number }>(
      sql`select co.id, m.id as meeting_id from meetings m join courses co on co.id = m.course_id where m.date = ${day!.date}::date and not m.is_trial`,
    );
    const onDay = await get<{ id: number; meetingId: number }[]>(`/api/v1/lookup/courses?date=${day!.date}`);
    expect(onDay.map((c) => [c.id, c.meetingId]).sort()).toEqual(expected.map((r) => [r.id, r.meeting_id]).sort());
    expect(await get('/api/v1/lookup/courses?date=1999-01-01')).toEqual([]);
  });

  it('courses: 400 for a malformed or impossible date', async () => {
    for (const date of ['23-11-2026', '2026-02-30', '2026-13-01', 'today', '2026-1-1']) {
      await expectBadRequest(`/api/v1/lookup/courses?date=${date}`, 'query.date');
    }
  });

  it('races: of a course on a date, in race order; [] for an unknown course', async () => {
    const [meeting] = await raw<{ course_id: number; date: string }>(
      sql`select m.course_id, m.date::text as date from meetings m join races ra on ra.meeting_id = m.id where not m.is_trial group by m.id order by count(*) desc, m.id limit 1`,
    );
    const expected = await raw<{ id: number }>(
      sql`select ra.id from races ra join meetings m on m.id = ra.meeting_id where m.course_id = ${meeting!.course_id} and m.date = ${meeting!.date}::date and not m.is_trial order by ra.race_number`,
    );
    const races = await get<{ id: number; date: string; raceNumber: number; startTime: string | null }[]>(
      `/api/v1/lookup/races?courseId=${meeting!.course_id}&date=${meeting!.date}`,
    );
    expect(races.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    expect(races.every((r) => r.date === meeting!.date)).toBe(true);
    for (const race of races) if (race.startTime) expect(race.startTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(await get('/api/v1/lookup/races?courseId=999999')).toEqual([]);
  });

  it('races: without a date, the course’s races from 30 days back onwards, latest meeting first', async () => {
    const [course] = await raw<{ course_id: number }>(
      sql`select course_id from meetings where not is_trial and date >= ${env.RACING_TODAY}::date - 30 group by course_id order by count(*) desc limit 1`,
    );
    const expected = await raw<{ id: number }>(
      sql`select ra.id from races ra join meetings m on m.id = ra.meeting_id
          where m.course_id = ${course!.course_id} and not m.is_trial and m.date >= ${env.RACING_TODAY}::date - 30
          order by m.date desc, ra.race_number limit 200`,
    );
    const races = await get<{ id: number }[]>(`/api/v1/lookup/races?courseId=${course!.course_id}`);
    expect(expected.length).toBeGreaterThan(0);
    expect(races.map((r) => r.id)).toEqual(expected.map((r) => r.id));
  });

  it('races: 400 without courseId or with a bad one', async () => {
    await expectBadRequest('/api/v1/lookup/races', 'query.courseId');
    await expectBadRequest('/api/v1/lookup/races?courseId=', 'query.courseId');
    await expectBadRequest('/api/v1/lookup/races?courseId=abc', 'query.courseId');
    await expectBadRequest('/api/v1/lookup/races?courseId=12345678901', 'query.courseId');
    await expectBadRequest('/api/v1/lookup/races?courseId=1&date=2026-02-30', 'query.date');
  });
});
