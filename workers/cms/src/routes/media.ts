import { OpenAPIHono, z } from '@hono/zod-openapi';
import { basePath } from '#shared/base-path.ts';
import { fileHeaders } from '#shared/downloads.ts';
import { paged } from '#shared/paging.ts';
import type { CmsContext, CmsEnv } from '../context.ts';
import { mediaConfig } from '../media/config.ts';
import { listPhotos, listVideos, photoItem, videoItem } from '../media/items.ts';
import { defaultSlot } from '../media/keys.ts';
import { createItem, deleteItem, getItem, type Library, storedFile, updateItem, uploadAddress } from '../media/library.ts';
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
} from '../media/schemas.ts';
import { receiveUpload } from '../media/upload.ts';
import { editor, reader, signedUpload } from '../guards.ts';
import { errorResponses, IdParam, json, jsonBody, sessionRoutes } from './openapi.ts';

/** Local signed uploads: authenticated by the address's own signature, not the session. */
const UPLOADS_PREFIX = '/api/v1/media/uploads/';

/** The media library: one controller for the photo and video galleries. */
export const media = new OpenAPIHono<CmsEnv>();

const route = sessionRoutes('Media');
const library = (c: CmsContext): Library => ({ db: c.var.db, bucket: c.env.MEDIA, config: mediaConfig(c.env), base: basePath(c) });

media.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/',
    summary: 'List a gallery',
    description: 'Newest first. `search` matches title, caption or credit; `photoType` filters photos (400 with type=video).',
    request: { query: ListQuery },
    responses: { 200: json(MediaPage, 'One page of the gallery'), ...errorResponses(400, 401) },
  }),
  async (c) => {
    const { type, search, photoType, page, pageSize } = c.req.valid('query');
    const config = mediaConfig(c.env);
    const paging = { page, pageSize };
    if (type === 'photo') {
      const { rows, total } = await listPhotos(c.var.db, { search, photoType }, paging);
      const items = rows.map((row) => photoItem(row, config, basePath(c)));
      return c.json(paged(items, total, paging), 200);
    }
    const { rows, total } = await listVideos(c.var.db, { search }, paging);
    const items = rows.map((row) => videoItem(row, config, basePath(c)));
    return c.json(paged(items, total, paging), 200);
  },
);

media.openapi(
  route({
    method: 'get',
    middleware: [editor] as const,
    path: '/upload-url',
    summary: 'Upload step 1: a presigned PUT address',
    description:
      'Checks the content type and size for the gallery and answers a short-lived address to PUT the file to, and the bare object key it is signed for. ' +
      'Send exactly the given Content-Type and exactly `size` bytes; then store the record with POST /api/v1/media.',
    request: { query: UploadUrlQuery },
    responses: { 200: json(UploadUrlResult, 'Where to PUT the file'), ...errorResponses(400, 401, 403) },
  }),
  async (c) => {
    const { type, contentType, size, slot = defaultSlot(type) } = c.req.valid('query');
    // The Worker's own upload address is under the prefix the client reached it by.
    const uploadBase = new URL(`${basePath(c)}${UPLOADS_PREFIX}`, c.req.url);
    return c.json(await uploadAddress(mediaConfig(c.env), { type, slot, contentType, size }, uploadBase), 200);
  },
);

// The Worker's own upload addresses (no S3 credentials): authenticated by their signature alone.
media.put('/uploads/*', signedUpload, (c) => receiveUpload(c, c.req.path.slice(UPLOADS_PREFIX.length), mediaConfig(c.env)));

media.openapi(
  route({
    method: 'post',
    middleware: [editor] as const,
    path: '/',
    summary: 'Upload step 2: store the record',
    description:
      'Checks that the object was uploaded under the key from step 1 (present, allowed content type and size, matching first bytes), moves it to its final key and stores the record. ' +
      'Photos get thumbnail (150 px), medium (600 px) and large (1200 px wide) JPEG variants, never upscaled. 400 (and nothing stored) when the upload is missing or wrong.',
    request: { body: jsonBody(CreateBody) },
    responses: { 201: json(MediaItem, 'The stored item'), ...errorResponses(400, 401, 403, 413) },
  }),
  async (c) => c.json(await createItem(library(c), c.req.valid('json'), c.var.user.id), 201),
);

media.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/{id}',
    summary: 'One media item',
    description: '`type` is required: photo and video ids overlap.',
    request: { params: IdParam, query: TypeQuery },
    responses: { 200: json(MediaItem, 'The item'), ...errorResponses(400, 401, 404) },
  }),
  async (c) => c.json(await getItem(library(c), c.req.valid('query').type, c.req.valid('param').id), 200),
);

media.openapi(
  route({
    method: 'put',
    middleware: [editor] as const,
    path: '/{id}',
    summary: 'Update a media item',
    description:
      'Changes the fields given. An object-key field that is omitted (or holds the stored key) keeps the stored file in that slot; a key from upload-url replaces it ' +
      "(checked and promoted as in step 2; the old object is deleted; a new photo original remakes the variants). `posterKey: null` removes a video's poster.",
    request: { params: IdParam, body: jsonBody(UpdateBody) },
    responses: { 200: json(MediaItem, 'The updated item'), ...errorResponses(400, 401, 403, 404, 413) },
  }),
  async (c) => c.json(await updateItem(library(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

media.openapi(
  route({
    method: 'delete',
    middleware: [editor] as const,
    path: '/{id}',
    summary: 'Delete a media item and every stored object',
    description: 'Deletes the record, then the original and all variants of a photo, or the video file and its poster. 204 with no body.',
    request: { params: IdParam, query: TypeQuery },
    responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404) },
  }),
  async (c) => {
    await deleteItem(library(c), c.req.valid('query').type, c.req.valid('param').id);
    return c.body(null, 204);
  },
);

media.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/{id}/file/{slot}',
    summary: 'The stored file in one slot',
    description:
      'Streams the file (the `urls` of an item point here unless MEDIA_PUBLIC_BASE_URL serves the bucket). Slots: original, thumbnail, medium, large (photos); video, poster (videos).',
    request: {
      params: IdParam.extend({
        slot: z.enum(FILE_SLOTS, { error: `must be one of ${FILE_SLOTS.join(', ')}` }).openapi({ param: { name: 'slot', in: 'path' } }),
      }),
      query: TypeQuery,
    },
    responses: { 200: { description: 'The file bytes' }, ...errorResponses(400, 401, 404) },
  }),
  async (c) => {
    const { id, slot } = c.req.valid('param');
    const object = await storedFile(library(c), c.req.valid('query').type, id, slot);
    // Uploaded bytes served from the API's own origin: shown only when of a passive type, never sniffed, never run as a page.
    const headers = new Headers(fileHeaders(object.httpMetadata?.contentType ?? ''));
    headers.set('etag', object.httpEtag);
    headers.set('cache-control', 'private, max-age=3600');
    headers.set('content-length', String(object.size));
    return new Response(object.body, { headers });
  },
);
