import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { photos, videos } from '../../../../d1/cms/schema';
import { HttpError } from '../../../shared/http-error';
import { paged } from '../../../shared/paging';
import type { CmsEnv } from '../context';
import { mediaConfig, r2Credentials } from '../media/config';
import { photoItem, photoKeys, videoItem, videoKeys, listPhotos, listVideos } from '../media/items';
import { defaultSlot, newPendingKey, slotRules, slotsOf } from '../media/keys';
import { presignR2Put, signUpload } from '../media/presign';
import {
  CreateBody,
  FILE_SLOTS,
  ListQuery,
  MediaItem,
  MediaPage,

  TypeQuery,
  UpdateBody,
  UploadUrlQuery,
  UploadUrlResult,

} from '../media/schemas';
import { checkPending, deleteObjects, promoteFile, promotePhoto } from '../media/store';
import { receiveUpload } from '../media/upload';
import { requireEditor } from '../session';
import { errorResponses, IdParam, jsonBody } from './openapi';

/** Paths under this prefix authenticate by their own signature (local signed uploads), not the session. */
export const MEDIA_ANONYMOUS_PREFIX = '/api/v1/media/uploads/';

/** The media library: one controller for the photo and video galleries. */
export const media = new OpenAPIHono<CmsEnv>();

const tags = ['Media'];
const security = [{ session: [] }];
const itemContent = (schema: z.ZodType) => ({ 'application/json': { schema } });

media.openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags,
    security,
    summary: 'List a gallery',
    description: 'Newest first. `search` matches title, caption or credit; `photoType` filters photos (400 with type=video).',
    request: { query: ListQuery },
    responses: { 200: { description: 'One page of the gallery', content: itemContent(MediaPage) }, ...errorResponses(400, 401) },
  }),
  async (c) => {
    const { type, search, photoType, page, pageSize } = c.req.valid('query');
    const config = mediaConfig(c.env);
    if (type === 'photo') {
      const { rows, total } = await listPhotos(c.var.db, { search, photoType }, { page, pageSize });
      return c.json(paged(rows.map((row) => photoItem(row, config)), total, { page, pageSize }), 200);
    }
    const { rows, total } = await listVideos(c.var.db, { search }, { page, pageSize });
    return c.json(paged(rows.map((row) => videoItem(row, config)), total, { page, pageSize }), 200);
  },
);

media.use('/upload-url', requireEditor());
media.openapi(
  createRoute({
    method: 'get',
    path: '/upload-url',
    tags,
    security,
    summary: 'Upload step 1: a presigned PUT address',
    description:
      'Checks the content type and size for the gallery and answers a short-lived address to PUT the file to, and the bare object key it is signed for. ' +
      'Send exactly the given Content-Type and exactly `size` bytes; then store the record with POST /api/v1/media.',
    request: { query: UploadUrlQuery },
    responses: { 200: { description: 'Where to PUT the file', content: itemContent(UploadUrlResult) }, ...errorResponses(400, 401, 403) },
  }),
  async (c) => {
    const { type, contentType, size, slot = defaultSlot(type) } = c.req.valid('query');
    const config = mediaConfig(c.env);
    if (!slotsOf(type).includes(slot)) {
      throw new HttpError(400, 'invalid_request', `A ${type} has no ${slot} file; slots: ${slotsOf(type).join(', ')}.`, {
        issues: [{ field: 'query.slot', message: `must be one of ${slotsOf(type).join(', ')} for a ${type}` }],
      });
    }
    const { contentTypes, maxBytes } = slotRules(config, slot);
    if (!contentTypes.includes(contentType)) {
      throw new HttpError(400, 'invalid_request', `Content type ${contentType} is not accepted for a ${slot === 'video' ? 'video' : 'photo'}; allowed: ${contentTypes.join(', ')}.`, {
        issues: [{ field: 'query.contentType', message: `must be one of ${contentTypes.join(', ')}` }],
      });
    }
    if (size > maxBytes) {
      throw new HttpError(400, 'invalid_request', `The file is ${size} bytes; the limit is ${maxBytes} bytes.`, {
        issues: [{ field: 'query.size', message: `must be at most ${maxBytes} bytes` }],
        maxBytes,
      });
    }
    const objectKey = newPendingKey(slot, contentType);
    const now = Date.now();
    const ttl = config.MEDIA_UPLOAD_URL_TTL_SECONDS;
    const credentials = r2Credentials(config);
    let uploadUrl: string;
    if (credentials) {
      uploadUrl = (await presignR2Put(credentials, objectKey, contentType, ttl, new Date(now))).toString();
    } else {
      const expires = Math.floor(now / 1000) + ttl;
      const sig = await signUpload(config.SESSION_SECRET, { key: objectKey, contentType, maxBytes: size, expires });
      const url = new URL(`${MEDIA_ANONYMOUS_PREFIX}${objectKey}`, c.req.url);
      url.search = new URLSearchParams({ size: String(size), expires: String(expires), sig }).toString();
      uploadUrl = url.toString();
    }
    return c.json(
      { uploadUrl, objectKey, method: 'PUT' as const, headers: { 'content-type': contentType }, expiresAt: new Date(now + ttl * 1000).toISOString(), maxBytes },
      200,
    );
  },
);

// The Worker's own upload addresses (no S3 credentials): authenticated by their signature alone.
media.put('/uploads/*', (c) => receiveUpload(c, c.req.path.slice(MEDIA_ANONYMOUS_PREFIX.length), mediaConfig(c.env)));

media.openapi(
  createRoute({
    method: 'post',
    path: '/',
    tags,
    security,
    summary: 'Upload step 2: store the record',
    description:
      'Checks that the object was uploaded under the key from step 1 (present, allowed content type and size, matching first bytes), moves it to its final key and stores the record. ' +
      'Photos get thumbnail (150 px), medium (600 px) and large (1200 px wide) JPEG variants, never upscaled. 400 (and nothing stored) when the upload is missing or wrong.',
    request: { body: jsonBody(CreateBody) },
    responses: { 201: { description: 'The stored item', content: itemContent(MediaItem) }, ...errorResponses(400, 401, 403, 413) },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const config = mediaConfig(c.env);
    const bucket = c.env.MEDIA;
    const createdBy = c.var.user.id;
    if (body.type === 'photo') {
      const head = await checkPending(bucket, config, body.objectKey, 'original', 'objectKey');
      const photo = await promotePhoto(bucket, config, head, 'objectKey');
      const written = [photo.key, ...Object.values(photo.variants)];
      try {
        const [row] = await c.var.db
          .insert(photos)
          .values({
            title: body.title,
            caption: body.caption ?? '',
            credit: body.credit ?? '',
            photoType: body.photoType ?? 'general',
            originalKey: photo.key,
            thumbnailKey: photo.variants.thumbnail,
            mediumKey: photo.variants.medium,
            largeKey: photo.variants.large,
            contentType: photo.contentType,
            sizeBytes: photo.sizeBytes,
            width: photo.width,
            height: photo.height,
            createdBy,
          })
          .returning();
        await deleteObjects(bucket, [head.key]);
        return c.json(photoItem(row!, config), 201);
      } catch (err) {
        await deleteObjects(bucket, written);
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
      const [row] = await c.var.db
        .insert(videos)
        .values({
          title: body.title,
          caption: body.caption ?? '',
          credit: body.credit ?? '',
          videoKey: video.key,
          posterKey: poster?.key ?? null,
          contentType: video.contentType,
          sizeBytes: video.sizeBytes,
          durationSeconds: body.durationSeconds ?? null,
          createdBy,
        })
        .returning();
      await deleteObjects(bucket, [videoHead.key, posterHead?.key]);
      return c.json(videoItem(row!, config), 201);
    } catch (err) {
      await deleteObjects(bucket, written);
      throw err;
    }
  },
);

const notFound = (type: string, id: number) => new HttpError(404, 'not_found', `No ${type} with id ${id}.`);

media.openapi(
  createRoute({
    method: 'get',
    path: '/{id}',
    tags,
    security,
    summary: 'One media item',
    description: '`type` is required: photo and video ids overlap.',
    request: { params: IdParam, query: TypeQuery },
    responses: { 200: { description: 'The item', content: itemContent(MediaItem) }, ...errorResponses(400, 401, 404) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const { type } = c.req.valid('query');
    const config = mediaConfig(c.env);
    if (type === 'photo') {
      const row = await c.var.db.query.photos.findFirst({ where: eq(photos.id, id) });
      if (!row) throw notFound(type, id);
      return c.json(photoItem(row, config), 200);
    }
    const row = await c.var.db.query.videos.findFirst({ where: eq(videos.id, id) });
    if (!row) throw notFound(type, id);
    return c.json(videoItem(row, config), 200);
  },
);

media.openapi(
  createRoute({
    method: 'put',
    path: '/{id}',
    tags,
    security,
    summary: 'Update a media item',
    description:
      'Changes the fields given. An object-key field that is omitted (or holds the stored key) keeps the stored file in that slot; a key from upload-url replaces it ' +
      '(checked and promoted as in step 2; the old object is deleted; a new photo original remakes the variants). `posterKey: null` removes a video\'s poster.',
    request: { params: IdParam, body: jsonBody(UpdateBody) },
    responses: { 200: { description: 'The updated item', content: itemContent(MediaItem) }, ...errorResponses(400, 401, 403, 404, 413) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const config = mediaConfig(c.env);
    const bucket = c.env.MEDIA;
    const db = c.var.db;
    const now = Date.now();
    const meta = { title: body.title, caption: body.caption, credit: body.credit };

    if (body.type === 'photo') {
      const row = await db.query.photos.findFirst({ where: eq(photos.id, id) });
      if (!row) throw notFound('photo', id);
      for (const field of ['thumbnailKey', 'mediumKey', 'largeKey'] as const) {
        if (body[field] !== undefined && body[field] !== row[field]) {
          throw new HttpError(400, 'invalid_object_key', `${field} is made from the original: send a new originalKey to replace it.`, { field });
        }
      }
      const replace = body.originalKey !== undefined && body.originalKey !== row.originalKey;
      const head = replace ? await checkPending(bucket, config, body.originalKey!, 'original', 'originalKey') : undefined;
      const photo = head ? await promotePhoto(bucket, config, head, 'originalKey') : undefined;
      const written = photo ? [photo.key, ...Object.values(photo.variants)] : [];
      try {
        const [updated] = await db
          .update(photos)
          .set({
            ...meta,
            photoType: body.photoType,
            ...(photo
              ? {
                  originalKey: photo.key,
                  thumbnailKey: photo.variants.thumbnail,
                  mediumKey: photo.variants.medium,
                  largeKey: photo.variants.large,
                  contentType: photo.contentType,
                  sizeBytes: photo.sizeBytes,
                  width: photo.width,
                  height: photo.height,
                }
              : {}),
            updatedAt: now,
          })
          .where(eq(photos.id, id))
          .returning();
        if (!updated) throw notFound('photo', id);
        if (photo) await deleteObjects(bucket, [head!.key, ...photoKeys(row)]);
        return c.json(photoItem(updated, config), 200);
      } catch (err) {
        await deleteObjects(bucket, written);
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
      return c.json(videoItem(updated, config), 200);
    } catch (err) {
      await deleteObjects(bucket, written);
      throw err;
    }
  },
);

media.openapi(
  createRoute({
    method: 'delete',
    path: '/{id}',
    tags,
    security,
    summary: 'Delete a media item and every stored object',
    description: 'Deletes the record, then the original and all variants of a photo, or the video file and its poster. 204 with no body.',
    request: { params: IdParam, query: TypeQuery },
    responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const { type } = c.req.valid('query');
    const keys =
      type === 'photo'
        ? (await c.var.db.delete(photos).where(eq(photos.id, id)).returning()).map(photoKeys)
        : (await c.var.db.delete(videos).where(eq(videos.id, id)).returning()).map(videoKeys);
    if (!keys.length) throw notFound(type, id);
    await deleteObjects(c.env.MEDIA, keys.flat());
    return c.body(null, 204);
  },
);

media.openapi(
  createRoute({
    method: 'get',
    path: '/{id}/file/{slot}',
    tags,
    security,
    summary: 'The stored file in one slot',
    description: 'Streams the file (the `urls` of an item point here unless MEDIA_PUBLIC_BASE_URL serves the bucket). Slots: original, thumbnail, medium, large (photos); video, poster (videos).',
    request: {
      params: IdParam.extend({ slot: z.enum(FILE_SLOTS, { error: `must be one of ${FILE_SLOTS.join(', ')}` }).openapi({ param: { name: 'slot', in: 'path' } }) }),
      query: TypeQuery,
    },
    responses: { 200: { description: 'The file bytes' }, ...errorResponses(400, 401, 404) },
  }),
  async (c) => {
    const { id, slot } = c.req.valid('param');
    const { type } = c.req.valid('query');
    let key: string | null | undefined;
    if (type === 'photo') {
      const row = await c.var.db.query.photos.findFirst({ where: eq(photos.id, id) });
      if (!row) throw notFound(type, id);
      key = { original: row.originalKey, thumbnail: row.thumbnailKey, medium: row.mediumKey, large: row.largeKey, video: null, poster: null }[slot];
    } else {
      const row = await c.var.db.query.videos.findFirst({ where: eq(videos.id, id) });
      if (!row) throw notFound(type, id);
      key = { video: row.videoKey, poster: row.posterKey, original: null, thumbnail: null, medium: null, large: null }[slot];
    }
    const object = key ? await c.env.MEDIA.get(key) : null;
    if (!object) throw new HttpError(404, 'not_found', `The ${type} ${id} has no ${slot} file.`);
    const headers = new Headers({ etag: object.httpEtag, 'cache-control': 'private, max-age=3600' });
    object.writeHttpMetadata(headers);
    headers.set('content-length', String(object.size));
    return new Response(object.body, { headers });
  },
);

