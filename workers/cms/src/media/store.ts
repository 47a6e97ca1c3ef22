import { HttpError } from '#shared/http-error.ts';
import type { MediaConfig } from './config.ts';
import { extensionOf, isPendingKey, itemFolder, type MediaType, slotRules, type UploadSlot } from './keys.ts';
import { imageDimensions, matchesContentType, sniffContentType } from './sniff.ts';
import { ImageDecodeError, makeVariants, VARIANT_CONTENT_TYPE, type VariantSlot } from './variants.ts';

/** A file that step 2 (or an update) moved out of the pending prefix. */
export type PromotedFile = { key: string; contentType: string; sizeBytes: number };
export type PromotedPhoto = PromotedFile & { width: number; height: number; variants: Record<VariantSlot, string> };

const SLOT_NAMES: Record<UploadSlot, string> = { original: 'photo', video: 'video', poster: 'poster image' };

/** Deletes objects; a failure is logged, never raised (the caller's answer is already decided). */
export async function deleteObjects(bucket: R2Bucket, keys: (string | null | undefined)[]): Promise<void> {
  const present = keys.filter((k): k is string => Boolean(k));
  if (!present.length) return;
  try {
    await bucket.delete(present);
  } catch (err) {
    console.error(JSON.stringify({ level: 'error', message: 'media objects not deleted', keys: present, error: String(err) }));
  }
}

/**
 * The pending upload behind `key`, checked: a key this service issued for the slot, present,
 * of an allowed content type and within the size limit. A record is never stored for anything less.
 */
export async function checkPending(bucket: R2Bucket, config: MediaConfig, key: string, slot: UploadSlot, field: string): Promise<R2Object> {
  if (!isPendingKey(key, slot)) {
    throw new HttpError(
      400,
      'invalid_object_key',
      `${field} must be an object key from GET /api/v1/media/upload-url for a ${SLOT_NAMES[slot]}.`,
      {
        field,
      },
    );
  }
  const head = await bucket.head(key);
  if (!head) {
    throw new HttpError(
      400,
      'upload_missing',
      `Nothing was uploaded to ${key} (or the upload expired): PUT the file to the upload address first.`,
      {
        field,
      },
    );
  }
  const { contentTypes, maxBytes } = slotRules(config, slot);
  const contentType = head.httpMetadata?.contentType?.toLowerCase() ?? '';
  if (!contentTypes.includes(contentType)) {
    await deleteObjects(bucket, [key]);
    throw new HttpError(
      400,
      'upload_invalid',
      `The uploaded ${SLOT_NAMES[slot]} has content type "${contentType}"; allowed: ${contentTypes.join(', ')}.`,
      {
        field,
      },
    );
  }
  if (head.size > maxBytes || head.size === 0) {
    await deleteObjects(bucket, [key]);
    throw new HttpError(
      400,
      'upload_invalid',
      `The uploaded ${SLOT_NAMES[slot]} is ${head.size} bytes; it must be 1 to ${maxBytes} bytes.`,
      {
        field,
      },
    );
  }
  return head;
}

function rejectContent(message: string, field: string): never {
  throw new HttpError(400, 'upload_invalid', message, { field });
}

/**
 * Copies a checked video or poster upload to its final key, after checking its first bytes. The
 * caller deletes the pending object once the record is stored.
 */
export async function promoteFile(
  bucket: R2Bucket,
  head: R2Object,
  slot: 'video' | 'poster',
  type: MediaType,
  field: string,
): Promise<PromotedFile> {
  const contentType = head.httpMetadata!.contentType!.toLowerCase();
  const start = await bucket.get(head.key, { range: { offset: 0, length: 32 } });
  const first = start ? new Uint8Array(await start.arrayBuffer()) : new Uint8Array();
  if (!matchesContentType(contentType, sniffContentType(first))) {
    await deleteObjects(bucket, [head.key]);
    rejectContent(`The uploaded ${SLOT_NAMES[slot]} is not a ${contentType} file.`, field);
  }
  const object = await bucket.get(head.key);
  if (!object) rejectContent(`Nothing was uploaded to ${head.key}.`, field);
  const key = `${itemFolder(type)}${slot}.${extensionOf(contentType)}`;
  await bucket.put(key, object.body, { httpMetadata: { contentType } });
  return { key, contentType, sizeBytes: head.size };
}

/**
 * Copies a checked photo upload to `photo/<uuid>/original.<ext>` and writes its variants beside it.
 * An unreadable image, or one over the pixel limit, is 400 and leaves no object behind; the caller
 * deletes the pending object once the record is stored.
 */
export async function promotePhoto(bucket: R2Bucket, config: MediaConfig, head: R2Object, field: string): Promise<PromotedPhoto> {
  const contentType = head.httpMetadata!.contentType!.toLowerCase();
  const object = await bucket.get(head.key);
  if (!object) rejectContent(`Nothing was uploaded to ${head.key}.`, field);
  const bytes = new Uint8Array(await object.arrayBuffer());
  const reject = async (message: string): Promise<never> => {
    await deleteObjects(bucket, [head.key]);
    rejectContent(message, field);
  };
  if (!matchesContentType(contentType, sniffContentType(bytes))) await reject(`The uploaded photo is not a ${contentType} image.`);
  const size = imageDimensions(bytes);
  if (!size || size.width < 1 || size.height < 1) await reject('The uploaded photo has no readable image header.');
  if (size!.width * size!.height > config.MEDIA_PHOTO_MAX_PIXELS) {
    await reject(
      `The photo is ${size!.width}×${size!.height} pixels; at most ${config.MEDIA_PHOTO_MAX_PIXELS} pixels can be resized here.`,
    );
  }
  let made: ReturnType<typeof makeVariants>;
  try {
    made = makeVariants(bytes);
  } catch (err) {
    if (!(err instanceof ImageDecodeError)) throw err;
    return reject(`The uploaded photo could not be decoded: ${err.message}`);
  }
  const folder = itemFolder('photo');
  const original = `${folder}original.${extensionOf(contentType)}`;
  const written: string[] = [];
  try {
    await bucket.put(original, bytes, { httpMetadata: { contentType } });
    written.push(original);
    const variants = {} as Record<VariantSlot, string>;
    for (const variant of made.variants) {
      const key = `${folder}${variant.slot}.jpg`;
      await bucket.put(key, variant.bytes, { httpMetadata: { contentType: VARIANT_CONTENT_TYPE } });
      written.push(key);
      variants[variant.slot] = key;
    }
    return { key: original, contentType, sizeBytes: head.size, width: made.width, height: made.height, variants };
  } catch (err) {
    await deleteObjects(bucket, written);
    throw err;
  }
}
