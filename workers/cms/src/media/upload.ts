import { HttpError } from '#shared/http-error.ts';
import type { CmsContext } from '../context.ts';
import type { MediaConfig } from './config.ts';
import { isAnyPendingKey, slotRules, UPLOAD_SLOTS, type UploadSlot } from './keys.ts';
import { verifyUpload } from './presign.ts';
import { fixedLengthStream } from '#shared/workers-runtime.ts';

const slotOfKey = (key: string): UploadSlot => {
  const folder = key.split('/')[1];
  return folder === 'photo' ? 'original' : (UPLOAD_SLOTS.find((s) => s === folder) ?? 'original');
};

/**
 * PUT of a file to an upload address this Worker signed (deployments without S3 credentials):
 * the signature binds key, content type, exact size and expiry; the body is streamed into R2
 * through a fixed-length stream, so a body longer or shorter than declared stores nothing.
 */
export async function receiveUpload(c: CmsContext, key: string, config: MediaConfig): Promise<Response> {
  const size = Number(c.req.query('size'));
  const expires = Number(c.req.query('expires'));
  const sig = c.req.query('sig') ?? '';
  const contentType = (c.req.header('content-type') ?? '').trim().toLowerCase();
  if (!isAnyPendingKey(key) || !Number.isSafeInteger(size) || size < 1 || !Number.isSafeInteger(expires)) {
    throw new HttpError(403, 'upload_signature_invalid', 'This is not an upload address this service issued.');
  }
  if (!(await verifyUpload(config.SESSION_SECRET, { key, contentType, maxBytes: size, expires }, sig))) {
    throw new HttpError(
      403,
      'upload_signature_invalid',
      'The upload address does not match this request (address, Content-Type or size changed).',
    );
  }
  if (expires * 1000 < Date.now()) {
    throw new HttpError(403, 'upload_url_expired', 'The upload address has expired: ask for a new one.');
  }
  // The gallery rules may have tightened since the address was signed.
  const { contentTypes, maxBytes } = slotRules(config, slotOfKey(key));
  if (!contentTypes.includes(contentType))
    throw new HttpError(415, 'unsupported_media_type', `Content type ${contentType} is not accepted here.`);
  const lengthHeader = c.req.header('content-length');
  if (lengthHeader === undefined) throw new HttpError(411, 'length_required', 'Send the file with a Content-Length header.');
  const length = Number(lengthHeader);
  if (!Number.isSafeInteger(length) || length > size || length > maxBytes) {
    throw new HttpError(413, 'payload_too_large', `The upload address is for exactly ${size} bytes; this body is ${lengthHeader}.`);
  }
  if (length !== size)
    throw new HttpError(400, 'upload_size_mismatch', `The upload address is for exactly ${size} bytes; this body is ${length}.`);
  const body = c.req.raw.body;
  if (!body) throw new HttpError(400, 'upload_size_mismatch', 'The request has no body.');
  const checked = fixedLengthStream(size);
  const copied = body.pipeTo(checked.writable).catch(() => undefined);
  let stored: R2Object | null;
  try {
    stored = await c.env.MEDIA.put(key, checked.readable, { httpMetadata: { contentType } });
  } catch (err) {
    await c.env.MEDIA.delete(key).catch(() => undefined);
    throw new HttpError(413, 'payload_too_large', `The body was not exactly ${size} bytes; nothing was stored.`, { cause: String(err) });
  }
  await copied;
  if (!stored || stored.size !== size) {
    await c.env.MEDIA.delete(key);
    throw new HttpError(400, 'upload_size_mismatch', `The body was not exactly ${size} bytes; nothing was stored.`);
  }
  return c.json({ objectKey: key, sizeBytes: stored.size }, 200, { etag: stored.httpEtag });
}
