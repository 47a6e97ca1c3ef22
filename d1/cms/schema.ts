import { sql } from 'drizzle-orm';
import { type AnySQLiteColumn, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Timestamps are Unix milliseconds. */
const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;

/** The publications a story can appear on. */
export const sites = sqliteTable('sites', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  url: text('url').notNull().default(''),
});

/** Journalists a story is written by. */
export const authors = sqliteTable('authors', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  email: text('email'),
});

/** Outside contributors (tipsters, columnists) a story can be credited to. */
export const contributors = sqliteTable('contributors', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
});

/** A news type belongs to one site; a story maps to any number of them. */
export const newsTypes = sqliteTable(
  'news_types',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
  },
  (t) => [index('news_types_site').on(t.siteId, t.name)],
);

export const ACCESS_SCOPES = ['Public', 'Registered', 'Subscriber', 'Restricted'] as const;
export type AccessScope = (typeof ACCESS_SCOPES)[number];

export const stories = sqliteTable(
  'stories',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    title: text('title').notNull(),
    summary: text('summary').notNull().default(''),
    content: text('content').notNull().default(''),
    accessScope: text('access_scope', { enum: ACCESS_SCOPES }).notNull().default('Public'),
    visible: integer('visible', { mode: 'boolean' }).notNull().default(true),
    breakout: integer('breakout', { mode: 'boolean' }).notNull().default(false),
    authorId: integer('author_id').references(() => authors.id, { onDelete: 'set null' }),
    contributorId: integer('contributor_id').references(() => contributors.id, { onDelete: 'set null' }),
    /** A photo id (photos table); the hasStoryImage filter is `story_image_id is not null`. */
    storyImageId: integer('story_image_id'),
    parentId: integer('parent_id').references((): AnySQLiteColumn => stories.id, { onDelete: 'set null' }),
    /** Orders a story among its parent's children. */
    sortOrder: integer('sort_order').notNull().default(0),
    /** The story's date: the list's date range and default sort. */
    publishedAt: integer('published_at').notNull().default(now),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [
    index('stories_published').on(t.publishedAt),
    // The list's other sorts (title case-insensitively, last change) read these in order.
    index('stories_title').on(sql`${t.title} collate nocase`),
    index('stories_updated').on(t.updatedAt),
    index('stories_parent').on(t.parentId, t.sortOrder),
    index('stories_contributor').on(t.contributorId, t.publishedAt),
    // A text search's matches (ids from the search index) counted and put in date order from this
    // index alone, without reading their rows.
    index('stories_id_dates').on(t.id, t.publishedAt, t.updatedAt),
  ],
);

export const storySites = sqliteTable(
  'story_sites',
  {
    storyId: integer('story_id')
      .notNull()
      .references(() => stories.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.storyId, t.siteId] }), index('story_sites_site').on(t.siteId, t.storyId)],
);

export const storyNewsTypes = sqliteTable(
  'story_news_types',
  {
    storyId: integer('story_id')
      .notNull()
      .references(() => stories.id, { onDelete: 'cascade' }),
    newsTypeId: integer('news_type_id')
      .notNull()
      .references(() => newsTypes.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.storyId, t.newsTypeId] }), index('story_news_types_type').on(t.newsTypeId, t.storyId)],
);

/** Image gallery. Photo and video ids overlap: each gallery numbers its own items. */
export const photos = sqliteTable(
  'photos',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    title: text('title').notNull(),
    caption: text('caption').notNull().default(''),
    credit: text('credit').notNull().default(''),
    photoType: text('photo_type').notNull().default('general'),
    /** Object-key slots in the media bucket: the original and its resized variants. */
    originalKey: text('original_key').notNull(),
    thumbnailKey: text('thumbnail_key'),
    mediumKey: text('medium_key'),
    largeKey: text('large_key'),
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    width: integer('width'),
    height: integer('height'),
    createdBy: integer('created_by'),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [index('photos_type').on(t.photoType, t.id)],
);

/** Video gallery. */
export const videos = sqliteTable('videos', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  title: text('title').notNull(),
  caption: text('caption').notNull().default(''),
  credit: text('credit').notNull().default(''),
  /** Object-key slots: the video file and its poster image. */
  videoKey: text('video_key').notNull(),
  posterKey: text('poster_key'),
  contentType: text('content_type').notNull(),
  sizeBytes: integer('size_bytes').notNull(),
  durationSeconds: integer('duration_seconds'),
  createdBy: integer('created_by'),
  createdAt: integer('created_at').notNull().default(now),
  updatedAt: integer('updated_at').notNull().default(now),
});

/**
 * A signed-in editor. The cookie carries only a random id; the row is found by its SHA-256, and
 * the authentication service's refresh token is kept sealed (AES-GCM) so a copy of this table
 * alone does not grant a session there.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: integer('user_id').notNull(),
    email: text('email').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    role: text('role').notNull(),
    refreshTokenSealed: text('refresh_token_sealed').notNull(),
    /** When the authentication service last confirmed the account (a refresh); rechecked after a while. */
    checkedAt: integer('checked_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [index('sessions_expires').on(t.expiresAt)],
);
