import { Hono } from 'hono';
import { accountRoutes } from './accounts.tsx';
import type { DashboardEnv } from './layout.tsx';
import { session } from './session.tsx';
import { siteRoutes } from './sites.tsx';

/**
 * `/admin/`: each route names its guard (session.tsx): form posts from other origins are refused,
 * and all but the sign-in pages need an administrator.
 */
export const dashboard = new Hono<DashboardEnv>();
dashboard.route('/', session);
dashboard.route('/', siteRoutes);
dashboard.route('/', accountRoutes);
