import { OpenAPIHono } from '@hono/zod-openapi';
import type { CmsEnv } from '../context';

export const health = new OpenAPIHono<CmsEnv>();
