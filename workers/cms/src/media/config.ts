import { z } from 'zod';
import { commaListSetting, parseConfig } from '#shared/config.ts';
import { isInlineType } from '#shared/downloads.ts';

// Upload addresses sign the content type and the bucket serves it back (on MEDIA_PUBLIC_BASE_URL
// too, straight from R2), so only passive types may be offered: never one that runs as a page.
const list = (fallback: string) =>
  commaListSetting(fallback, (entry) => entry.toLowerCase()).superRefine((types, ctx) => {
    const active = types.filter((type) => !isInlineType(type));
    if (active.length)
      ctx.addIssue({
        code: 'custom',
        message: `must list passive types only (raster images, audio, video: the inline list of workers/shared/downloads.ts), not ${active.join(', ')}`,
      });
  });

const bytes = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(5 * 1024 ** 3, 'must be at most 5 GiB (one R2 PUT)')
    .default(fallback);

/**
 * The media library's settings. The R2 S3 credentials are optional secrets: with all of
 * R2_ACCOUNT_ID, R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY set, upload addresses are real R2
 * presigned PUTs; without them the Worker signs and serves its own upload addresses.
 */
export const mediaConfigSchema = z.object({
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters'),
  MEDIA_PHOTO_CONTENT_TYPES: list('image/jpeg,image/png,image/webp'),
  MEDIA_VIDEO_CONTENT_TYPES: list('video/mp4,video/webm,video/quicktime'),
  MEDIA_PHOTO_MAX_BYTES: bytes(20 * 1024 * 1024),
  MEDIA_VIDEO_MAX_BYTES: bytes(200 * 1024 * 1024),
  /** Originals with more pixels are refused: decoding one (≈ 13 bytes of WASM memory a pixel) must fit the isolate's 128 MB. */
  MEDIA_PHOTO_MAX_PIXELS: z.coerce.number().int().min(1).max(40_000_000).default(6_000_000),
  MEDIA_UPLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(600),
  /** Public address the bucket is served from (custom domain); empty → objects are served by this Worker. */
  MEDIA_PUBLIC_BASE_URL: z
    .string()
    .default('')
    .refine((v) => v === '' || /^https?:\/\/[^\s]+$/.test(v), 'must be an http(s) address or empty')
    .transform((v) => v.replace(/\/+$/, '')),
  R2_ACCOUNT_ID: z.string().default(''),
  R2_BUCKET_NAME: z.string().default('racing-media'),
  R2_ACCESS_KEY_ID: z.string().optional(),
  R2_SECRET_ACCESS_KEY: z.string().optional(),
});
export type MediaConfig = z.output<typeof mediaConfigSchema>;

export type R2Credentials = { accountId: string; bucket: string; accessKeyId: string; secretAccessKey: string };

/** Validated once per request from the Worker's env (vars and secrets). */
export function mediaConfig(env: unknown): MediaConfig {
  return parseConfig(mediaConfigSchema, env);
}

/** The S3 credentials for presigned PUTs straight to R2, when the deployment has them. */
export function r2Credentials(config: MediaConfig): R2Credentials | undefined {
  const { R2_ACCOUNT_ID: accountId, R2_BUCKET_NAME: bucket, R2_ACCESS_KEY_ID: accessKeyId, R2_SECRET_ACCESS_KEY: secretAccessKey } = config;
  return accountId && accessKeyId && secretAccessKey ? { accountId, bucket, accessKeyId, secretAccessKey } : undefined;
}
