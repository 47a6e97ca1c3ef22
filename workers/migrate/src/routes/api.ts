import { OpenAPIHono } from '@hono/zod-openapi';
import type { MigrateEnv } from '../context';

export const api = new OpenAPIHono<MigrateEnv>();
