import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { photos, videos } from '#d1/cms/schema.ts';
import { HttpError } from '#shared/http-error.ts';
import type { CmsDb } from '../context.ts';
import { r2Credentials, type MediaConfig } from './config.ts';
import { photoItem, photoKeys, videoItem, videoKeys } from './items.ts';
import { type MediaType, newPendingKey, slotRules, slotsOf, type UploadSlot } from './keys.ts';
import { presignR2Put, signUpload } from './presign.ts';
import type { CreateBody, FileSlot, UpdateBody } from './schemas.ts';
import { checkPending, deleteObjects, promoteFile, promotePhoto, type PromotedPhoto } from './store.ts';

/**
 * What the media library works with: the CMS database, the bucket, the media settings, and the
 * path prefix the request came in under ('' at the root) for the URLs it answers.
 */
export type Library = { db: CmsDb; bucket: R2Bucket; config: MediaConfig; base: string };

const notFound = (type: MediaType, id: number) => new HttpError(404, 'not_found', `No ${type} with id ${id}.`);

const badQuery = (field: string, message: string, issue: string, details: Record<string, unknown> = {}) =>
  new HttpError(400, 'invalid_request', message, { issues: [{ field, message: issue }], ...details });

/** The columns of a photo record that describe its stored files. */
const photoFiles = (photo: PromotedPhoto) => ({
  originalKey: photo.key,
  thumbnailKey: photo.variants.thumbnail,
  mediumKey: photo.variants.medium,
  largeKey: photo.variants.large,
  contentType: photo.contentType,
  sizeBytes: photo.sizeBytes,
  width: photo.width,
  height: photo.height,
});

/**
 * Step 1 of an upload: a fresh pending key and where to PUT it. An R2 presigned PUT when the
 * service has S3 credentials; otherwise this Worker's own signed address under `uploadBase`
 * (absolute, with the path prefix the request came in under).
 */
export async function uploadAddress(
  config: MediaConfig,
  request: { type: MediaType; slot: UploadSlot; contentType: string; size: number },
  uploadBase: URL,
  now = Date.now(),
) {
  const { type, slot, contentType, size } = request;
  if (!slotsOf(type).includes(slot)) {
    throw badQuery(
      'query.slot',
      `A ${type} has no ${slot} file; slots: ${slotsOf(type).join(', ')}.`,
      `must be one of ${slotsOf(type).join(', ')} for a ${type}`,
    );
  }
  const { contentTypes, maxBytes } = slotRules(config, slot);
  if (!contentTypes.includes(contentType)) {
    throw badQuery(
      'query.contentType',
      `Content type ${contentType} is not accepted for a ${slot === 'video' ? 'video' : 'photo'}; allowed: ${contentTypes.join(', ')}.`,
      `must be one of ${contentTypes.join(', ')}`,
    );
  }
  if (size > maxBytes) {
    throw badQuery('query.size', `The file is ${size} bytes; the limit is ${maxBytes} bytes.`, `must be at most ${maxBytes} bytes`, {
      maxBytes,
    });
  }
  const objectKey = newPendingKey(slot, contentType);
  const ttl = config.MEDIA_UPLOAD_URL_TTL_SECONDS;
  const credentials = r2Credentials(config);
  let uploadUrl: string;
  if (credentials) {
    uploadUrl = (await presignR2Put(credentials, objectKey, contentType, ttl, new Date(now))).toString();
  } else {
    const expires = Math.floor(now / 1000) + ttl;
    const sig = await signUpload(config.SESSION_SECRET, { key: objectKey, contentType, maxBytes: size, expires });
    const url = new URL(objectKey, uploadBase);
    url.search = new URLSearchParams({ size: String(size), expires: String(expires), sig }).toString();
    uploadUrl = url.toString();
  }
  return {
    uploadUrl,
    objectKey,
    method: 'PUT' as const,
    headers: { 'content-type': contentType },
    expiresAt: new Date(now + ttl * 1000).toISOString(),
    maxBytes,
  };
}

/** The fields photos and videos share: the title, and the caption and credit ('' when not given). */
function described(body: z.output<typeof CreateBody>) {
  return { title: body.title, caption: body.caption ?? '', credit: body.credit ?? '' };
}

/**
 * Step 2: checks the uploads, promotes them out of the pending prefix (a photo with its
 * variants) and stores the record. Whatever was written is deleted again if anything fails.
 */
export async function createItem({ db, bucket, config, base }: Library, body: z.output<typeof CreateBody>, createdBy: number) {
  if (body.type === 'photo') {
    const head = await checkPending(bucket, config, body.objectKey, 'original', 'objectKey');
    const photo = await promotePhoto(bucket, config, head, 'objectKey');
    try {
      const [row] = await db
        .insert(photos)
        .values({
          ...described(body),
          photoType: body.photoType ?? 'general',
          ...photoFiles(photo),
          createdBy,
        })
        .returning();
      await deleteObjects(bucket, [head.key]);
      return photoItem(row!, config, base);
    } catch (err) {
      await deleteObjects(bucket, [photo.key, ...Object.values(photo.variants)]);
      throw err;
    }
  }
  const videoHead = await checkPending(bucket, config, body.objectKey, 'video', 'objectKey');
  const posterHead = body.posterKey ? await checkPending(bucket, config, body.posterKey, 'poster', 'posterKey') : undefined;
  const written: string[] = [];
  try {
    const video = await promoteFile(bucket, videoHead, 'video', 'video', 'objectKey');
    written.push(video.key);
    const poster = posterHead ? await promoteFile(bucket, posterHead, 'poster', 'video', 'posterKey') : undefined;
    if (poster) written.push(poster.key);
    const [row] = await db
      .insert(videos)
      .values({
        ...described(body),
        videoKey: video.key,
        posterKey: poster?.key ?? null,
        contentType: video.contentType,
        sizeBytes: video.sizeBytes,
        durationSeconds: body.durationSeconds ?? null,
        createdBy,
      })
      .returning();
    await deleteObjects(bucket, [videoHead.key, posterHead?.key]);
    return videoItem(row!, config, base);
  } catch (err) {
    await deleteObjects(bucket, written);
    throw err;
  }
}

export async function getItem({ db, config, base }: Library, type: MediaType, id: number) {
  if (type === 'photo') {
    const row = await db.query.photos.findFirst({ where: eq(photos.id, id) });
    if (!row) throw notFound(type, id);
    return photoItem(row, config, base);
  }
  const row = await db.query.videos.findFirst({ where: eq(videos.id, id) });
  if (!row) throw notFound(type, id);
  return videoItem(row, config, base);
}

/**
 * Changes the fields given. An object-key field that is omitted or holds the stored key keeps
 * the stored file; a new key from upload-url replaces it (checked and promoted as in step 2),
 * and the replaced objects are deleted once the record points at the new ones.
 */
export async function updateItem({ db, bucket, config, base }: Library, id: number, body: z.output<typeof UpdateBody>) {
  const now = Date.now();
  const meta = { title: body.title, caption: body.caption, credit: body.credit };

  if (body.type === 'photo') {
    const row = await db.query.photos.findFirst({ where: eq(photos.id, id) });
    if (!row) throw notFound('photo', id);
    for (const field of ['thumbnailKey', 'mediumKey', 'largeKey'] as const) {
      if (body[field] !== undefined && body[field] !== row[field]) {
        throw new HttpError(400, 'invalid_object_key', `${field} is made from the original: send a new originalKey to replace it.`, {
          field,
        });
      }
    }
    const replace = body.originalKey !== undefined && body.originalKey !== row.originalKey;
    const head = replace ? await checkPending(bucket, config, body.originalKey!, 'original', 'originalKey') : undefined;
    const photo = head ? await promotePhoto(bucket, config, head, 'originalKey') : undefined;
    try {
      const [updated] = await db
        .update(photos)
        .set({
          ...meta,
          photoType: body.photoType,
          ...(photo ? photoFiles(photo) : {}),
          updatedAt: now,
        })
        .where(eq(photos.id, id))
        .returning();
      if (!updated) throw notFound('photo', id);
      if (photo) await deleteObjects(bucket, [head!.key, ...photoKeys(row)]);
      return photoItem(updated, config, base);
    } catch (err) {
      if (photo) await deleteObjects(bucket, [photo.key, ...Object.values(photo.variants)]);
      throw err;
    }
  }

  const row = await db.query.videos.findFirst({ where: eq(videos.id, id) });
  if (!row) throw notFound('video', id);
  const replaceVideo = body.videoKey !== undefined && body.videoKey !== row.videoKey;
  const replacePoster = body.posterKey !== undefined && body.posterKey !== null && body.posterKey !== row.posterKey;
  const videoHead = replaceVideo ? await checkPending(bucket, config, body.videoKey!, 'video', 'videoKey') : undefined;
  const posterHead = replacePoster ? await checkPending(bucket, config, body.posterKey!, 'poster', 'posterKey') : undefined;
  const written: string[] = [];
  try {
    const video = videoHead ? await promoteFile(bucket, videoHead, 'video', 'video', 'videoKey') : undefined;
    if (video) written.push(video.key);
    const poster = posterHead ? await promoteFile(bucket, posterHead, 'poster', 'video', 'posterKey') : undefined;
    if (poster) written.push(poster.key);
    const removePoster = body.posterKey === null;
    const [updated] = await db
      .update(videos)
      .set({
        ...meta,
        durationSeconds: body.durationSeconds,
        ...(video ? { videoKey: video.key, contentType: video.contentType, sizeBytes: video.sizeBytes } : {}),
        ...(poster ? { posterKey: poster.key } : removePoster ? { posterKey: null } : {}),
        updatedAt: now,
      })
      .where(eq(videos.id, id))
      .returning();
    if (!updated) throw notFound('video', id);
    await deleteObjects(bucket, [
      videoHead?.key,
      posterHead?.key,
      video ? row.videoKey : undefined,
      poster || removePoster ? row.posterKey : undefined,
    ]);
    return videoItem(updated, config, base);
  } catch (err) {
    await deleteObjects(bucket, written);
    throw err;
  }
}

/** Deletes the record, then every object it referenced (a photo's original and variants; a video and its poster). */
export async function deleteItem({ db, bucket }: Library, type: MediaType, id: number): Promise<void> {
  const keys =
    type === 'photo'
      ? (await db.delete(photos).where(eq(photos.id, id)).returning()).map(photoKeys)
      : (await db.delete(videos).where(eq(videos.id, id)).returning()).map(videoKeys);
  if (!keys.length) throw notFound(type, id);
  await deleteObjects(bucket, keys.flat());
}

/** The stored object in one slot of an item. */
export async function storedFile({ db, bucket }: Library, type: MediaType, id: number, slot: FileSlot): Promise<R2ObjectBody> {
  let key: string | null | undefined;
  if (type === 'photo') {
    const row = await db.query.photos.findFirst({ where: eq(photos.id, id) });
    if (!row) throw notFound(type, id);
    key = { original: row.originalKey, thumbnail: row.thumbnailKey, medium: row.mediumKey, large: row.largeKey, video: null, poster: null }[
      slot
    ];
  } else {
    const row = await db.query.videos.findFirst({ where: eq(videos.id, id) });
    if (!row) throw notFound(type, id);
    key = { video: row.videoKey, poster: row.posterKey, original: null, thumbnail: null, medium: null, large: null }[slot];
  }
  const object = key ? await bucket.get(key) : null;
  if (!object) throw new HttpError(404, 'not_found', `The ${type} ${id} has no ${slot} file.`);
  return object;
}
