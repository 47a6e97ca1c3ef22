import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ftsPhrase } from '../../workers/cms/src/story-search';
import { api } from './helpers';
import { createStory, directSession, lookups, type Lookups, type PageJson } from './story-fixtures';

// Story search goes through the FTS5 trigram index `stories_search` alone; these prove the index
// stays in step with every write and that matching is exactly what `instr(lower(…), lower(…))` gives.

let cookie: string;
let l: Lookups;
beforeAll(async () => {
  cookie = await directSession('ADMIN');
  l = await lookups();
});

const titles = async (search: string, extra = '') => {
  const res = await api(`/api/v1/story?search=${encodeURIComponent(search)}&pageSize=100${extra}`, { cookie });
  expect(res.status).toBe(200);
  return (await res.json<PageJson>()).items.map((s) => s.title);
};

/** The index agrees with its content table (FTS5's own check; throws when they differ). */
const integrityCheck = () => env.DB.prepare(`insert into stories_search (stories_search) values ('integrity-check')`).run();

describe('story search through the trigram index', () => {
  it('finds a new story at once, by title or summary, any case', async () => {
    const tag = `Qz${crypto.randomUUID().slice(0, 8)}`;
    await createStory(cookie, { title: `Flemington ${tag} preview`, summary: 'Spring carnival', siteIds: [l.siteA] });
    await createStory(cookie, { title: `Other ${tag}`, summary: `At FLEMINGTON on Saturday`, siteIds: [l.siteA] });
    expect((await titles(`flemington ${tag}`)).sort()).toEqual([`Flemington ${tag} preview`]);
    expect((await titles(tag)).sort()).toEqual([`Flemington ${tag} preview`, `Other ${tag}`]);
    expect(await titles(`${tag.toUpperCase()} PREVIEW`)).toEqual([`Flemington ${tag} preview`]);
    await integrityCheck();
  });

  it('follows an edit: the old text no longer matches, the new text does', async () => {
    const tag = `Ed${crypto.randomUUID().slice(0, 8)}`;
    const story = await createStory(cookie, { title: `Before ${tag}`, summary: 'Old summary words', siteIds: [l.siteA] });
    const put = await api(`/api/v1/story/${story.id}`, {
      method: 'PUT',
      cookie,
      json: { title: `After ${tag}`, summary: 'Fresh text', siteIds: [l.siteA] },
    });
    expect(put.status).toBe(200);
    expect(await titles(`Before ${tag}`)).toEqual([]);
    expect(await titles(`After ${tag}`)).toEqual([`After ${tag}`]);
    expect(await titles(`${tag}`)).toEqual([`After ${tag}`]);
    await integrityCheck();
  });

  it('follows a delete', async () => {
    const tag = `Del${crypto.randomUUID().slice(0, 8)}`;
    const story = await createStory(cookie, { title: `Gone ${tag}`, siteIds: [l.siteA] });
    expect(await titles(tag)).toEqual([`Gone ${tag}`]);
    expect((await api(`/api/v1/story/${story.id}`, { method: 'DELETE', cookie })).status).toBe(204);
    expect(await titles(tag)).toEqual([]);
    await integrityCheck();
  });

  it('keeps the old matching: ASCII case folded only, wildcards and quotes literal, short terms scanned', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const title = `Été à Deauville ${tag} "quoted" 5%_off`;
    await createStory(cookie, { title, siteIds: [l.siteB] });
    const site = `&siteId=${l.siteB}`;
    // SQLite's lower() folds ASCII only: É and é stay different letters, as before the index.
    expect(await titles(`été à deauville ${tag}`, site)).toEqual([]);
    expect(await titles(`Été à DEAUVILLE ${tag}`, site)).toEqual([title]);
    expect(await titles(`${tag} "quoted"`, site)).toEqual([title]);
    expect(await titles(`"quoted" 5%_off`, site)).toContain(title);
    expect(await titles(`"quoted" 5%xoff`, site)).not.toContain(title);
    // Under three characters (no trigram): the row-by-row test, two-byte letters included.
    expect(await titles('Ét', site)).toContain(title);
    expect(await titles('ét', site)).not.toContain(title);
    expect(await titles('%_', site)).toContain(title);
  });

  it('decides by the index alone exactly as instr(lower(…), lower(…)) would', async () => {
    const tag = `Ex${crypto.randomUUID().slice(0, 8)}`;
    // The Kelvin sign (U+212A) folds to k under Unicode case folding but not under SQLite's lower():
    // the story is not found by "kelvin", as it never was.
    const kelvin = `\u212Aelvin ${tag}`;
    const mixed = `MiXeD CaSe ${tag} ÀÉÎ`;
    await createStory(cookie, { title: kelvin, summary: 'x', siteIds: [l.siteA] });
    await createStory(cookie, { title: 'plain', summary: mixed, siteIds: [l.siteA] });
    expect(await titles(`kelvin ${tag}`)).toEqual([]);
    expect(await titles(`\u212Aelvin ${tag}`)).toEqual([kelvin]);
    expect(await titles(`mixed case ${tag.toLowerCase()} ÀÉÎ`)).toEqual(['plain']);
    expect(await titles(`mixed case ${tag} àéî`)).toEqual([]);
    // The same rule, asked of SQLite directly for every story of the site: the index gives the same set.
    for (const term of [tag, `case ${tag}`, `${tag} ÀÉ`, 'elvin']) {
      const exact = await env.DB.prepare(
        `select title from stories s where exists (select 1 from story_sites where story_id = s.id and site_id = ?)
           and (instr(lower(title), lower(?)) > 0 or instr(lower(summary), lower(?)) > 0) order by published_at desc, id desc`,
      )
        .bind(l.siteA, term, term)
        .all<{ title: string }>();
      expect(await titles(term, `&siteId=${l.siteA}`)).toEqual(exact.results.map((r) => r.title));
    }
    await integrityCheck();
  });

  it('finds by a 200-character term', async () => {
    const long = `${'Long title words '.repeat(12)}${crypto.randomUUID()}`.slice(0, 200);
    await createStory(cookie, { title: long, siteIds: [l.siteA] });
    expect(long.length).toBe(200);
    expect(await titles(long.toLowerCase())).toEqual([long]);
  });

  it('link-search matches the title through the index too', async () => {
    const tag = `Ln${crypto.randomUUID().slice(0, 8)}`;
    await createStory(cookie, { title: `Linked ${tag}`, summary: `summary-only ${tag}x`, siteIds: [l.siteA] });
    const res = await api(`/api/v1/story/link-search?siteIds=${l.siteA}&query=${encodeURIComponent(`${tag}x`)}`, { cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    const hit = await api(`/api/v1/story/link-search?siteIds=${l.siteA}&query=${encodeURIComponent(tag.toLowerCase())}`, { cookie });
    expect((await hit.json<{ title: string }[]>()).map((s) => s.title)).toEqual([`Linked ${tag}`]);
  });
});

describe('the FTS5 phrase', () => {
  it('quotes the term and doubles its quotes, limited to the columns', () => {
    expect(ftsPhrase(['title', 'summary'], 'a "b" c')).toBe('{title summary} : "a ""b"" c"');
    expect(ftsPhrase(['title'], 'NEAR(x y) OR z*')).toBe('{title} : "NEAR(x y) OR z*"');
  });
});
