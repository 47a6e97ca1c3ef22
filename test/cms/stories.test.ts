import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import * as schema from '#d1/cms/schema.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from './helpers';
import { createStory, db, lookups, type Lookups, type StoryJson } from './story-fixtures';

let editor: string;
let reader: string;
beforeAll(async () => {
  editor = await signIn('stories');
  reader = await signIn('reader');
});

const base = (l: Lookups, extra: Record<string, unknown> = {}) => ({ title: `Story ${l.tag}`, siteIds: [l.siteA], ...extra });
const mappings = async (id: number) => ({
  sites: (await db.all<{ site_id: number }>(sql`select site_id from story_sites where story_id = ${id} order by site_id`)).map(
    (r) => r.site_id,
  ),
  newsTypes: (
    await db.all<{ news_type_id: number }>(sql`select news_type_id from story_news_types where story_id = ${id} order by news_type_id`)
  ).map((r) => r.news_type_id),
});

describe('story create, read, update', () => {
  it('creates a story with its mappings and answers the detail', async () => {
    const l = await lookups();
    const res = await api('/api/v1/story', {
      method: 'POST',
      cookie: editor,
      json: {
        title: '  Winx wins again  ',
        summary: 'A summary',
        content: '<p>Body</p>',
        accessScope: 'Subscriber',
        visible: false,
        breakout: true,
        authorId: l.authorId,
        contributorId: l.contributorId,
        storyImageId: l.photoId,
        sortOrder: 3,
        publishedAt: '2026-03-01T10:30:00+10:00',
        siteIds: [l.siteB, l.siteA, l.siteA],
        newsTypeIds: [l.tipsA, l.newsA, l.resultsB],
      },
    });
    expect(res.status).toBe(201);
    const story = await res.json<StoryJson>();
    expect(story).toMatchObject({
      title: 'Winx wins again',
      summary: 'A summary',
      content: '<p>Body</p>',
      accessScope: 'Subscriber',
      visible: false,
      breakout: true,
      authorId: l.authorId,
      contributorId: l.contributorId,
      storyImageId: l.photoId,
      parentId: null,
      sortOrder: 3,
      publishedAt: '2026-03-01T00:30:00.000Z',
      siteIds: [l.siteA, l.siteB].sort((a, b) => a - b),
      newsTypeIds: [l.newsA, l.tipsA, l.resultsB].sort((a, b) => a - b),
    });
    expect(Date.parse(story.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await mappings(story.id)).toEqual({ sites: story.siteIds, newsTypes: story.newsTypeIds });

    const detail = await api(`/api/v1/story/${story.id}`, { cookie: reader });
    expect(detail.status).toBe(200);
    expect(await detail.json()).toEqual(story);
  });

  it('fills the defaults of a minimal body', async () => {
    const l = await lookups();
    const story = await createStory(editor, base(l));
    expect(story).toMatchObject({
      summary: '',
      content: '',
      accessScope: 'Public',
      visible: true,
      breakout: false,
      authorId: null,
      contributorId: null,
      storyImageId: null,
      parentId: null,
      sortOrder: 0,
      newsTypeIds: [],
    });
    expect(Math.abs(Date.parse(story.publishedAt) - Date.now())).toBeLessThan(60_000);
  });

  it('updates the story and resyncs both mappings (old rows gone, new rows in)', async () => {
    const l = await lookups();
    const story = await createStory(
      editor,
      base(l, { siteIds: [l.siteA], newsTypeIds: [l.newsA, l.tipsA], publishedAt: '2026-01-02T00:00:00Z' }),
    );
    const res = await api(`/api/v1/story/${story.id}`, {
      method: 'PUT',
      cookie: editor,
      json: { title: 'Renamed', siteIds: [l.siteB], newsTypeIds: [l.resultsB], content: 'new body', visible: false },
    });
    expect(res.status).toBe(200);
    const updated = await res.json<StoryJson>();
    expect(updated).toMatchObject({
      id: story.id,
      title: 'Renamed',
      content: 'new body',
      visible: false,
      siteIds: [l.siteB],
      newsTypeIds: [l.resultsB],
    });
    // An omitted publishedAt keeps the stored one; the change time moves.
    expect(updated.publishedAt).toBe('2026-01-02T00:00:00.000Z');
    expect(updated.createdAt).toBe(story.createdAt);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(story.updatedAt));
    expect(await mappings(story.id)).toEqual({ sites: [l.siteB], newsTypes: [l.resultsB] });

    const cleared = await api(`/api/v1/story/${story.id}`, {
      method: 'PUT',
      cookie: editor,
      json: { title: 'Renamed', siteIds: [l.siteA, l.siteB] },
    });
    expect(cleared.status).toBe(200);
    expect(await mappings(story.id)).toEqual({ sites: [l.siteA, l.siteB].sort((a, b) => a - b), newsTypes: [] });
  });

  it('answers 404 for an unknown story on read and update', async () => {
    const l = await lookups();
    expect((await api('/api/v1/story/999999999', { cookie: editor })).status).toBe(404);
    const put = await api('/api/v1/story/999999999', { method: 'PUT', cookie: editor, json: base(l) });
    expect(put.status).toBe(404);
    expect(await put.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('story references', () => {
  it.each([
    ['siteIds', (l: Lookups) => ({ siteIds: [l.siteA, 999_999_999] })],
    ['newsTypeIds', (l: Lookups) => ({ newsTypeIds: [999_999_999] })],
    ['newsTypeIds', (l: Lookups) => ({ siteIds: [l.siteA], newsTypeIds: [l.resultsB] })],
    ['authorId', () => ({ authorId: 999_999_999 })],
    ['contributorId', () => ({ contributorId: 999_999_999 })],
    ['parentId', () => ({ parentId: 999_999_999 })],
    ['storyImageId', () => ({ storyImageId: 999_999_999 })],
  ])('rejects an unknown or foreign %s with 400 naming the field', async (field, extra) => {
    const l = await lookups();
    const res = await api('/api/v1/story', { method: 'POST', cookie: editor, json: base(l, extra(l)) });
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; issues: { field: string }[] }>();
    expect(body.error).toBe('invalid_request');
    expect(body.issues.map((i) => i.field)).toEqual([`json.${field}`]);
    const [count] = await db.all<{ n: number }>(sql`select count(*) as n from stories where title = ${`Story ${l.tag}`}`);
    expect(count!.n).toBe(0);
  });

  it('keeps a stored story image whose photo was deleted since, but refuses it as a new image', async () => {
    const l = await lookups();
    const story = await createStory(editor, base(l, { storyImageId: l.photoId }));
    await db.delete(schema.photos).where(eq(schema.photos.id, l.photoId));
    const kept = await api(`/api/v1/story/${story.id}`, {
      method: 'PUT',
      cookie: editor,
      json: base(l, { storyImageId: l.photoId, title: 'Still here' }),
    });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ storyImageId: l.photoId, title: 'Still here' });
    const other = await createStory(editor, base(l));
    const refused = await api(`/api/v1/story/${other.id}`, { method: 'PUT', cookie: editor, json: base(l, { storyImageId: l.photoId }) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ issues: [{ field: 'json.storyImageId' }] });
  });

  it('refuses a parent that is the story itself or one of its descendants', async () => {
    const l = await lookups();
    const top = await createStory(editor, base(l, { title: 'top' }));
    const middle = await createStory(editor, base(l, { title: 'middle', parentId: top.id }));
    const bottom = await createStory(editor, base(l, { title: 'bottom', parentId: middle.id }));
    for (const parentId of [top.id, bottom.id, middle.id]) {
      const res = await api(`/api/v1/story/${top.id}`, { method: 'PUT', cookie: editor, json: base(l, { title: 'top', parentId }) });
      expect(res.status, `parent ${parentId}`).toBe(400);
      expect((await res.json<{ issues: { field: string; message: string }[] }>()).issues[0]).toMatchObject({ field: 'json.parentId' });
    }
    // Moving the bottom story under the top one is fine.
    const ok = await api(`/api/v1/story/${bottom.id}`, {
      method: 'PUT',
      cookie: editor,
      json: base(l, { title: 'bottom', parentId: top.id }),
    });
    expect(ok.status).toBe(200);
  });
});

describe('restricted stories', () => {
  const TAGS = ['[members-only]', '[/members-only]'];

  it('refuses a Restricted story without its tags on create with exactly {message, missingTags}', async () => {
    const l = await lookups();
    const res = await api('/api/v1/story', {
      method: 'POST',
      cookie: editor,
      json: base(l, { accessScope: 'Restricted', content: '<p>[members-only] half</p>' }),
    });
    expect(res.status).toBe(400);
    const body = await res.json<Record<string, unknown>>();
    expect(Object.keys(body).sort()).toEqual(['message', 'missingTags']);
    expect(body.missingTags).toEqual(['[/members-only]']);
    expect(typeof body.message).toBe('string');
  });

  it('accepts a Restricted story holding every tag, and checks again on update', async () => {
    const l = await lookups();
    const story = await createStory(editor, base(l, { accessScope: 'Restricted', content: `<p>${TAGS[0]} for members ${TAGS[1]}</p>` }));
    expect(story.accessScope).toBe('Restricted');
    const res = await api(`/api/v1/story/${story.id}`, {
      method: 'PUT',
      cookie: editor,
      json: base(l, { accessScope: 'Restricted', content: 'no tags now' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: expect.any(String), missingTags: TAGS });
    // Unchanged.
    expect((await (await api(`/api/v1/story/${story.id}`, { cookie: editor })).json<StoryJson>()).content).toContain(TAGS[0]);
    // Another scope needs no tags.
    const open = await api(`/api/v1/story/${story.id}`, {
      method: 'PUT',
      cookie: editor,
      json: base(l, { accessScope: 'Public', content: 'no tags now' }),
    });
    expect(open.status).toBe(200);
  });
});

describe('parent and children', () => {
  it('answers the parent, null for none, 404 for no story', async () => {
    const l = await lookups();
    const parent = await createStory(editor, base(l, { title: 'parent' }));
    const child = await createStory(editor, base(l, { title: 'child', parentId: parent.id }));
    const res = await api(`/api/v1/story/${child.id}/parent`, { cookie: reader });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: parent.id, title: 'parent', siteIds: [l.siteA] });

    const none = await api(`/api/v1/story/${parent.id}/parent`, { cookie: reader });
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('null');
    expect((await api('/api/v1/story/999999999/parent', { cookie: reader })).status).toBe(404);
  });

  it('answers children by sort order then id, [] for none, 404 for no story', async () => {
    const l = await lookups();
    const parent = await createStory(editor, base(l, { title: 'parent' }));
    const c3 = await createStory(editor, base(l, { title: 'third', parentId: parent.id, sortOrder: 5 }));
    const c1 = await createStory(editor, base(l, { title: 'first', parentId: parent.id, sortOrder: -2 }));
    const c2a = await createStory(editor, base(l, { title: 'second a', parentId: parent.id, sortOrder: 1 }));
    const c2b = await createStory(editor, base(l, { title: 'second b', parentId: parent.id, sortOrder: 1 }));
    const res = await api(`/api/v1/story/${parent.id}/children`, { cookie: reader });
    expect(res.status).toBe(200);
    expect((await res.json<StoryJson[]>()).map((s) => s.id)).toEqual([c1.id, c2a.id, c2b.id, c3.id]);

    const leaf = await api(`/api/v1/story/${c1.id}/children`, { cookie: reader });
    expect(leaf.status).toBe(200);
    expect(await leaf.json()).toEqual([]);
    expect((await api('/api/v1/story/999999999/children', { cookie: reader })).status).toBe(404);
  });
});

describe('delete', () => {
  it('removes the story and its mappings together, detaches its children, and is 404 the second time', async () => {
    const l = await lookups();
    const parent = await createStory(editor, base(l, { siteIds: [l.siteA, l.siteB], newsTypeIds: [l.newsA, l.resultsB] }));
    const child = await createStory(editor, base(l, { parentId: parent.id }));
    const res = await api(`/api/v1/story/${parent.id}`, { method: 'DELETE', cookie: editor });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(await mappings(parent.id)).toEqual({ sites: [], newsTypes: [] });
    expect((await api(`/api/v1/story/${parent.id}`, { cookie: editor })).status).toBe(404);
    const orphan = await (await api(`/api/v1/story/${child.id}`, { cookie: editor })).json<StoryJson>();
    expect(orphan.parentId).toBeNull();
    expect(await mappings(child.id)).toEqual({ sites: [l.siteA], newsTypes: [] });

    const again = await api(`/api/v1/story/${parent.id}`, { method: 'DELETE', cookie: editor });
    expect(again.status).toBe(404);
  });

  it('rolls the whole batch back when one statement fails (nothing half-deleted)', async () => {
    const l = await lookups();
    const story = await createStory(editor, base(l, { siteIds: [l.siteA], newsTypeIds: [l.newsA] }));
    // The same batch shape as the delete, with a failing last statement: D1 runs a batch as one transaction.
    await expect(
      env.DB.batch([
        env.DB.prepare('delete from story_news_types where story_id = ?').bind(story.id),
        env.DB.prepare('delete from story_sites where story_id = ?').bind(story.id),
        env.DB.prepare('delete from no_such_table where id = ?').bind(story.id),
      ]),
    ).rejects.toThrow();
    expect(await mappings(story.id)).toEqual({ sites: [l.siteA], newsTypes: [l.newsA] });
  });
});

describe('link-search', () => {
  it('limits to the given sites, matches a number by id and text by title substring', async () => {
    const l = await lookups();
    const onA = await createStory(editor, base(l, { title: `Cox Plate 100%_${l.tag} preview`, siteIds: [l.siteA] }));
    const onB = await createStory(editor, base(l, { title: `Cox Plate ${l.tag} result`, siteIds: [l.siteB] }));
    const search = async (query: string, siteIds: string) => {
      const res = await api(`/api/v1/story/link-search?siteIds=${siteIds}&query=${encodeURIComponent(query)}`, { cookie: reader });
      expect(res.status).toBe(200);
      return (await res.json<StoryJson[]>()).map((s) => s.id);
    };
    expect(await search(`plate ${l.tag}`, `${l.siteA},${l.siteB}`)).toEqual([onB.id]);
    expect(await search(`cox plate`, String(l.siteA))).toContain(onA.id);
    expect(await search(`cox plate`, String(l.siteA))).not.toContain(onB.id);
    expect(await search(String(onA.id), String(l.siteA))).toEqual([onA.id]);
    expect(await search(String(onA.id), String(l.siteB))).toEqual([]);
    // Wildcards are taken literally.
    expect(await search(`100%_${l.tag}`, String(l.siteA))).toEqual([onA.id]);
    expect(await search(`100__${l.tag}`, String(l.siteA))).toEqual([]);
  });

  it('caps the result at 20, latest first', async () => {
    const l = await lookups();
    for (let i = 0; i < 22; i++) {
      await createStory(
        editor,
        base(l, { title: `Capped ${l.tag} ${i}`, publishedAt: `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z` }),
      );
    }
    const res = await api(`/api/v1/story/link-search?siteIds=${l.siteA}&query=Capped%20${l.tag}`, { cookie: reader });
    const titles = (await res.json<StoryJson[]>()).map((s) => s.title);
    expect(titles).toHaveLength(20);
    expect(titles[0]).toBe(`Capped ${l.tag} 21`);
  });

  it.each([
    ['', 'missing'],
    ['siteIds=', 'empty'],
    ['siteIds=a,b', 'not ids'],
    ['siteIds=,,', 'only commas'],
    [`siteIds=1&query=${'x'.repeat(5000)}`, 'a huge query'],
  ])('answers 400 naming the field for %s (%s)', async (query) => {
    const res = await api(`/api/v1/story/link-search?${query}`, { cookie: reader });
    expect(res.status).toBe(400);
    const body = await res.json<{ issues: { field: string }[] }>();
    expect(body.issues[0]!.field).toMatch(/^query\.(siteIds|query)$/);
  });
});

describe('story access', () => {
  it('needs a session on every route (401 without the cookie)', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/story'],
      ['GET', '/api/v1/story/1'],
      ['GET', '/api/v1/story/1/parent'],
      ['GET', '/api/v1/story/1/children'],
      ['GET', '/api/v1/story/link-search?siteIds=1'],
      ['POST', '/api/v1/story'],
      ['PUT', '/api/v1/story/1'],
      ['DELETE', '/api/v1/story/1'],
    ] as const) {
      const res = await api(path, { method, json: method === 'POST' || method === 'PUT' ? { title: 'x', siteIds: [1] } : undefined });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('lets a reader read but not write (403), and changes nothing', async () => {
    const l = await lookups();
    const story = await createStory(editor, base(l));
    expect((await api(`/api/v1/story/${story.id}`, { cookie: reader })).status).toBe(200);
    const post = await api('/api/v1/story', { method: 'POST', cookie: reader, json: base(l) });
    expect(post.status).toBe(403);
    expect(await post.json()).toMatchObject({ error: 'forbidden' });
    expect((await api(`/api/v1/story/${story.id}`, { method: 'PUT', cookie: reader, json: base(l, { title: 'changed' }) })).status).toBe(
      403,
    );
    expect((await api(`/api/v1/story/${story.id}`, { method: 'DELETE', cookie: reader })).status).toBe(403);
    expect((await (await api(`/api/v1/story/${story.id}`, { cookie: editor })).json<StoryJson>()).title).toBe(story.title);
  });
});

describe('story routes in the API document', () => {
  it('lists every story route with its parameters', async () => {
    const res = await api('/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json<{ paths: Record<string, Record<string, { parameters?: { name: string }[] }>> }>();
    expect(Object.keys(doc.paths['/api/v1/story']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/story/{id}']!).sort()).toEqual(['delete', 'get', 'put']);
    expect(doc.paths['/api/v1/story/{id}/parent']!.get).toBeDefined();
    expect(doc.paths['/api/v1/story/{id}/children']!.get).toBeDefined();
    expect(doc.paths['/api/v1/story/link-search']!.get!.parameters!.map((p) => p.name).sort()).toEqual(['query', 'siteIds']);
    const listParams = doc.paths['/api/v1/story']!.get!.parameters!.map((p) => p.name);
    for (const name of [
      'search',
      'visible',
      'newsType',
      'contributor',
      'accessScope',
      'breakout',
      'hasStoryImage',
      'siteId',
      'from',
      'to',
      'sort',
      'page',
      'pageSize',
    ]) {
      expect(listParams).toContain(name);
    }
  });
});
