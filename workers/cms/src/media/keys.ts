import type { MediaConfig } from './config.ts';

export const MEDIA_TYPES = ['photo', 'video'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** What an upload is for: a photo's original, a video file, or a video's poster image. */
export const UPLOAD_SLOTS = ['original', 'video', 'poster'] as const;
export type UploadSlot = (typeof UPLOAD_SLOTS)[number];

/** Uploads land here; an R2 lifecycle rule (r2/lifecycle.json) expires what step 2 never promotes. */
export const PENDING_PREFIX = 'pending/';

const SLOT_FOLDER: Record<UploadSlot, string> = { original: 'photo', video: 'video', poster: 'poster' };

export const defaultSlot = (type: MediaType): UploadSlot => (type === 'photo' ? 'original' : 'video');
export const slotsOf = (type: MediaType): UploadSlot[] => (type === 'photo' ? ['original'] : ['video', 'poster']);

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};
export const extensionOf = (contentType: string) => EXTENSIONS[contentType] ?? 'bin';

/** Image slots take the photo types and limit; the video slot the video ones. */
export function slotRules(config: MediaConfig, slot: UploadSlot) {
  return slot === 'video'
    ? { contentTypes: config.MEDIA_VIDEO_CONTENT_TYPES, maxBytes: config.MEDIA_VIDEO_MAX_BYTES }
    : { contentTypes: config.MEDIA_PHOTO_CONTENT_TYPES, maxBytes: config.MEDIA_PHOTO_MAX_BYTES };
}

export const pendingPrefix = (slot: UploadSlot) => `${PENDING_PREFIX}${SLOT_FOLDER[slot]}/`;

export function newPendingKey(slot: UploadSlot, contentType: string): string {
  return `${pendingPrefix(slot)}${crypto.randomUUID()}.${extensionOf(contentType)}`;
}

const PENDING_KEY = /^pending\/(photo|video|poster)\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[a-z0-9]{2,5}$/;

/** A key this service could have issued for the slot (and nothing else: no other prefix, no `..`). */
export const isPendingKey = (key: string, slot: UploadSlot) => PENDING_KEY.test(key) && key.startsWith(pendingPrefix(slot));

/** Any key this service issues for an upload. */
export const isAnyPendingKey = (key: string) => PENDING_KEY.test(key);

/** Where a promoted file lives: every file of one item shares a folder, `<type>/<uuid>/`. */
export const itemFolder = (type: MediaType) => `${type}/${crypto.randomUUID()}/`;
