import { Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { limitBody } from '../../../../shared/body.ts';
import { accountRoutes } from './accounts.tsx';
import type { DashboardEnv } from './layout.tsx';
import { requireAdmin, session } from './session.tsx';
import { siteRoutes } from './sites.tsx';

/** `/admin/`: form posts from other origins are refused; all but the sign-in pages need an admin. */
export const dashboard = new Hono<DashboardEnv>();
const DASHBOARD_BODY_BYTES = 16 * 1024;
dashboard.use('/admin/*', csrf());
dashboard.use('/admin/*', limitBody<DashboardEnv>(DASHBOARD_BODY_BYTES, (c) => c.text(`The form is larger than ${DASHBOARD_BODY_BYTES} bytes.`, 413)));
dashboard.route('/', session);
dashboard.use('/admin/*', requireAdmin);
dashboard.route('/', siteRoutes);
dashboard.route('/', accountRoutes);
