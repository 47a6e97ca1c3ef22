import { OpenAPIHono } from '@hono/zod-openapi';
import type { CmsEnv } from '../context';

/** Stories: list, detail, parent, children, link-search, create, update, delete. */
export const stories = new OpenAPIHono<CmsEnv>();
