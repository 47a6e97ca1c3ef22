import { z } from '@hono/zod-openapi';
import { createSelectSchema } from 'drizzle-zod';
import { ACCESS_SCOPES, stories } from '#d1/cms/schema.ts';
import { plainIntegers } from '#shared/table-schemas.ts';
import { pageOf, pagingQuery } from '#shared/paging.ts';
import { isoDate } from '#shared/dates.ts';
import { idList, idText } from './routes/openapi.ts';
import { text } from '#shared/text.ts';

/** The list's sort values: a field, descending with a leading `-`; ties break on the id the same way. */
export const STORY_SORTS = ['publishedAt', '-publishedAt', 'title', '-title', 'id', '-id', 'updatedAt', '-updatedAt'] as const;
export type StorySort = (typeof STORY_SORTS)[number];

export const MAX_SEARCH_LENGTH = 200;
export const LINK_SEARCH_LIMIT = 20;
export const MAX_TITLE_LENGTH = 300;

/** Query booleans: exactly true/false/1/0, so `?visible=yes` is a 400 rather than a silent "true". */
const queryBoolean = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true, false, 1 or 0' })
  .transform((v) => v === 'true' || v === '1')
  .optional();

const queryId = idText.optional();

export const StoryListQuery = z
  .object({
    search: text()
      .trim()
      .max(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`)
      .optional()
      .openapi({ description: 'Case-insensitive substring of the title or the summary' }),
    visible: queryBoolean.openapi({ description: 'true/false/1/0' }),
    newsType: queryId.openapi({ description: 'A news type id the story is mapped to', type: 'integer' }),
    contributor: queryId.openapi({ description: 'Contributor id', type: 'integer' }),
    accessScope: z.enum(ACCESS_SCOPES, { error: `must be one of ${ACCESS_SCOPES.join(', ')}` }).optional(),
    breakout: queryBoolean.openapi({ description: 'true/false/1/0' }),
    hasStoryImage: queryBoolean.openapi({ description: 'true: only stories with a story image; false: only those without' }),
    siteId: queryId.openapi({ description: 'A site id the story is mapped to', type: 'integer' }),
    from: isoDate.optional().openapi({ description: 'Published on or after this day (UTC), yyyy-MM-dd', example: '2026-01-01' }),
    to: isoDate
      .optional()
      .openapi({ description: 'Published on or before this day (UTC), yyyy-MM-dd; not before `from`', example: '2026-01-31' }),
    sort: z
      .enum(STORY_SORTS, { error: `must be one of ${STORY_SORTS.join(', ')}` })
      .default('-publishedAt')
      .openapi({ description: 'A leading `-` sorts descending' }),
    ...pagingQuery,
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { path: ['to'], message: 'must not be before from' });
export type StoryFilters = z.output<typeof StoryListQuery>;

export const LinkSearchQuery = z.object({
  siteIds: idList
    .refine((ids) => ids.length > 0, 'is required: comma-separated site ids')
    .refine((ids) => ids.length <= 50, 'must name at most 50 sites')
    .openapi({ description: 'Comma-separated site ids (required); only stories on one of them are found', example: '1,2', type: 'string' }),
  query: text().trim().max(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`).default('').openapi({
    description: 'A number matches the story id exactly; other text matches the title by substring. Empty: the latest stories.',
  }),
});

const bodyId = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be a positive id')
  .max(2_147_483_647, 'is too large');
const optionalRef = bodyId.nullable().default(null);
const uniqueIds = (ids: number[]) => [...new Set(ids)];

export const StoryBody = z
  .object({
    title: text({ error: 'is required' })
      .trim()
      .min(1, 'is required')
      .max(MAX_TITLE_LENGTH, `must be at most ${MAX_TITLE_LENGTH} characters`),
    summary: text().max(2_000, 'must be at most 2000 characters').default(''),
    content: text().default('').openapi({ description: 'The body (HTML). A Restricted story must hold every configured access-tier tag.' }),
    accessScope: z.enum(ACCESS_SCOPES, { error: `must be one of ${ACCESS_SCOPES.join(', ')}` }).default('Public'),
    visible: z.boolean({ error: 'must be true or false' }).default(true),
    breakout: z.boolean({ error: 'must be true or false' }).default(false),
    authorId: optionalRef,
    contributorId: optionalRef,
    storyImageId: optionalRef.openapi({ description: 'A photo id of the media library' }),
    parentId: optionalRef.openapi({ description: 'The parent story; not the story itself nor one of its descendants' }),
    sortOrder: z.number({ error: 'must be a whole number' }).int('must be a whole number').min(-1_000_000).max(1_000_000).default(0),
    publishedAt: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-01-31T09:30:00Z' })
      .refine((v) => {
        const year = new Date(v).getUTCFullYear();
        return year >= 1970 && year <= 9999;
      }, 'must be between 1970 and 9999')
      .optional()
      .openapi({ description: 'Defaults to now on create; kept as stored when an update omits it' }),
    siteIds: z
      .array(bodyId, { error: 'must be an array of site ids' })
      .min(1, 'must name at least one site')
      .max(50, 'must name at most 50 sites')
      .transform(uniqueIds),
    newsTypeIds: z
      .array(bodyId, { error: 'must be an array of news type ids' })
      .max(100, 'must name at most 100 news types')
      .default([])
      .transform(uniqueIds),
  })
  .openapi('StoryInput');
export type StoryInput = z.output<typeof StoryBody>;

// A story in an answer is its row (the schema comes from the table, drizzle-zod) with the times as
// ISO 8601 and the ids of its sites and news types.
const storyRow = plainIntegers(
  createSelectSchema(stories).pick({
    id: true,
    title: true,
    summary: true,
    accessScope: true,
    visible: true,
    breakout: true,
    authorId: true,
    contributorId: true,
    storyImageId: true,
    parentId: true,
    sortOrder: true,
  }),
);

const summaryShape = {
  ...storyRow.shape,
  publishedAt: z.string().openapi({ example: '2026-01-31T09:30:00.000Z' }),
  updatedAt: z.string(),
  siteIds: z.array(z.number().int()),
  newsTypeIds: z.array(z.number().int()),
};

export const StorySummary = z.object(summaryShape).openapi('StorySummary');
export type StorySummary = z.output<typeof StorySummary>;

export const StoryDetail = z.object({ ...summaryShape, content: z.string(), createdAt: z.string() }).openapi('Story');
export type StoryDetail = z.output<typeof StoryDetail>;

export const StoryPage = pageOf(StorySummary, 'StoryPage');

export const RestrictedStoryError = z
  .object({
    message: z.string(),
    missingTags: z.array(z.string()).openapi({ example: ['[members-only]'] }),
  })
  .openapi('RestrictedStoryError');
