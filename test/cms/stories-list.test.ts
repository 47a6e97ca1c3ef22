import { beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers';
import { createStory, directSession, lookups, type Lookups, type PageJson, type StoryJson } from './story-fixtures';

let cookie: string;
let l: Lookups;
let all: StoryJson[];

type Spec = {
  title: string;
  day: string;
  visible?: boolean;
  breakout?: boolean;
  image?: boolean;
  scope?: string;
  sites: 'A' | 'B' | 'AB';
  types?: ('news' | 'tips' | 'results')[];
  contributor?: boolean;
  summary?: string;
};

// A small world of its own (every title carries the tag), so each filter can be checked against the
// same rule computed here.
const SPECS: Spec[] = [
  { title: 'Alpha', day: '2026-01-01', sites: 'A', types: ['news'], contributor: true },
  { title: 'bravo', day: '2026-01-02', sites: 'A', visible: false, types: ['tips'] },
  { title: 'Charlie', day: '2026-01-02', sites: 'B', breakout: true, types: ['results'] },
  { title: 'delta', day: '2026-01-05', sites: 'AB', image: true, scope: 'Subscriber', types: ['news', 'results'] },
  { title: 'Echo', day: '2026-01-31', sites: 'A', scope: 'Registered', contributor: true, summary: 'about the Melbourne Cup' },
  { title: 'foxtrot 100%', day: '2026-02-01', sites: 'B', visible: false, breakout: true, image: true },
  { title: 'Golf', day: '2026-02-14', sites: 'A', types: ['news', 'tips'] },
];

beforeAll(async () => {
  cookie = await directSession('ADMIN');
  l = await lookups();
  const siteIds = { A: [l.siteA], B: [l.siteB], AB: [l.siteA, l.siteB] };
  const typeIds = { news: l.newsA, tips: l.tipsA, results: l.resultsB };
  all = [];
  for (const s of SPECS) {
    all.push(
      await createStory(cookie, {
        title: `${s.title} ${l.tag}`,
        summary: s.summary ?? '',
        publishedAt: `${s.day}T12:00:00Z`,
        visible: s.visible ?? true,
        breakout: s.breakout ?? false,
        storyImageId: s.image ? l.photoId : null,
        accessScope: s.scope ?? 'Public',
        siteIds: siteIds[s.sites],
        newsTypeIds: (s.types ?? []).map((t) => typeIds[t]),
        contributorId: s.contributor ? l.contributorId : null,
      }),
    );
  }
});

async function list(query: string) {
  const res = await api(`/api/v1/story?search=${encodeURIComponent(l.tag)}&pageSize=100${query ? `&${query}` : ''}`, { cookie });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<PageJson>();
}
const idsOf = (stories: StoryJson[]) => stories.map((s) => s.id);
const latestFirst = (stories: StoryJson[]) => [...stories].sort((a, b) => b.publishedAt.localeCompare(a.publishedAt) || b.id - a.id);

describe('story list filters', () => {
  it('lists every story of the tag, latest first, as summaries with site and news-type ids', async () => {
    const page = await list('');
    expect(page.totalCount).toBe(SPECS.length);
    expect(idsOf(page.items)).toEqual(idsOf(latestFirst(all)));
    const delta = page.items.find((s) => s.title.startsWith('delta'))!;
    expect(delta.siteIds).toEqual([l.siteA, l.siteB].sort((a, b) => a - b));
    expect(delta.newsTypeIds).toEqual([l.newsA, l.resultsB].sort((a, b) => a - b));
    expect(delta).not.toHaveProperty('content');
    expect(Object.keys(delta).sort()).toEqual(
      [
        'id',
        'title',
        'summary',
        'accessScope',
        'visible',
        'breakout',
        'authorId',
        'contributorId',
        'storyImageId',
        'parentId',
        'sortOrder',
        'publishedAt',
        'updatedAt',
        'siteIds',
        'newsTypeIds',
      ].sort(),
    );
  });

  it.each<[string, (s: StoryJson) => boolean]>([
    ['visible=true', (s) => s.visible],
    ['visible=0', (s) => !s.visible],
    ['breakout=1', (s) => s.breakout],
    ['breakout=false', (s) => !s.breakout],
    ['hasStoryImage=true', (s) => s.storyImageId !== null],
    ['hasStoryImage=0', (s) => s.storyImageId === null],
    ['accessScope=Subscriber', (s) => s.accessScope === 'Subscriber'],
    ['accessScope=Public', (s) => s.accessScope === 'Public'],
    ['from=2026-01-02&to=2026-01-05', (s) => s.publishedAt >= '2026-01-02' && s.publishedAt < '2026-01-06'],
    ['from=2026-01-31', (s) => s.publishedAt >= '2026-01-31'],
    ['to=2026-01-01', (s) => s.publishedAt < '2026-01-02'],
    ['from=2026-02-01&to=2026-02-01', (s) => s.publishedAt.startsWith('2026-02-01')],
  ])('%s', async (query, keep) => {
    const page = await list(query);
    const expected = latestFirst(all.filter(keep));
    expect(expected.length).toBeGreaterThan(0);
    expect(idsOf(page.items)).toEqual(idsOf(expected));
    expect(page.totalCount).toBe(expected.length);
  });

  it('filters by site, news type and contributor ids', async () => {
    expect(idsOf((await list(`siteId=${l.siteB}`)).items)).toEqual(idsOf(latestFirst(all.filter((s) => s.siteIds.includes(l.siteB)))));
    expect(idsOf((await list(`newsType=${l.newsA}`)).items)).toEqual(
      idsOf(latestFirst(all.filter((s) => s.newsTypeIds.includes(l.newsA)))),
    );
    expect(idsOf((await list(`contributor=${l.contributorId}`)).items)).toEqual(
      idsOf(latestFirst(all.filter((s) => s.contributorId === l.contributorId))),
    );
    const combined = await list(`siteId=${l.siteA}&newsType=${l.newsA}&visible=true`);
    expect(idsOf(combined.items)).toEqual(
      idsOf(latestFirst(all.filter((s) => s.siteIds.includes(l.siteA) && s.newsTypeIds.includes(l.newsA) && s.visible))),
    );
    expect((await list('siteId=999999999')).totalCount).toBe(0);
  });

  it('searches title and summary case-insensitively, wildcards taken literally', async () => {
    const res = await api(`/api/v1/story?search=${encodeURIComponent(`CHARLIE ${l.tag}`)}`, { cookie });
    expect(idsOf((await res.json<PageJson>()).items)).toEqual(idsOf(all.filter((s) => s.title.startsWith('Charlie'))));
    const cup = await (await api('/api/v1/story?search=melbourne%20cup', { cookie })).json<PageJson>();
    expect(idsOf(cup.items)).toContain(all.find((s) => s.title.startsWith('Echo'))!.id);
    const literal = await (await api(`/api/v1/story?search=${encodeURIComponent(`100%`)}&siteId=${l.siteB}`, { cookie })).json<PageJson>();
    expect(idsOf(literal.items)).toEqual(idsOf(all.filter((s) => s.title.startsWith('foxtrot'))));
    const underscore = await (
      await api(`/api/v1/story?search=${encodeURIComponent(`1_0`)}&siteId=${l.siteB}`, { cookie })
    ).json<PageJson>();
    expect(underscore.totalCount).toBe(0);
  });
});

describe('story list sort and paging', () => {
  const caseless = (a: StoryJson, b: StoryJson) => a.title.toLowerCase().localeCompare(b.title.toLowerCase()) || a.id - b.id;
  it.each<[string, (a: StoryJson, b: StoryJson) => number]>([
    ['publishedAt', (a, b) => a.publishedAt.localeCompare(b.publishedAt) || a.id - b.id],
    ['-publishedAt', (a, b) => b.publishedAt.localeCompare(a.publishedAt) || b.id - a.id],
    ['title', caseless],
    ['-title', (a, b) => -caseless(a, b)],
    ['id', (a, b) => a.id - b.id],
    ['-id', (a, b) => b.id - a.id],
    ['updatedAt', (a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id - b.id],
    ['-updatedAt', (a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id - a.id],
  ])('sort=%s', async (sort, compare) => {
    expect(idsOf((await list(`sort=${sort}`)).items)).toEqual(idsOf([...all].sort(compare)));
  });

  it('pages with the shared envelope and its totals', async () => {
    const expected = idsOf(latestFirst(all));
    const pages: number[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await api(`/api/v1/story?search=${encodeURIComponent(l.tag)}&pageSize=3&page=${page}`, { cookie });
      const body = await res.json<PageJson>();
      expect(body).toMatchObject({ page, pageSize: 3, totalCount: SPECS.length, totalPages: Math.ceil(SPECS.length / 3) });
      pages.push(...idsOf(body.items));
    }
    expect(pages).toEqual(expected);
    const beyond = await (await api(`/api/v1/story?search=${encodeURIComponent(l.tag)}&pageSize=3&page=9`, { cookie })).json<PageJson>();
    expect(beyond).toEqual({ items: [], page: 9, pageSize: 3, totalCount: SPECS.length, totalPages: 3 });
  });

  // A search counts its total in the page's own statement: every page of every order carries the
  // same total, and the pages join up to the whole ordered list.
  it.each(['title', '-title', 'publishedAt', '-id'])(
    'sort=%s in pages of 2: the same total on every page, pages in order',
    async (sort) => {
      const caseless = (a: StoryJson, b: StoryJson) => a.title.toLowerCase().localeCompare(b.title.toLowerCase()) || a.id - b.id;
      const compare: Record<string, (a: StoryJson, b: StoryJson) => number> = {
        title: caseless,
        '-title': (a, b) => -caseless(a, b),
        publishedAt: (a, b) => a.publishedAt.localeCompare(b.publishedAt) || a.id - b.id,
        '-id': (a, b) => b.id - a.id,
      };
      const seen: number[] = [];
      for (let page = 1; page <= Math.ceil(SPECS.length / 2) + 1; page++) {
        const res = await api(`/api/v1/story?search=${encodeURIComponent(l.tag)}&sort=${sort}&pageSize=2&page=${page}`, { cookie });
        const body = await res.json<PageJson>();
        expect(body.totalCount).toBe(SPECS.length);
        seen.push(...idsOf(body.items));
      }
      expect(seen).toEqual(idsOf([...all].sort(compare[sort])));
    },
  );

  it('defaults to page 1 of 20', async () => {
    const body = await (await api(`/api/v1/story?search=${encodeURIComponent(l.tag)}`, { cookie })).json<PageJson>();
    expect(body).toMatchObject({ page: 1, pageSize: 20, totalCount: SPECS.length, totalPages: 1 });
  });
});

describe('story list bad input', () => {
  it.each([
    ['visible=yes', 'query.visible'],
    ['visible=TRUE', 'query.visible'],
    ['breakout=2', 'query.breakout'],
    ['hasStoryImage=', 'query.hasStoryImage'],
    ['newsType=abc', 'query.newsType'],
    ['newsType=-1', 'query.newsType'],
    ['contributor=1.5', 'query.contributor'],
    ['siteId=1e3', 'query.siteId'],
    ['accessScope=Secret', 'query.accessScope'],
    ['from=2026-02-30', 'query.from'],
    ['from=2026-13-01', 'query.from'],
    ['to=31/01/2026', 'query.to'],
    ['from=2026-02-01&to=2026-01-31', 'query.to'],
    ['sort=author', 'query.sort'],
    ['sort=', 'query.sort'],
    ['page=0', 'query.page'],
    ['page=x', 'query.page'],
    ['pageSize=101', 'query.pageSize'],
    ['pageSize=0', 'query.pageSize'],
    [`search=${'x'.repeat(10_000)}`, 'query.search'],
    ['visible=true&visible=false', 'query.visible'],
  ])('%s → 400 naming %s', async (query, field) => {
    const res = await api(`/api/v1/story?${query}`, { cookie });
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; issues: { field: string }[] }>();
    expect(body.error).toBe('invalid_request');
    expect(body.issues.map((i) => i.field)).toContain(field);
  });
});
