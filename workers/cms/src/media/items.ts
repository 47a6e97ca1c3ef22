import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import { photos, videos } from '#d1/cms/schema.ts';
import { sqliteContains } from '#shared/like.ts';
import { offsetOf, type Paging } from '#shared/paging.ts';
import type { CmsDb } from '../context.ts';
import type { MediaConfig } from './config.ts';
import type { MediaType } from './keys.ts';
import type { FileSlot } from './schemas.ts';

export type PhotoRow = typeof photos.$inferSelect;
export type VideoRow = typeof videos.$inferSelect;

/**
 * Where a client fetches a stored file: the public bucket address when configured, else this
 * Worker under `base`, the path prefix the request came in under ('' at the root).
 */
function fileUrl(config: MediaConfig, base: string, type: MediaType, id: number, slot: FileSlot, key: string): string;
function fileUrl(config: MediaConfig, base: string, type: MediaType, id: number, slot: FileSlot, key: string | null): string | null;
function fileUrl(config: MediaConfig, base: string, type: MediaType, id: number, slot: FileSlot, key: string | null) {
  if (!key) return null;
  return config.MEDIA_PUBLIC_BASE_URL ? `${config.MEDIA_PUBLIC_BASE_URL}/${key}` : `${base}/api/v1/media/${id}/file/${slot}?type=${type}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function photoItem(row: PhotoRow, config: MediaConfig, base: string) {
  const at = (slot: FileSlot, key: string | null) => fileUrl(config, base, 'photo', row.id, slot, key);
  return {
    type: 'photo' as const,
    id: row.id,
    title: row.title,
    caption: row.caption,
    credit: row.credit,
    photoType: row.photoType,
    originalKey: row.originalKey,
    thumbnailKey: row.thumbnailKey,
    mediumKey: row.mediumKey,
    largeKey: row.largeKey,
    contentType: row.contentType,
    sizeBytes: row.sizeBytes,
    width: row.width,
    height: row.height,
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    urls: {
      original: fileUrl(config, base, 'photo', row.id, 'original', row.originalKey),
      thumbnail: at('thumbnail', row.thumbnailKey),
      medium: at('medium', row.mediumKey),
      large: at('large', row.largeKey),
    },
  };
}

export function videoItem(row: VideoRow, config: MediaConfig, base: string) {
  return {
    type: 'video' as const,
    id: row.id,
    title: row.title,
    caption: row.caption,
    credit: row.credit,
    videoKey: row.videoKey,
    posterKey: row.posterKey,
    contentType: row.contentType,
    sizeBytes: row.sizeBytes,
    durationSeconds: row.durationSeconds,
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    urls: {
      video: fileUrl(config, base, 'video', row.id, 'video', row.videoKey),
      poster: fileUrl(config, base, 'video', row.id, 'poster', row.posterKey),
    },
  };
}

/** Every object a record holds, for deleting them all. */
export const photoKeys = (row: PhotoRow) => [row.originalKey, row.thumbnailKey, row.mediumKey, row.largeKey];
export const videoKeys = (row: VideoRow) => [row.videoKey, row.posterKey];

function matches(columns: SQL.Aliased[] | unknown[], search: string | undefined): SQL | undefined {
  if (!search) return undefined;
  return sql.join(
    columns.map((col) => sqliteContains(col, search)),
    sql` or `,
  );
}

export async function listPhotos(db: CmsDb, filter: { search?: string; photoType?: string }, paging: Paging) {
  const search = matches([photos.title, photos.caption, photos.credit], filter.search);
  const where = and(search ? sql`(${search})` : undefined, filter.photoType ? eq(photos.photoType, filter.photoType) : undefined);
  const [rows, [total]] = await db.batch([
    db.select().from(photos).where(where).orderBy(desc(photos.id)).limit(paging.pageSize).offset(offsetOf(paging)),
    db.select({ n: count() }).from(photos).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function listVideos(db: CmsDb, filter: { search?: string }, paging: Paging) {
  const search = matches([videos.title, videos.caption, videos.credit], filter.search);
  const where = search ? sql`(${search})` : undefined;
  const [rows, [total]] = await db.batch([
    db.select().from(videos).where(where).orderBy(desc(videos.id)).limit(paging.pageSize).offset(offsetOf(paging)),
    db.select({ n: count() }).from(videos).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
