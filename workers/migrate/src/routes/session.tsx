import { Hono } from 'hono';
import type { MigrateEnv } from '../context';

export const sessionRoutes = new Hono<MigrateEnv>();
