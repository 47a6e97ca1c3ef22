import { Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { accountRoutes } from './accounts';
import type { DashboardEnv } from './layout';
import { requireAdmin, session } from './session';
import { siteRoutes } from './sites';

/** `/admin/`: form posts from other origins are refused; all but the sign-in pages need an admin. */
export const dashboard = new Hono<DashboardEnv>();
dashboard.use('/admin/*', csrf());
dashboard.route('/', session);
dashboard.use('/admin/*', requireAdmin);
dashboard.route('/', siteRoutes);
dashboard.route('/', accountRoutes);
