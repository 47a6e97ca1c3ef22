import { type SQL, sql } from 'drizzle-orm';
import { HttpError } from '#shared/http-error.ts';
import type { StoryDetail, StoryInput } from './story-schemas.ts';
import { batch, statement } from './d1-sql.ts';
import { type DetailRow, detailQuery, rowsOf, toDetail } from './stories.ts';
import { indexStory, unindexStory } from './story-search.ts';

/** The configured access-tier tags a Restricted story's content lacks (compared case-insensitively). */
export function missingRestrictedTags(input: Pick<StoryInput, 'accessScope' | 'content'>, tags: string[]): string[] {
  if (input.accessScope !== 'Restricted') return [];
  const content = input.content.toLowerCase();
  return tags.filter((tag) => !content.includes(tag.toLowerCase()));
}

const invalid = (field: string, message: string) =>
  new HttpError(400, 'invalid_request', `Invalid json.${field}: ${message}`, { issues: [{ field: `json.${field}`, message }] });

type ReferenceCheck = {
  story_exists: number;
  sites: string;
  news_types: string;
  author_exists: number;
  contributor_exists: number;
  image_exists: number;
  stored_image: number | null;
  ancestors: string;
};

/**
 * Every reference of the body checked in one statement: sites, news types (and their sites),
 * author, contributor, story image (a photo), and the parent's chain of ancestors (a cycle when
 * it reaches the story).
 */
async function checkReferences(d1: D1Database, input: StoryInput, storyId: number | null): Promise<boolean> {
  const row = await statement(
    d1,
    sql`select
    (select count(*) from stories where id = ${storyId}) as story_exists,
    (select json_group_array(id) from sites where id in (select value from json_each(${JSON.stringify(input.siteIds)}))) as sites,
    (select json_group_array(json_array(id, site_id)) from news_types where id in (select value from json_each(${JSON.stringify(input.newsTypeIds)}))) as news_types,
    (select count(*) from authors where id = ${input.authorId}) as author_exists,
    (select count(*) from contributors where id = ${input.contributorId}) as contributor_exists,
    (select count(*) from photos where id = ${input.storyImageId}) as image_exists,
    (select story_image_id from stories where id = ${storyId}) as stored_image,
    (with recursive up(id, parent_id) as (
       select id, parent_id from stories where id = ${input.parentId}
       union select s.id, s.parent_id from stories s join up on s.id = up.parent_id
     ) select json_group_array(id) from up) as ancestors`,
  ).first<ReferenceCheck>();
  if (!row) throw new Error('reference check returned no row');
  if (storyId !== null && !row.story_exists) return false;

  const sites = new Set(JSON.parse(row.sites) as number[]);
  const unknownSites = input.siteIds.filter((id) => !sites.has(id));
  if (unknownSites.length) throw invalid('siteIds', `unknown site id(s) ${unknownSites.join(', ')}`);
  const newsTypes = new Map(JSON.parse(row.news_types) as [number, number][]);
  const unknownTypes = input.newsTypeIds.filter((id) => !newsTypes.has(id));
  if (unknownTypes.length) throw invalid('newsTypeIds', `unknown news type id(s) ${unknownTypes.join(', ')}`);
  const foreign = input.newsTypeIds.filter((id) => !sites.has(newsTypes.get(id)!));
  if (foreign.length) throw invalid('newsTypeIds', `news type id(s) ${foreign.join(', ')} belong to none of the story's sites`);
  if (input.authorId !== null && !row.author_exists) throw invalid('authorId', `unknown author id ${input.authorId}`);
  if (input.contributorId !== null && !row.contributor_exists)
    throw invalid('contributorId', `unknown contributor id ${input.contributorId}`);
  // A new story image must be a photo of the library; the one already stored may stay even if
  // its photo has since been deleted, so such a story can still be saved.
  if (input.storyImageId !== null && !row.image_exists && input.storyImageId !== row.stored_image) {
    throw invalid('storyImageId', `unknown photo id ${input.storyImageId}`);
  }
  if (input.parentId !== null) {
    const ancestors = JSON.parse(row.ancestors) as number[];
    if (!ancestors.length) throw invalid('parentId', `unknown story id ${input.parentId}`);
    if (storyId !== null && ancestors.includes(storyId)) {
      throw invalid(
        'parentId',
        input.parentId === storyId ? 'a story cannot be its own parent' : 'would make the story an ancestor of itself',
      );
    }
  }
  return true;
}

/** Mapping rows replaced wholesale; `guard` keeps them from landing if the story has gone meanwhile. */
function mappingStatements(storyId: SQL, input: StoryInput): SQL[] {
  return [
    sql`delete from story_sites where story_id = ${storyId}`,
    sql`insert into story_sites (story_id, site_id)
        select ${storyId}, value from json_each(${JSON.stringify(input.siteIds)}) where exists (select 1 from stories where id = ${storyId})`,
    sql`delete from story_news_types where story_id = ${storyId}`,
    sql`insert into story_news_types (story_id, news_type_id)
        select ${storyId}, value from json_each(${JSON.stringify(input.newsTypeIds)}) where exists (select 1 from stories where id = ${storyId})`,
  ];
}

function rethrowVanishedReference(err: unknown): never {
  if (
    err instanceof Error &&
    /FOREIGN KEY constraint failed/i.test(`${err.message} ${err.cause instanceof Error ? err.cause.message : ''}`)
  ) {
    throw new HttpError(
      409,
      'conflict',
      'A referenced site, news type, author, contributor or parent story was deleted meanwhile; try again.',
    );
  }
  throw err;
}

const publishedMs = (input: StoryInput) => (input.publishedAt ? Date.parse(input.publishedAt) : null);

/** Creates the story and its mappings in one batch (one transaction); answers the stored story. */
export async function createStory(d1: D1Database, input: StoryInput, now = Date.now()): Promise<StoryDetail> {
  await checkReferences(d1, input, null);
  // AUTOINCREMENT hands out ids above every existing one, so inside this transaction the new
  // story is the highest id.
  const newId = sql`(select max(id) from stories)`;
  const results = await batch(d1, [
    sql`insert into stories (title, summary, content, access_scope, visible, breakout, author_id, contributor_id, story_image_id,
                   parent_id, sort_order, published_at, created_at, updated_at)
                 values (${input.title}, ${input.summary}, ${input.content}, ${input.accessScope}, ${input.visible ? 1 : 0}, ${input.breakout ? 1 : 0},
                   ${input.authorId}, ${input.contributorId}, ${input.storyImageId}, ${input.parentId}, ${input.sortOrder},
                   ${publishedMs(input) ?? now}, ${now}, ${now})`,
    indexStory(newId),
    ...mappingStatements(newId, input),
    detailQuery(newId),
  ]).catch(rethrowVanishedReference);
  const row = rowsOf<DetailRow>(results.at(-1))[0];
  if (!row) throw new Error('created story not found');
  return toDetail(row);
}

/** Replaces the story and resyncs its mappings in one batch; `undefined` when there is no such story. */
export async function updateStory(d1: D1Database, id: number, input: StoryInput, now = Date.now()): Promise<StoryDetail | undefined> {
  if (!(await checkReferences(d1, input, id))) return undefined;
  const storyId = sql`${id}`;
  const results = await batch(d1, [
    unindexStory(storyId),
    sql`update stories set title = ${input.title}, summary = ${input.summary}, content = ${input.content},
                   access_scope = ${input.accessScope}, visible = ${input.visible ? 1 : 0}, breakout = ${input.breakout ? 1 : 0},
                   author_id = ${input.authorId}, contributor_id = ${input.contributorId}, story_image_id = ${input.storyImageId},
                   parent_id = ${input.parentId}, sort_order = ${input.sortOrder}, published_at = coalesce(${publishedMs(input)}, published_at),
                   updated_at = ${now}
                 where id = ${id}`,
    indexStory(storyId),
    ...mappingStatements(storyId, input),
    detailQuery(id),
  ]).catch(rethrowVanishedReference);
  const row = rowsOf<DetailRow>(results.at(-1))[0];
  return row ? toDetail(row) : undefined;
}

/**
 * The story and its mapping rows go in one batch (a transaction); its children are detached (their
 * parent_id set to null) explicitly rather than left to the foreign key. False when nothing was deleted.
 */
export async function deleteStory(d1: D1Database, id: number): Promise<boolean> {
  const [, , , , deleted] = await batch(d1, [
    sql`update stories set parent_id = null where parent_id = ${id}`,
    sql`delete from story_news_types where story_id = ${id}`,
    sql`delete from story_sites where story_id = ${id}`,
    unindexStory(sql`${id}`),
    sql`delete from stories where id = ${id}`,
  ]);
  return (deleted?.meta.changes ?? 0) > 0;
}
