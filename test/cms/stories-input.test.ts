import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers';
import { createStory, db, directSession, lookups, type Lookups } from './story-fixtures';

let cookie: string;
let l: Lookups;
beforeAll(async () => {
  cookie = await directSession('ADMIN');
  l = await lookups();
});

const storyCount = async () => (await db.all<{ n: number }>(sql`select count(*) as n from stories`))[0]!.n;

describe('story body validation', () => {
  const valid = () => ({ title: 'A title', siteIds: [l.siteA] });
  it.each<[string, Record<string, unknown>, string]>([
    ['no title', { title: undefined }, 'json.title'],
    ['blank title', { title: '   ' }, 'json.title'],
    ['title too long', { title: 'x'.repeat(301) }, 'json.title'],
    ['numeric title', { title: 42 }, 'json.title'],
    ['summary not text', { summary: ['a'] }, 'json.summary'],
    ['content not text', { content: { html: 'x' } }, 'json.content'],
    ['unknown access scope', { accessScope: 'Secret' }, 'json.accessScope'],
    ['visible as text', { visible: 'true' }, 'json.visible'],
    ['breakout as number', { breakout: 1 }, 'json.breakout'],
    ['author id as text', { authorId: '3' }, 'json.authorId'],
    ['contributor id negative', { contributorId: -1 }, 'json.contributorId'],
    ['story image id fractional', { storyImageId: 1.5 }, 'json.storyImageId'],
    ['parent id zero', { parentId: 0 }, 'json.parentId'],
    ['sort order too big', { sortOrder: 10_000_000 }, 'json.sortOrder'],
    ['sort order as text', { sortOrder: '1' }, 'json.sortOrder'],
    ['published at not a date', { publishedAt: 'yesterday' }, 'json.publishedAt'],
    ['published at impossible', { publishedAt: '2026-02-30T10:00:00Z' }, 'json.publishedAt'],
    ['published at without zone', { publishedAt: '2026-02-01T10:00:00' }, 'json.publishedAt'],
    ['no sites', { siteIds: [] }, 'json.siteIds'],
    ['sites missing', { siteIds: undefined }, 'json.siteIds'],
    ['sites not an array', { siteIds: '1,2' }, 'json.siteIds'],
    ['site id as text', { siteIds: ['1'] }, 'json.siteIds.0'],
    ['news types not an array', { newsTypeIds: 3 }, 'json.newsTypeIds'],
    ['too many news types', { newsTypeIds: Array.from({ length: 101 }, (_, i) => i + 1) }, 'json.newsTypeIds'],
  ])('%s → 400 naming the field', async (_, change, field) => {
    const before = await storyCount();
    const res = await api('/api/v1/story', { method: 'POST', cookie, json: { ...valid(), ...change } });
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; issues: { field: string }[] }>();
    expect(body.error).toBe('invalid_request');
    expect(body.issues.map((i) => i.field)).toContain(field);
    expect(await storyCount()).toBe(before);
  });

  it('answers 400 for malformed JSON, 415 for another content type, 413 for a huge body', async () => {
    const malformed = await api('/api/v1/story', {
      method: 'POST',
      cookie,
      headers: { 'content-type': 'application/json' },
      body: '{"title": "x",',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    const form = await api('/api/v1/story', { method: 'POST', cookie, headers: { 'content-type': 'text/plain' }, body: 'title=x' });
    expect([400, 415]).toContain(form.status);
    const huge = await api('/api/v1/story', { method: 'POST', cookie, json: { ...valid(), content: 'x'.repeat(1_100_000) } });
    expect(huge.status).toBe(413);
    const array = await api('/api/v1/story', { method: 'POST', cookie, json: [valid()] });
    expect(array.status).toBe(400);
  });

  it('validates an update body the same way', async () => {
    const story = await createStory(cookie, valid());
    const res = await api(`/api/v1/story/${story.id}`, { method: 'PUT', cookie, json: { ...valid(), visible: 'no' } });
    expect(res.status).toBe(400);
    expect((await res.json<{ issues: { field: string }[] }>()).issues[0]!.field).toBe('json.visible');
  });
});

describe('story ids in the path', () => {
  it.each(['abc', '1.5', '-1', '1e3', '12345678901', '%20'])('/api/v1/story/%s → 400 on every id route', async (id) => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/parent'],
      ['GET', '/children'],
      ['PUT', ''],
      ['DELETE', ''],
    ] as const) {
      const res = await api(`/api/v1/story/${id}${suffix}`, { method, cookie, json: method === 'PUT' ? valid() : undefined });
      expect(res.status, `${method} ${id}${suffix}`).toBe(400);
      expect((await res.json<{ issues: { field: string }[] }>()).issues[0]!.field).toBe('param.id');
    }
  });

  it('answers 404 for a well-formed id that does not exist on every id route', async () => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/parent'],
      ['GET', '/children'],
      ['PUT', ''],
      ['DELETE', ''],
    ] as const) {
      const res = await api(`/api/v1/story/0${suffix}`, { method, cookie, json: method === 'PUT' ? valid() : undefined });
      expect(res.status, `${method} 0${suffix}`).toBe(404);
    }
  });

  const valid = () => ({ title: 'A title', siteIds: [l.siteA] });
});

describe('story writes and the role', () => {
  it('answers 403 to a signed-in reader on create, update and delete', async () => {
    const reader = await directSession('USER');
    const story = await createStory(cookie, { title: 'Kept', siteIds: [l.siteA] });
    expect((await api('/api/v1/story', { method: 'POST', cookie: reader, json: { title: 'x', siteIds: [l.siteA] } })).status).toBe(403);
    expect(
      (await api(`/api/v1/story/${story.id}`, { method: 'PUT', cookie: reader, json: { title: 'x', siteIds: [l.siteA] } })).status,
    ).toBe(403);
    expect((await api(`/api/v1/story/${story.id}`, { method: 'DELETE', cookie: reader })).status).toBe(403);
    expect((await api(`/api/v1/story/${story.id}`, { cookie: reader })).status).toBe(200);
  });

  it('answers 401 to an unknown session cookie', async () => {
    const res = await api('/api/v1/story', { cookie: `app_session=${'a'.repeat(43)}` });
    expect(res.status).toBe(401);
  });
});
