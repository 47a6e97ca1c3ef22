import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cmsSeedSql, generateCmsSeed, seedCmsDevData } from '../../scripts/cms-seed';
import { queryLocalD1 } from '../../scripts/d1-local';
import { applyLocalD1Migrations } from '../../scripts/workers';

const TAGS = ['[members-only]', '[/members-only]'];

describe('CMS content generator', () => {
  const data = generateCmsSeed({ anchor: '2026-06-30', seed: 3 });

  it('is deterministic for a seed and anchor, and differs for another seed', () => {
    expect(generateCmsSeed({ anchor: '2026-06-30', seed: 3 })).toEqual(data);
    expect(generateCmsSeed({ anchor: '2026-06-30', seed: 4 }).stories.map((s) => s.title)).not.toEqual(data.stories.map((s) => s.title));
  });

  it('makes a few racing sites, each with its news types, plus authors and contributors', () => {
    expect(data.sites.length).toBeGreaterThanOrEqual(3);
    expect(data.sites.length).toBeLessThanOrEqual(4);
    for (const site of data.sites) expect(data.newsTypes.filter((t) => t.siteId === site.id).length).toBeGreaterThanOrEqual(3);
    expect(data.authors.length).toBeGreaterThan(0);
    expect(data.contributors.length).toBeGreaterThan(0);
  });

  it('makes a few hundred stories with every kind the editors meet', () => {
    const stories = data.stories;
    expect(stories.length).toBe(300);
    expect(stories.filter((s) => !s.visible).length).toBeGreaterThan(5);
    expect(stories.filter((s) => s.breakout).length).toBeGreaterThan(2);
    expect(stories.filter((s) => s.storyImageId !== null).length).toBeGreaterThan(50);
    const restricted = stories.filter((s) => s.accessScope === 'Restricted');
    expect(restricted.length).toBeGreaterThan(5);
    for (const s of restricted) for (const tag of TAGS) expect(s.content).toContain(tag);
    // Published over the year up to the anchor, ids rising with time.
    for (const s of stories) {
      expect(s.publishedAt).toBeLessThan(Date.parse('2026-07-01T00:00:00Z'));
      expect(s.publishedAt).toBeGreaterThan(Date.parse('2025-06-30T00:00:00Z'));
    }
    expect(stories.map((s) => s.publishedAt)).toEqual([...stories.map((s) => s.publishedAt)].sort((a, b) => a - b));
  });

  it('maps each story to its sites and only to news types of those sites', () => {
    const siteOf = new Map(data.newsTypes.map((t) => [t.id, t.siteId]));
    for (const s of data.stories) {
      expect(s.siteIds.length).toBeGreaterThan(0);
      for (const type of s.newsTypeIds) expect(s.siteIds).toContain(siteOf.get(type));
    }
  });

  it('builds parents with ordered children, never a cycle', () => {
    const children = data.stories.filter((s) => s.parentId !== null);
    const parents = new Set(children.map((s) => s.parentId));
    expect(parents.size).toBeGreaterThan(3);
    for (const parentId of parents) {
      const orders = children.filter((s) => s.parentId === parentId).map((s) => s.sortOrder);
      expect(orders).toEqual(orders.map((_, i) => i + 1));
    }
    for (const child of children) expect(child.parentId!).toBeLessThan(child.id);
  });

  it('writes SQL statements under the D1 statement size limit, at most 500 rows each', () => {
    const statements = cmsSeedSql(generateCmsSeed({ stories: 5_000, anchor: '2026-06-30' }));
    for (const statement of statements) {
      expect(statement.length).toBeLessThan(100_000);
      expect(statement.split('),\n(').length).toBeLessThanOrEqual(500);
    }
  });
});

describe('CMS development seed', () => {
  const persistTo = mkdtempSync(join(tmpdir(), 'cms-d1-'));
  afterAll(() => rmSync(persistTo, { recursive: true, force: true }));

  const query = (sql: string) => queryLocalD1('workers/cms/wrangler.toml', 'DB', persistTo, sql);

  it('seeds local D1 after the migrations, and a second run adds nothing', { timeout: 90_000 }, () => {
    applyLocalD1Migrations('workers/cms/wrangler.toml', 'DB', persistTo);
    const data = seedCmsDevData(persistTo, { anchor: '2026-06-30' });
    const counts = `select (select count(*) from sites) as sites, (select count(*) from news_types) as news_types,
      (select count(*) from authors) as authors, (select count(*) from contributors) as contributors,
      (select count(*) from stories) as stories, (select count(*) from story_sites) as story_sites,
      (select count(*) from story_news_types) as story_news_types,
      (select count(*) from stories where parent_id is not null) as children,
      (select count(*) from stories where access_scope = 'Restricted') as restricted`;
    const expected = {
      sites: data.sites.length,
      news_types: data.newsTypes.length,
      authors: data.authors.length,
      contributors: data.contributors.length,
      stories: data.stories.length,
      story_sites: data.stories.reduce((n, s) => n + s.siteIds.length, 0),
      story_news_types: data.stories.reduce((n, s) => n + s.newsTypeIds.length, 0),
      children: data.stories.filter((s) => s.parentId !== null).length,
      restricted: data.stories.filter((s) => s.accessScope === 'Restricted').length,
    };
    expect(query(counts)).toEqual([expected]);
    // A later day (another anchor) and a second run: still the same rows, none twice.
    seedCmsDevData(persistTo, { anchor: '2026-07-15' });
    expect(query(counts)).toEqual([expected]);
    const [first] = query('select id, title, published_at from stories where id = 1');
    expect(first).toEqual({ id: 1, title: data.stories[0]!.title, published_at: data.stories[0]!.publishedAt });
  });
});
