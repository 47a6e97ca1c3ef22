import { OpenAPIHono } from '@hono/zod-openapi';
import type { CmsEnv } from '../context';

export const lookups = new OpenAPIHono<CmsEnv>();
