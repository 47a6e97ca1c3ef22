import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import app from '../../workers/cms/src/app';
import { signUpload } from '../../workers/cms/src/media/presign';
import { api, BASE, signIn } from './helpers';
import {
  decodedSize,
  encodeImage,
  fakeMp4,
  keysUnder,
  present,
  putTo,
  rowCount,
  upload,
  type UploadAddress,
  uploadUrl,
} from './media-helpers';

type Photo = {
  type: 'photo';
  id: number;
  title: string;
  caption: string;
  photoType: string;
  originalKey: string;
  thumbnailKey: string;
  mediumKey: string;
  largeKey: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  urls: Record<'original' | 'thumbnail' | 'medium' | 'large', string>;
};
type Video = {
  type: 'video';
  id: number;
  title: string;
  videoKey: string;
  posterKey: string | null;
  sizeBytes: number;
  durationSeconds: number | null;
  urls: { video: string; poster: string | null };
};
type Page<T> = { items: T[]; page: number; pageSize: number; totalCount: number; totalPages: number };
type ErrorBody = { error: string; message: string; field?: string; issues?: { field: string; message: string }[] };

const SECRET = 'cms-test-session-secret-0123456789abcdef';
const PNG = encodeImage(1400, 700, 'png');
const JPEG = encodeImage(320, 200, 'jpeg');

let editor: string;
let reader: string;

/** The reader account is shared with other files: a TOTP step another file used just now is retried with the next. */
async function signInReader(): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await signIn('reader');
    } catch (err) {
      if (attempt === 2) throw err;
    }
  }
}

beforeAll(async () => {
  editor = await signIn('media');
  reader = await signInReader();
});

const json = <T>(res: Response) => res.json<T>();

async function createPhoto(body: Record<string, unknown> = {}): Promise<Photo> {
  const objectKey = await upload(editor, 'photo', PNG, 'image/png');
  const res = await api('/api/v1/media', {
    method: 'POST',
    cookie: editor,
    json: { type: 'photo', objectKey, title: 'Winning post', ...body },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return json<Photo>(res);
}

async function createVideo(withPoster = true): Promise<Video> {
  const objectKey = await upload(editor, 'video', fakeMp4(), 'video/mp4');
  const posterKey = withPoster ? await upload(editor, 'video', JPEG, 'image/jpeg', 'poster') : undefined;
  const res = await api('/api/v1/media', {
    method: 'POST',
    cookie: editor,
    json: { type: 'video', objectKey, posterKey, title: 'Race 7 replay', durationSeconds: 95 },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return json<Video>(res);
}

async function storedWidth(key: string): Promise<number> {
  const object = await env.MEDIA.get(key);
  return decodedSize(new Uint8Array(await object!.arrayBuffer())).width;
}

describe('upload step 1: GET /api/v1/media/upload-url', () => {
  it('answers a signed PUT address for a pending key, bound to the content type and size', async () => {
    const res = await uploadUrl(editor, { type: 'photo', contentType: 'image/jpeg', size: 1234, fileName: 'finish.jpg' });
    expect(res.status).toBe(200);
    const body = await json<UploadAddress>(res);
    expect(body.objectKey).toMatch(/^pending\/photo\/[0-9a-f-]{36}\.jpg$/);
    expect(body.method).toBe('PUT');
    expect(body.headers).toEqual({ 'content-type': 'image/jpeg' });
    const url = new URL(body.uploadUrl);
    expect(url.origin).toBe(BASE);
    expect(url.pathname).toBe(`/api/v1/media/uploads/${body.objectKey}`);
    expect(url.searchParams.get('size')).toBe('1234');
    expect(url.searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);
    const ttl = Date.parse(body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(Number(url.searchParams.get('expires')) * 1000).toBeCloseTo(Date.parse(body.expiresAt), -4);
  });

  it('answers an R2 presigned PUT when the S3 credentials are configured', async () => {
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`${BASE}/api/v1/media/upload-url?type=video&contentType=video%2Fmp4&size=5000`, { headers: { cookie: editor } }),
      { ...env, R2_ACCOUNT_ID: 'acc0123', R2_ACCESS_KEY_ID: 'R2KEYID', R2_SECRET_ACCESS_KEY: 'r2-secret' },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    const body = await json<UploadAddress>(res);
    const url = new URL(body.uploadUrl);
    expect(url.origin).toBe('https://acc0123.r2.cloudflarestorage.com');
    expect(url.pathname).toBe(`/racing-media/${body.objectKey}`);
    expect(body.objectKey).toMatch(/^pending\/video\/[0-9a-f-]{36}\.mp4$/);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^R2KEYID\/\d{8}\/auto\/s3\/aws4_request$/);
  });

  it('gives a video its own prefix and a poster slot the photo types', async () => {
    const video = await json<UploadAddress>(await uploadUrl(editor, { type: 'video', contentType: 'video/webm', size: 10 }));
    expect(video.objectKey).toMatch(/^pending\/video\/.+\.webm$/);
    const poster = await json<UploadAddress>(
      await uploadUrl(editor, { type: 'video', slot: 'poster', contentType: 'image/png', size: 10 }),
    );
    expect(poster.objectKey).toMatch(/^pending\/poster\/.+\.png$/);
  });

  it.each([
    [{ contentType: 'image/jpeg', size: 10 }, 'query.type'],
    [{ type: 'audio', contentType: 'image/jpeg', size: 10 }, 'query.type'],
    [{ type: 'photo', size: 10 }, 'query.contentType'],
    [{ type: 'photo', contentType: 'video/mp4', size: 10 }, 'query.contentType'],
    [{ type: 'video', contentType: 'image/jpeg', size: 10 }, 'query.contentType'],
    [{ type: 'photo', contentType: 'image/gif', size: 10 }, 'query.contentType'],
    [{ type: 'photo', contentType: 'image/jpeg' }, 'query.size'],
    [{ type: 'photo', contentType: 'image/jpeg', size: 'big' }, 'query.size'],
    [{ type: 'photo', contentType: 'image/jpeg', size: 0 }, 'query.size'],
    [{ type: 'photo', contentType: 'image/jpeg', size: 20 * 1024 * 1024 + 1 }, 'query.size'],
    [{ type: 'video', contentType: 'video/mp4', size: 200 * 1024 * 1024 + 1 }, 'query.size'],
    [{ type: 'photo', slot: 'poster', contentType: 'image/jpeg', size: 10 }, 'query.slot'],
    [{ type: 'photo', contentType: 'image/jpeg', size: 10, fileName: 'x'.repeat(300) }, 'query.fileName'],
  ])('400 naming the field for %o', async (query, field) => {
    const res = await uploadUrl(editor, query as Record<string, string | number>);
    expect(res.status).toBe(400);
    const body = await json<ErrorBody>(res);
    expect(body.issues?.map((i) => i.field)).toContain(field);
  });

  it('401 without a session, 403 for a reader', async () => {
    expect((await api('/api/v1/media/upload-url?type=photo&contentType=image%2Fjpeg&size=10')).status).toBe(401);
    const res = await uploadUrl(reader, { type: 'photo', contentType: 'image/jpeg', size: 10 });
    expect(res.status).toBe(403);
  });
});

describe("the Worker's own upload address: PUT /api/v1/media/uploads/<key>", () => {
  async function address(size: number, contentType = 'image/jpeg'): Promise<UploadAddress> {
    return json<UploadAddress>(await uploadUrl(editor, { type: 'photo', contentType, size }));
  }

  it('stores exactly the bytes, with the content type, under the pending key', async () => {
    const a = await address(JPEG.length);
    const res = await putTo(a.uploadUrl, JPEG, 'image/jpeg');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeTruthy();
    const stored = await env.MEDIA.get(a.objectKey);
    expect(stored?.httpMetadata?.contentType).toBe('image/jpeg');
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(JPEG);
  });

  it('403 for a forged or altered signature, and stores nothing', async () => {
    const a = await address(JPEG.length);
    const forged = new URL(a.uploadUrl);
    forged.searchParams.set('sig', '0'.repeat(64));
    expect((await putTo(forged.toString(), JPEG, 'image/jpeg')).status).toBe(403);
    const bigger = new URL(a.uploadUrl);
    bigger.searchParams.set('size', String(JPEG.length + 1));
    expect((await putTo(bigger.toString(), new Uint8Array(JPEG.length + 1), 'image/jpeg')).status).toBe(403);
    const otherKey = a.uploadUrl.replace(a.objectKey, a.objectKey.replace(/.{8}\.jpg$/, '00000000.jpg'));
    expect((await putTo(otherKey, JPEG, 'image/jpeg')).status).toBe(403);
    const res = await putTo(a.uploadUrl, JPEG, 'image/png');
    expect(res.status).toBe(403);
    expect((await json<ErrorBody>(res)).error).toBe('upload_signature_invalid');
    expect(await present(a.objectKey)).toBe(false);
  });

  it('403 once the address has expired', async () => {
    const key = 'pending/photo/0b9f0e7e-3a8c-4a7a-9a0f-5d1c2b3a4e5f.jpg';
    const expires = Math.floor(Date.now() / 1000) - 1;
    const sig = await signUpload(SECRET, { key, contentType: 'image/jpeg', maxBytes: JPEG.length, expires });
    const res = await putTo(`${BASE}/api/v1/media/uploads/${key}?size=${JPEG.length}&expires=${expires}&sig=${sig}`, JPEG, 'image/jpeg');
    expect(res.status).toBe(403);
    expect((await json<ErrorBody>(res)).error).toBe('upload_url_expired');
    expect(await present(key)).toBe(false);
  });

  it('413 for a body larger than signed, 400 for a smaller one; nothing stored', async () => {
    const a = await address(100);
    const big = await putTo(a.uploadUrl, new Uint8Array(101), 'image/jpeg');
    expect(big.status).toBe(413);
    const small = await putTo(a.uploadUrl, new Uint8Array(99), 'image/jpeg');
    expect(small.status).toBe(400);
    expect(await present(a.objectKey)).toBe(false);
  });

  it('403 for a path that is not a pending key, without a session check', async () => {
    const res = await putTo(
      `${BASE}/api/v1/media/uploads/photo/x/original.jpg?size=3&expires=9999999999&sig=${'a'.repeat(64)}`,
      new Uint8Array(3),
      'image/jpeg',
    );
    expect(res.status).toBe(403);
    const traversal = await putTo(
      `${BASE}/api/v1/media/uploads/pending/photo/../../x.jpg?size=3&expires=9999999999&sig=${'a'.repeat(64)}`,
      new Uint8Array(3),
      'image/jpeg',
    );
    expect([403, 404]).toContain(traversal.status);
  });
});

describe('photos', () => {
  it('step 1 → PUT → step 2: the original moves out of pending, three smaller variants beside it', async () => {
    const objectKey = await upload(editor, 'photo', PNG, 'image/png');
    expect(await present(objectKey)).toBe(true);
    const res = await api('/api/v1/media', {
      method: 'POST',
      cookie: editor,
      json: { type: 'photo', objectKey, title: 'Finish of the Cup', caption: 'Photo finish', credit: 'Track Photos', photoType: 'finish' },
    });
    expect(res.status).toBe(201);
    const photo = await json<Photo>(res);
    expect(photo).toMatchObject({
      type: 'photo',
      title: 'Finish of the Cup',
      photoType: 'finish',
      contentType: 'image/png',
      sizeBytes: PNG.length,
      width: 1400,
      height: 700,
    });
    expect(await present(objectKey)).toBe(false);
    const folder = photo.originalKey.replace(/original\.png$/, '');
    expect(photo.originalKey).toMatch(/^photo\/[0-9a-f-]{36}\/original\.png$/);
    expect((await keysUnder(folder)).sort()).toEqual([photo.largeKey, photo.mediumKey, photo.originalKey, photo.thumbnailKey].sort());
    expect(await storedWidth(photo.largeKey)).toBe(1200);
    expect(await storedWidth(photo.mediumKey)).toBe(600);
    expect(await storedWidth(photo.thumbnailKey)).toBe(150);
    expect((await env.MEDIA.head(photo.thumbnailKey))?.httpMetadata?.contentType).toBe('image/jpeg');

    const got = await api(`/api/v1/media/${photo.id}?type=photo`, { cookie: reader });
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(photo);
    const file = await api(photo.urls.thumbnail, { cookie: reader });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('content-security-policy')).toContain('sandbox');
    expect(decodedSize(new Uint8Array(await file.arrayBuffer())).width).toBe(150);
  });

  it('never upscales: a small original keeps its size in every variant', async () => {
    const objectKey = await upload(editor, 'photo', JPEG, 'image/jpeg');
    const res = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey, title: 'Small' } });
    const photo = await json<Photo>(res);
    expect(photo.photoType).toBe('general');
    expect(await storedWidth(photo.largeKey)).toBe(320);
    expect(await storedWidth(photo.mediumKey)).toBe(320);
    expect(await storedWidth(photo.thumbnailKey)).toBe(150);
  });

  it('lists with paging, search and photoType', async () => {
    const a = await createPhoto({ title: 'Paddock parade 100%', photoType: 'paddock' });
    const b = await createPhoto({ title: 'Mounting yard', caption: 'Paddock scenes', photoType: 'paddock' });
    const byType = await json<Page<Photo>>(await api('/api/v1/media?type=photo&photoType=paddock&pageSize=1', { cookie: reader }));
    expect(byType).toMatchObject({ page: 1, pageSize: 1, totalCount: 2, totalPages: 2 });
    expect(byType.items.map((p) => p.id)).toEqual([b.id]);
    const search = await json<Page<Photo>>(await api('/api/v1/media?type=photo&search=paddock', { cookie: reader }));
    expect(search.items.map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
    const literal = await json<Page<Photo>>(await api(`/api/v1/media?type=photo&search=${encodeURIComponent('100%')}`, { cookie: reader }));
    expect(literal.items.map((p) => p.id)).toEqual([a.id]);
    const underscore = await json<Page<Photo>>(await api('/api/v1/media?type=photo&search=_', { cookie: reader }));
    expect(underscore.totalCount).toBe(0);
  });

  it.each([
    ['/api/v1/media', 'query.type'],
    ['/api/v1/media?type=photos', 'query.type'],
    ['/api/v1/media?type=video&photoType=finish', 'query.photoType'],
    ['/api/v1/media?type=photo&page=0', 'query.page'],
    ['/api/v1/media?type=photo&pageSize=101', 'query.pageSize'],
    ['/api/v1/media?type=photo&pageSize=abc', 'query.pageSize'],
    [`/api/v1/media?type=photo&search=${'x'.repeat(201)}`, 'query.search'],
    ['/api/v1/media/1', 'query.type'],
    ['/api/v1/media/abc?type=photo', 'param.id'],
    ['/api/v1/media/1/file/banner?type=photo', 'param.slot'],
  ])('GET %s is 400 naming %s', async (path, field) => {
    const res = await api(path, { cookie: reader });
    expect(res.status).toBe(400);
    expect((await json<ErrorBody>(res)).issues?.map((i) => i.field)).toContain(field);
  });

  it('step 2 refuses an object that was never uploaded, and stores no record', async () => {
    const before = await rowCount('photos');
    const { objectKey } = await json<UploadAddress>(await uploadUrl(editor, { type: 'photo', contentType: 'image/jpeg', size: 100 }));
    const res = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey, title: 'Ghost' } });
    expect(res.status).toBe(400);
    expect(await json<ErrorBody>(res)).toMatchObject({ error: 'upload_missing' });
    expect(await rowCount('photos')).toBe(before);
  });

  it.each([
    ['a key outside the pending prefix', 'photo/0b9f0e7e-3a8c-4a7a-9a0f-5d1c2b3a4e5f/original.jpg'],
    ['a video upload key', 'pending/video/0b9f0e7e-3a8c-4a7a-9a0f-5d1c2b3a4e5f.mp4'],
    ['a traversal', 'pending/photo/../../secrets.jpg'],
  ])('step 2 refuses %s', async (_, objectKey) => {
    const res = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey, title: 'Nope' } });
    expect(res.status).toBe(400);
    expect((await json<ErrorBody>(res)).error).toBe('invalid_object_key');
  });

  it('step 2 refuses bytes that are not the declared image type, and removes the upload', async () => {
    const objectKey = await upload(editor, 'photo', PNG, 'image/jpeg');
    const before = await rowCount('photos');
    const res = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey, title: 'Mislabelled' } });
    expect(res.status).toBe(400);
    expect(await json<ErrorBody>(res)).toMatchObject({ error: 'upload_invalid', field: 'objectKey' });
    expect(await present(objectKey)).toBe(false);
    expect(await rowCount('photos')).toBe(before);
  });

  it('step 2 refuses an upload of the wrong size or type put straight into the bucket', async () => {
    const tooBig = 'pending/photo/11111111-2222-4333-8444-555555555555.jpg';
    await env.MEDIA.put(tooBig, new Uint8Array(20 * 1024 * 1024 + 1), { httpMetadata: { contentType: 'image/jpeg' } });
    const big = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey: tooBig, title: 'Huge' } });
    expect(big.status).toBe(400);
    expect((await json<ErrorBody>(big)).message).toMatch(/bytes/);
    expect(await present(tooBig)).toBe(false);
    const gif = 'pending/photo/11111111-2222-4333-8444-666666666666.jpg';
    await env.MEDIA.put(gif, JPEG, { httpMetadata: { contentType: 'image/gif' } });
    const wrongType = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey: gif, title: 'Gif' } });
    expect(wrongType.status).toBe(400);
    expect((await json<ErrorBody>(wrongType)).message).toMatch(/image\/gif/);
  });

  it('a corrupt image is 400 and leaves no object behind', async () => {
    const corrupt = JPEG.slice(0, 400);
    const objectKey = await upload(editor, 'photo', corrupt, 'image/jpeg');
    const before = await keysUnder('photo/');
    const res = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey, title: 'Broken' } });
    expect(res.status).toBe(400);
    expect((await json<ErrorBody>(res)).error).toBe('upload_invalid');
    expect(await keysUnder('photo/')).toEqual(before);
    expect(await present(objectKey)).toBe(false);
    // The image library still works after the failure.
    await createPhoto({ title: 'After the broken one' });
  });

  it('refuses an original with more pixels than the limit before decoding it', async () => {
    const header = PNG.slice(0, 4096);
    new DataView(header.buffer).setUint32(16, 5000);
    new DataView(header.buffer).setUint32(20, 5000);
    const objectKey = await upload(editor, 'photo', header, 'image/png');
    const res = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'photo', objectKey, title: 'Giant' } });
    expect(res.status).toBe(400);
    expect((await json<ErrorBody>(res)).message).toMatch(/5000×5000 pixels/);
  });

  it.each([
    [{ objectKey: 'x', title: 'T' }, 'json.type'],
    [{ type: 'photo', title: 'T' }, 'json.objectKey'],
    [{ type: 'photo', objectKey: 'x' }, 'json.title'],
    [{ type: 'photo', objectKey: 'x', title: '   ' }, 'json.title'],
    [{ type: 'photo', objectKey: 'x', title: 'T', durationSeconds: 3 }, 'json.durationSeconds'],
    [{ type: 'video', objectKey: 'x', title: 'T', photoType: 'finish' }, 'json.photoType'],
    [{ type: 'video', objectKey: 'x', title: 'T', durationSeconds: 'long' }, 'json.durationSeconds'],
    [{ type: 'photo', objectKey: 12, title: 'T' }, 'json.objectKey'],
  ])('POST %o is 400 naming %s', async (body, field) => {
    const res = await api('/api/v1/media', { method: 'POST', cookie: editor, json: body });
    expect(res.status).toBe(400);
    expect((await json<ErrorBody>(res)).issues?.map((i) => i.field)).toContain(field);
  });

  it('POST with malformed JSON or a huge body is a clear 4xx', async () => {
    const bad = await api('/api/v1/media', {
      method: 'POST',
      cookie: editor,
      headers: { 'content-type': 'application/json' },
      body: '{"type":',
    });
    expect(bad.status).toBe(400);
    const huge = await api('/api/v1/media', {
      method: 'POST',
      cookie: editor,
      json: { type: 'photo', objectKey: 'x', title: 'x'.repeat(1_100_000) },
    });
    expect(huge.status).toBe(413);
  });

  it('update keeps every omitted slot, and accepts the stored keys sent back unchanged', async () => {
    const photo = await createPhoto();
    const res = await api(`/api/v1/media/${photo.id}`, {
      method: 'PUT',
      cookie: editor,
      json: { type: 'photo', title: 'Renamed', caption: 'New caption' },
    });
    expect(res.status).toBe(200);
    const updated = await json<Photo>(res);
    expect(updated).toMatchObject({
      title: 'Renamed',
      caption: 'New caption',
      originalKey: photo.originalKey,
      thumbnailKey: photo.thumbnailKey,
    });
    const roundTrip = await api(`/api/v1/media/${photo.id}`, { method: 'PUT', cookie: editor, json: { ...updated, title: 'Again' } });
    expect(roundTrip.status).toBe(200);
    expect(await json<Photo>(roundTrip)).toMatchObject({ title: 'Again', largeKey: photo.largeKey });
    for (const key of [photo.originalKey, photo.thumbnailKey, photo.mediumKey, photo.largeKey]) expect(await present(key)).toBe(true);
  });

  it('update with a new original replaces it and remakes the variants; the old objects are deleted', async () => {
    const photo = await createPhoto();
    const originalKey = await upload(editor, 'photo', JPEG, 'image/jpeg');
    const res = await api(`/api/v1/media/${photo.id}`, { method: 'PUT', cookie: editor, json: { type: 'photo', originalKey } });
    expect(res.status).toBe(200);
    const updated = await json<Photo>(res);
    expect(updated).toMatchObject({ title: photo.title, contentType: 'image/jpeg', width: 320, height: 200, sizeBytes: JPEG.length });
    expect(updated.originalKey).toMatch(/original\.jpg$/);
    for (const key of [photo.originalKey, photo.thumbnailKey, photo.mediumKey, photo.largeKey, originalKey])
      expect(await present(key)).toBe(false);
    for (const key of [updated.originalKey, updated.thumbnailKey, updated.mediumKey, updated.largeKey])
      expect(await present(key)).toBe(true);
    expect(await storedWidth(updated.largeKey)).toBe(320);
  });

  it('update refuses a variant key of its own, or an original that was never uploaded, and changes nothing', async () => {
    const photo = await createPhoto();
    const variant = await api(`/api/v1/media/${photo.id}`, {
      method: 'PUT',
      cookie: editor,
      json: { type: 'photo', title: 'X', thumbnailKey: 'photo/other/thumbnail.jpg' },
    });
    expect(variant.status).toBe(400);
    expect((await json<ErrorBody>(variant)).error).toBe('invalid_object_key');
    const { objectKey } = await json<UploadAddress>(await uploadUrl(editor, { type: 'photo', contentType: 'image/jpeg', size: 10 }));
    const missing = await api(`/api/v1/media/${photo.id}`, {
      method: 'PUT',
      cookie: editor,
      json: { type: 'photo', title: 'X', originalKey: objectKey },
    });
    expect(missing.status).toBe(400);
    expect(await json<Photo>(await api(`/api/v1/media/${photo.id}?type=photo`, { cookie: editor }))).toMatchObject({
      title: photo.title,
      originalKey: photo.originalKey,
    });
  });

  it('update and delete of an absent id are 404', async () => {
    expect((await api('/api/v1/media/999999', { method: 'PUT', cookie: editor, json: { type: 'photo', title: 'X' } })).status).toBe(404);
    expect((await api('/api/v1/media/999999?type=photo', { method: 'DELETE', cookie: editor })).status).toBe(404);
    expect((await api('/api/v1/media/999999?type=photo', { cookie: reader })).status).toBe(404);
    expect((await api('/api/v1/media/999999', { method: 'PUT', cookie: editor, json: { title: 'X' } })).status).toBe(400);
    expect((await api('/api/v1/media/999999', { method: 'DELETE', cookie: editor })).status).toBe(400);
  });

  it('delete removes the record, the original and every variant', async () => {
    const photo = await createPhoto();
    const res = await api(`/api/v1/media/${photo.id}?type=photo`, { method: 'DELETE', cookie: editor });
    expect(res.status).toBe(204);
    for (const key of [photo.originalKey, photo.thumbnailKey, photo.mediumKey, photo.largeKey]) expect(await present(key)).toBe(false);
    expect((await api(`/api/v1/media/${photo.id}?type=photo`, { cookie: editor })).status).toBe(404);
    expect((await api(`/api/v1/media/${photo.id}?type=photo`, { method: 'DELETE', cookie: editor })).status).toBe(404);
  });

  it('a reader may read but not write; no session is 401', async () => {
    const photo = await createPhoto();
    expect((await api('/api/v1/media?type=photo', { cookie: reader })).status).toBe(200);
    expect((await api('/api/v1/media?type=photo')).status).toBe(401);
    expect((await api(`/api/v1/media/${photo.id}?type=photo`)).status).toBe(401);
    expect((await api(photo.urls.original)).status).toBe(401);
    expect(
      (await api('/api/v1/media', { method: 'POST', cookie: reader, json: { type: 'photo', objectKey: 'x', title: 'T' } })).status,
    ).toBe(403);
    expect((await api(`/api/v1/media/${photo.id}`, { method: 'PUT', cookie: reader, json: { type: 'photo', title: 'T' } })).status).toBe(
      403,
    );
    expect((await api(`/api/v1/media/${photo.id}?type=photo`, { method: 'DELETE', cookie: reader })).status).toBe(403);
    expect(await present(photo.originalKey)).toBe(true);
  });
});

describe('videos', () => {
  it('step 1 → PUT → step 2 with a poster; pending objects gone', async () => {
    const mp4 = fakeMp4();
    const objectKey = await upload(editor, 'video', mp4, 'video/mp4');
    const posterKey = await upload(editor, 'video', JPEG, 'image/jpeg', 'poster');
    const res = await api('/api/v1/media', {
      method: 'POST',
      cookie: editor,
      json: { type: 'video', objectKey, posterKey, title: 'Replay', durationSeconds: 84 },
    });
    expect(res.status).toBe(201);
    const video = await json<Video>(res);
    expect(video).toMatchObject({ type: 'video', title: 'Replay', durationSeconds: 84, sizeBytes: mp4.length });
    expect(video.videoKey).toMatch(/^video\/[0-9a-f-]{36}\/video\.mp4$/);
    expect(video.posterKey).toMatch(/^video\/[0-9a-f-]{36}\/poster\.jpg$/);
    expect(await present(objectKey)).toBe(false);
    expect(await present(posterKey)).toBe(false);
    const stored = await env.MEDIA.get(video.videoKey);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(mp4);
    const file = await api(video.urls.video, { cookie: reader });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    const list = await json<Page<Video>>(await api('/api/v1/media?type=video&search=replay', { cookie: reader }));
    expect(list.items.map((v) => v.id)).toContain(video.id);
  });

  it('step 2 refuses a file that is not a video, a poster that is not an image, and a photo key', async () => {
    const notVideo = await upload(editor, 'video', new Uint8Array(500).fill(7), 'video/mp4');
    const before = await rowCount('videos');
    const a = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'video', objectKey: notVideo, title: 'T' } });
    expect(a.status).toBe(400);
    expect(await present(notVideo)).toBe(false);
    const video = await upload(editor, 'video', fakeMp4(), 'video/mp4');
    const badPoster = await upload(editor, 'video', new Uint8Array(300).fill(1), 'image/png', 'poster');
    const b = await api('/api/v1/media', {
      method: 'POST',
      cookie: editor,
      json: { type: 'video', objectKey: video, posterKey: badPoster, title: 'T' },
    });
    expect(b.status).toBe(400);
    expect((await json<ErrorBody>(b)).field).toBe('posterKey');
    expect(await keysUnder('video/')).not.toContain(expect.stringContaining(video.slice(-20)));
    const photoKey = await upload(editor, 'photo', JPEG, 'image/jpeg');
    const c = await api('/api/v1/media', { method: 'POST', cookie: editor, json: { type: 'video', objectKey: photoKey, title: 'T' } });
    expect(c.status).toBe(400);
    expect((await json<ErrorBody>(c)).error).toBe('invalid_object_key');
    expect(await rowCount('videos')).toBe(before);
  });

  it('update keeps omitted slots, replaces a given one, and removes the poster with null', async () => {
    const video = await createVideo();
    const kept = await json<Video>(
      await api(`/api/v1/media/${video.id}`, { method: 'PUT', cookie: editor, json: { type: 'video', title: 'Retitled' } }),
    );
    expect(kept).toMatchObject({ title: 'Retitled', videoKey: video.videoKey, posterKey: video.posterKey, durationSeconds: 95 });

    const posterKey = await upload(editor, 'video', encodeImage(64, 36, 'png'), 'image/png', 'poster');
    const replaced = await json<Video>(
      await api(`/api/v1/media/${video.id}`, { method: 'PUT', cookie: editor, json: { type: 'video', posterKey } }),
    );
    expect(replaced.videoKey).toBe(video.videoKey);
    expect(replaced.posterKey).toMatch(/poster\.png$/);
    expect(await present(video.posterKey)).toBe(false);
    expect(await present(replaced.posterKey)).toBe(true);
    expect(await present(video.videoKey)).toBe(true);

    const videoKey = await upload(editor, 'video', fakeMp4(8192), 'video/mp4');
    const newFile = await json<Video>(
      await api(`/api/v1/media/${video.id}`, { method: 'PUT', cookie: editor, json: { type: 'video', videoKey } }),
    );
    expect(newFile).toMatchObject({ sizeBytes: 8192, posterKey: replaced.posterKey });
    expect(await present(video.videoKey)).toBe(false);
    expect(await present(newFile.videoKey)).toBe(true);

    const noPoster = await json<Video>(
      await api(`/api/v1/media/${video.id}`, { method: 'PUT', cookie: editor, json: { type: 'video', posterKey: null } }),
    );
    expect(noPoster.posterKey).toBeNull();
    expect(noPoster.urls.poster).toBeNull();
    expect(await present(replaced.posterKey)).toBe(false);
    expect(await present(newFile.videoKey)).toBe(true);
  });

  it('delete removes the record, the video and its poster', async () => {
    const video = await createVideo();
    expect((await api(`/api/v1/media/${video.id}?type=video`, { method: 'DELETE', cookie: editor })).status).toBe(204);
    expect(await present(video.videoKey)).toBe(false);
    expect(await present(video.posterKey)).toBe(false);
    expect((await api(`/api/v1/media/${video.id}?type=video`, { cookie: editor })).status).toBe(404);
  });

  it('PUT of photo fields to a video, or video fields to a photo, is 400', async () => {
    const video = await createVideo(false);
    const res = await api(`/api/v1/media/${video.id}`, { method: 'PUT', cookie: editor, json: { type: 'video', originalKey: 'x' } });
    expect(res.status).toBe(400);
    expect((await json<ErrorBody>(res)).issues?.map((i) => i.field)).toContain('json.originalKey');
  });
});

describe('photo and video ids overlap', () => {
  it('type picks the gallery for GET, PUT and DELETE', async () => {
    const id = 770001;
    const keys = { original: `photo/overlap/original.jpg`, video: `video/overlap/video.mp4` };
    await env.MEDIA.put(keys.original, JPEG, { httpMetadata: { contentType: 'image/jpeg' } });
    await env.MEDIA.put(keys.video, fakeMp4(), { httpMetadata: { contentType: 'video/mp4' } });
    await env.DB.batch([
      env.DB.prepare(
        `insert into photos (id, title, original_key, content_type, size_bytes) values (?, 'Same id photo', ?, 'image/jpeg', ?)`,
      ).bind(id, keys.original, JPEG.length),
      env.DB.prepare(
        `insert into videos (id, title, video_key, content_type, size_bytes) values (?, 'Same id video', ?, 'video/mp4', 4096)`,
      ).bind(id, keys.video),
    ]);
    expect(await json<Photo>(await api(`/api/v1/media/${id}?type=photo`, { cookie: reader }))).toMatchObject({
      type: 'photo',
      title: 'Same id photo',
    });
    expect(await json<Video>(await api(`/api/v1/media/${id}?type=video`, { cookie: reader }))).toMatchObject({
      type: 'video',
      title: 'Same id video',
    });
    await api(`/api/v1/media/${id}`, { method: 'PUT', cookie: editor, json: { type: 'video', title: 'Video renamed' } });
    expect((await json<Photo>(await api(`/api/v1/media/${id}?type=photo`, { cookie: reader }))).title).toBe('Same id photo');
    expect((await api(`/api/v1/media/${id}?type=photo`, { method: 'DELETE', cookie: editor })).status).toBe(204);
    expect(await present(keys.original)).toBe(false);
    expect(await present(keys.video)).toBe(true);
    expect(await json<Video>(await api(`/api/v1/media/${id}?type=video`, { cookie: reader }))).toMatchObject({ title: 'Video renamed' });
  });
});

describe('API document', () => {
  it('lists the media routes', async () => {
    const res = await api('/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json<{ paths: Record<string, Record<string, unknown>> }>();
    expect(Object.keys(doc.paths['/api/v1/media']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/media/{id}']!).sort()).toEqual(['delete', 'get', 'put']);
    expect(doc.paths['/api/v1/media/upload-url']?.get).toBeTruthy();
    expect(doc.paths['/api/v1/media/{id}/file/{slot}']?.get).toBeTruthy();
  });
});
