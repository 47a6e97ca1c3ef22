import { OpenAPIHono } from '@hono/zod-openapi';
import type { CmsEnv } from '../context';

/** Paths under this prefix authenticate by their own signature (local signed uploads), not the session. */
export const MEDIA_ANONYMOUS_PREFIX = '/api/v1/media/uploads/';

/** The media library: one controller for the photo and video galleries. */
export const media = new OpenAPIHono<CmsEnv>();
