import { Hono } from 'hono';
import { accountRoutes } from './accounts.ts';
import type { DashboardEnv } from './common.ts';
import { session } from './session.ts';
import { siteRoutes } from './sites.ts';

/**
 * `/admin/`: each route names its guard (session.ts): form posts from other origins are refused,
 * and all but the sign-in pages need an administrator.
 */
export const dashboard = new Hono<DashboardEnv>();
dashboard.route('/', session);
dashboard.route('/', siteRoutes);
dashboard.route('/', accountRoutes);
