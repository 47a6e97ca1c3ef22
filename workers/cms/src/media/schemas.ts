import { z } from '@hono/zod-openapi';
import { createSelectSchema } from 'drizzle-zod';
import { photos, videos } from '#d1/cms/schema.ts';
import { pageOf, pagingQuery } from '#shared/paging.ts';
import { plainIntegers } from '#shared/table-schemas.ts';
import { MEDIA_TYPES, UPLOAD_SLOTS } from './keys.ts';
import { text as plainText } from '#shared/text.ts';

export const MediaTypeParam = z
  .enum(MEDIA_TYPES, { error: 'must be photo or video' })
  .openapi({ description: 'The gallery: photo or video', example: 'photo' });

const text = (max: number) => plainText({ error: 'must be a string' }).trim().max(max, `must be at most ${max} characters`);
const title = text(300).min(1, 'must not be empty');
const objectKey = plainText({ error: 'must be a string' }).max(1024, 'is too long');

export const TypeQuery = z.object({ type: MediaTypeParam });

export const ListQuery = z
  .object({
    type: MediaTypeParam,
    search: text(200).optional().openapi({ description: 'Matches title, caption or credit by substring' }),
    photoType: text(100).optional().openapi({ description: 'Photos only: exact photo type (400 with type=video)' }),
    ...pagingQuery,
  })
  .superRefine((q, ctx) => {
    if (q.type === 'video' && q.photoType !== undefined)
      ctx.addIssue({ code: 'custom', path: ['photoType'], message: 'applies to photos only' });
  });

export const UploadUrlQuery = z.object({
  type: MediaTypeParam,
  contentType: z
    .string({ error: 'is required' })
    .trim()
    .toLowerCase()
    .max(100, 'is too long')
    .openapi({ description: "The file's content type; the PUT must send exactly this Content-Type", example: 'image/jpeg' }),
  size: z.coerce
    .number({ error: 'must be a whole number of bytes' })
    .int('must be a whole number of bytes')
    .min(1, 'must be at least 1 byte')
    .max(Number.MAX_SAFE_INTEGER, 'is too large')
    .openapi({ description: "The file's exact size in bytes; the PUT must send exactly this many", example: 123456 }),
  fileName: text(255).optional().openapi({ description: "The file's name on the editor's machine (informational)" }),
  slot: z
    .enum(UPLOAD_SLOTS, { error: 'must be original, video or poster' })
    .optional()
    .openapi({ description: "Which file: original (photos, the default), video (videos, the default) or poster (a video's poster image)" }),
});

export const UploadUrlResult = z
  .object({
    uploadUrl: z.string().openapi({ description: 'Presigned address: PUT the file bytes here' }),
    objectKey: z.string().openapi({
      description: 'The bare object key the address is signed for; send it to POST /api/v1/media',
      example: 'pending/photo/3b0c….jpg',
    }),
    method: z.literal('PUT'),
    headers: z.object({ 'content-type': z.string() }).openapi({ description: 'Headers the PUT must carry, exactly' }),
    expiresAt: z.string().openapi({ description: 'When the address stops working (ISO 8601)' }),
    maxBytes: z.number().int().openapi({ description: 'The PUT body must be exactly the declared size, and within this gallery limit' }),
  })
  .openapi('UploadUrl');

export const CreateBody = z
  .object({
    type: MediaTypeParam,
    objectKey: objectKey.openapi({ description: 'The key from upload-url (the photo original or the video file), already uploaded' }),
    posterKey: objectKey.optional().openapi({ description: 'Videos: an uploaded poster image (upload-url with slot=poster)' }),
    title,
    caption: text(4000).optional(),
    credit: text(300).optional(),
    photoType: text(100).min(1, 'must not be empty').optional().openapi({ description: 'Photos only; default "general"' }),
    durationSeconds: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(0)
      .max(864_000)
      .optional()
      .openapi({ description: 'Videos only' }),
  })
  .superRefine((b, ctx) => {
    if (b.type === 'photo') {
      for (const field of ['posterKey', 'durationSeconds'] as const) {
        if (b[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'applies to videos only' });
      }
    } else if (b.photoType !== undefined) ctx.addIssue({ code: 'custom', path: ['photoType'], message: 'applies to photos only' });
  })
  .openapi('MediaCreate');

export const UpdateBody = z
  .object({
    type: MediaTypeParam,
    title: title.optional(),
    caption: text(4000).optional(),
    credit: text(300).optional(),
    photoType: text(100).min(1, 'must not be empty').optional(),
    durationSeconds: z.number({ error: 'must be a number' }).int('must be a whole number').min(0).max(864_000).nullable().optional(),
    originalKey: objectKey
      .optional()
      .openapi({ description: 'Photos: a new upload replaces the original and remakes the variants; the stored key keeps it' }),
    thumbnailKey: objectKey.optional().openapi({ description: 'Photos: made from the original; only the stored key is accepted' }),
    mediumKey: objectKey.optional(),
    largeKey: objectKey.optional(),
    videoKey: objectKey.optional().openapi({ description: 'Videos: a new upload replaces the video file; the stored key keeps it' }),
    posterKey: objectKey
      .nullable()
      .optional()
      .openapi({ description: 'Videos: a new upload replaces the poster, null removes it, the stored key keeps it' }),
  })
  .superRefine((b, ctx) => {
    const photoOnly = ['photoType', 'originalKey', 'thumbnailKey', 'mediumKey', 'largeKey'] as const;
    const videoOnly = ['durationSeconds', 'videoKey', 'posterKey'] as const;
    for (const field of b.type === 'photo' ? videoOnly : photoOnly) {
      if (b[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `applies to ${b.type === 'photo' ? 'videos' : 'photos'} only` });
    }
  })
  .openapi('MediaUpdate');

// A photo or video in an answer is its row (the schemas come from the tables, drizzle-zod) with the
// times as ISO 8601, its gallery and its files' addresses.
const photoRow = plainIntegers(createSelectSchema(photos)).shape;
const videoRow = plainIntegers(createSelectSchema(videos)).shape;

const common = (row: typeof photoRow | typeof videoRow) => ({
  id: row.id,
  title: row.title,
  caption: row.caption,
  credit: row.credit,
  contentType: row.contentType,
  sizeBytes: row.sizeBytes,
  createdBy: row.createdBy,
  createdAt: z.string(),
  updatedAt: z.string(),
});
const url = z.string().nullable();

export const PhotoItem = z
  .object({
    type: z.literal('photo'),
    ...common(photoRow),
    photoType: photoRow.photoType,
    originalKey: photoRow.originalKey,
    thumbnailKey: photoRow.thumbnailKey,
    mediumKey: photoRow.mediumKey,
    largeKey: photoRow.largeKey,
    width: photoRow.width,
    height: photoRow.height,
    urls: z.object({ original: z.string(), thumbnail: url, medium: url, large: url }),
  })
  .openapi('Photo');

export const VideoItem = z
  .object({
    type: z.literal('video'),
    ...common(videoRow),
    videoKey: videoRow.videoKey,
    posterKey: videoRow.posterKey,
    durationSeconds: videoRow.durationSeconds,
    urls: z.object({ video: z.string(), poster: url }),
  })
  .openapi('Video');

export const MediaItem = z.union([PhotoItem, VideoItem]).openapi('MediaItem');
export const MediaPage = pageOf(MediaItem, 'MediaPage');

export const FILE_SLOTS = ['original', 'thumbnail', 'medium', 'large', 'video', 'poster'] as const;
export type FileSlot = (typeof FILE_SLOTS)[number];
