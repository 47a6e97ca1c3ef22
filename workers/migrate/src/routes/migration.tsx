import { Hono } from 'hono';
import type { MigrateEnv } from '../context';

export const migration = new Hono<MigrateEnv>();
