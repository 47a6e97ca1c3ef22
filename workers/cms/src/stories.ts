import { type SQL, sql } from 'drizzle-orm';
import type { AccessScope } from '#d1/cms/schema.ts';
import { storyTextContains } from './story-search.ts';
import { offsetOf } from '#shared/paging.ts';
import { batch, statement } from './d1-sql.ts';
import { LINK_SEARCH_LIMIT, type StoryDetail, type StoryFilters, type StorySort, type StorySummary } from './story-schemas.ts';

/** Columns of a list item, with the story's site and news-type ids folded in by correlated subqueries. */
const SUMMARY_SQL = `s.id, s.title, s.summary, s.access_scope, s.visible, s.breakout, s.author_id, s.contributor_id,
  s.story_image_id, s.parent_id, s.sort_order, s.published_at, s.updated_at,
  (select group_concat(site_id) from story_sites where story_id = s.id) as site_ids,
  (select group_concat(news_type_id) from story_news_types where story_id = s.id) as news_type_ids`;
const SUMMARY_COLUMNS = sql.raw(SUMMARY_SQL);
const DETAIL_COLUMNS = sql.raw(`${SUMMARY_SQL}, s.content, s.created_at`);

export type SummaryRow = {
  id: number;
  title: string;
  summary: string;
  access_scope: AccessScope;
  visible: number;
  breakout: number;
  author_id: number | null;
  contributor_id: number | null;
  story_image_id: number | null;
  parent_id: number | null;
  sort_order: number;
  published_at: number;
  updated_at: number;
  site_ids: string | null;
  news_type_ids: string | null;
};
export type DetailRow = SummaryRow & { content: string; created_at: number };

const ids = (list: string | null) =>
  list
    ? list
        .split(',')
        .map(Number)
        .sort((a, b) => a - b)
    : [];
const iso = (ms: number) => new Date(ms).toISOString();

export function toSummary(row: SummaryRow): StorySummary {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    accessScope: row.access_scope,
    visible: Boolean(row.visible),
    breakout: Boolean(row.breakout),
    authorId: row.author_id,
    contributorId: row.contributor_id,
    storyImageId: row.story_image_id,
    parentId: row.parent_id,
    sortOrder: row.sort_order,
    publishedAt: iso(row.published_at),
    updatedAt: iso(row.updated_at),
    siteIds: ids(row.site_ids),
    newsTypeIds: ids(row.news_type_ids),
  };
}

export function toDetail(row: DetailRow): StoryDetail {
  return { ...toSummary(row), content: row.content, createdAt: iso(row.created_at) };
}

const DAY_MS = 86_400_000;

/** Each sort names an index-backed order; the id breaks ties so paging is stable. */
const ORDER: Record<StorySort, string> = {
  publishedAt: 's.published_at asc, s.id asc',
  '-publishedAt': 's.published_at desc, s.id desc',
  title: 's.title collate nocase asc, s.id asc',
  '-title': 's.title collate nocase desc, s.id desc',
  id: 's.id asc',
  '-id': 's.id desc',
  updatedAt: 's.updated_at asc, s.id asc',
  '-updatedAt': 's.updated_at desc, s.id desc',
};

type Mapping = { table: 'story_sites' | 'story_news_types'; column: 'site_id' | 'news_type_id'; id: number };

/** Conditions on the story row; mapping filters are correlated EXISTS, which an index scan in sort order stops early on. */
function storyConditions(f: StoryFilters, mappings: Mapping[]): SQL[] {
  const where: SQL[] = [];
  if (f.search) {
    where.push(storyTextContains(['title', 'summary'], f.search));
  }
  if (f.visible !== undefined) where.push(sql`s.visible = ${f.visible ? 1 : 0}`);
  if (f.breakout !== undefined) where.push(sql`s.breakout = ${f.breakout ? 1 : 0}`);
  if (f.hasStoryImage !== undefined) where.push(f.hasStoryImage ? sql`s.story_image_id is not null` : sql`s.story_image_id is null`);
  if (f.accessScope) where.push(sql`s.access_scope = ${f.accessScope}`);
  if (f.contributor !== undefined) where.push(sql`s.contributor_id = ${f.contributor}`);
  if (f.from) where.push(sql`s.published_at >= ${Date.parse(`${f.from}T00:00:00Z`)}`);
  if (f.to) where.push(sql`s.published_at < ${Date.parse(`${f.to}T00:00:00Z`) + DAY_MS}`);
  for (const m of mappings)
    where.push(sql`exists (select 1 from ${sql.raw(m.table)} where story_id = s.id and ${sql.raw(m.column)} = ${m.id})`);
  return where;
}

const whereOf = (conditions: SQL[]) => (conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``);

function mappingFilters(f: StoryFilters): Mapping[] {
  const mappings: Mapping[] = [];
  // A news type is the narrower mapping (a site has several), so it leads when both are given.
  if (f.newsType !== undefined) mappings.push({ table: 'story_news_types', column: 'news_type_id', id: f.newsType });
  if (f.siteId !== undefined) mappings.push({ table: 'story_sites', column: 'site_id', id: f.siteId });
  return mappings;
}

/**
 * The total: with a mapping filter, counted from that mapping's index (joined to the story only
 * when other conditions need its row) instead of testing every story.
 */
function countQuery(f: StoryFilters): SQL {
  const [lead, ...rest] = mappingFilters(f);
  if (!lead) return sql`select count(*) as n from stories s ${whereOf(storyConditions(f, []))}`;
  const others = storyConditions(f, rest);
  const byMapping = sql`m.${sql.raw(lead.column)} = ${lead.id}`;
  if (!others.length) return sql`select count(*) as n from ${sql.raw(lead.table)} m where ${byMapping}`;
  return sql`select count(*) as n from ${sql.raw(lead.table)} m join stories s on s.id = m.story_id where ${byMapping} and ${sql.join(others, sql` and `)}`;
}

/**
 * One page and the total, in one round trip. A text search puts every match in order anyway (the
 * search index's matches, dated from the (id, published_at, updated_at) index), so its total is
 * counted in the same pass (`count(*) over ()`) rather than by a second statement that would match
 * them all again; only a page
 * past the last one, which has no row to carry the total, asks for the count on its own (a second
 * round trip). Other lists keep the page and the count as one batch: their page walks an index in
 * sort order and stops early, which a window count would prevent.
 */
export async function listStories(d1: D1Database, f: StoryFilters) {
  if (f.search) {
    // The page's ids first, then the list columns (two correlated look-ups each) for those rows only:
    // SQLite computes a statement's columns before it sorts, which would be for every match.
    const { results } = await statement(
      d1,
      sql`select ${SUMMARY_COLUMNS}, page.total_count from (
            select s.id, count(*) over () as total_count from stories s ${whereOf(storyConditions(f, mappingFilters(f)))}
            order by ${sql.raw(ORDER[f.sort])} limit ${f.pageSize} offset ${offsetOf(f)}
          ) page join stories s on s.id = page.id
          order by ${sql.raw(ORDER[f.sort])}`,
    ).all<SummaryRow & { total_count: number }>();
    if (results.length > 0 || offsetOf(f) === 0) return { items: results.map(toSummary), totalCount: Number(results[0]?.total_count ?? 0) };
    const count = await statement(d1, countQuery(f)).first<{ n: number }>();
    return { items: [], totalCount: Number(count?.n ?? 0) };
  }
  const [count, rows] = await batch(d1, [
    countQuery(f),
    sql`select ${SUMMARY_COLUMNS} from stories s ${whereOf(storyConditions(f, mappingFilters(f)))}
        order by ${sql.raw(ORDER[f.sort])} limit ${f.pageSize} offset ${offsetOf(f)}`,
  ]);
  return { items: rowsOf<SummaryRow>(rows).map(toSummary), totalCount: Number(count?.results[0]?.n ?? 0) };
}

export async function storyDetail(d1: D1Database, id: number): Promise<StoryDetail | undefined> {
  const row = await statement(d1, sql`select ${DETAIL_COLUMNS} from stories s where s.id = ${id}`).first<DetailRow>();
  return row ? toDetail(row) : undefined;
}

export const detailQuery = (id: SQL | number) => sql`select ${DETAIL_COLUMNS} from stories s where s.id = ${id}`;

const existsQuery = (id: number) => sql`select id from stories where id = ${id}`;

export const rowsOf = <T>(result: D1Result<Record<string, unknown>> | undefined) => (result?.results ?? []) as T[];

/** `undefined`: no such story; `null`: the story has no parent. */
export async function storyParent(d1: D1Database, id: number): Promise<StorySummary | null | undefined> {
  const [story, parent] = await batch(d1, [
    existsQuery(id),
    sql`select ${SUMMARY_COLUMNS} from stories s where s.id = (select parent_id from stories where id = ${id})`,
  ]);
  if (!story?.results.length) return undefined;
  const row = rowsOf<SummaryRow>(parent)[0];
  return row ? toSummary(row) : null;
}

/** `undefined`: no such story. */
export async function storyChildren(d1: D1Database, id: number): Promise<StorySummary[] | undefined> {
  const [story, children] = await batch(d1, [
    existsQuery(id),
    sql`select ${SUMMARY_COLUMNS} from stories s where s.parent_id = ${id} order by s.sort_order, s.id`,
  ]);
  return story?.results.length ? rowsOf<SummaryRow>(children).map(toSummary) : undefined;
}

/** Stories on any of the sites: a number matches the id, other text the title by substring; latest first. */
export async function linkSearch(d1: D1Database, siteIds: number[], query: string): Promise<StorySummary[]> {
  const match = /^\d{1,9}$/.test(query)
    ? sql`and s.id = ${Number(query)}`
    : query
      ? sql`and ${storyTextContains(['title'], query)}`
      : sql``;
  const rows = await statement(
    d1,
    sql`select ${SUMMARY_COLUMNS} from stories s
        where exists (select 1 from story_sites where story_id = s.id and site_id in (select value from json_each(${JSON.stringify(siteIds)}))) ${match}
        order by s.published_at desc, s.id desc limit ${LINK_SEARCH_LIMIT}`,
  ).all<SummaryRow>();
  return rows.results.map(toSummary);
}
