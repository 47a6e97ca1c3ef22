import { Hono } from 'hono';
import { z } from 'zod';
import { audit } from '../../audit.ts';
import { createSite, deleteSite, listSites, updateSite } from '../../data/sites.ts';
import { sitesPage } from '../../views/dashboard/sites.tsx';
import { badRequest, type DashboardEnv, firstIssue, form, idParam } from './common.ts';
import { adminForm, adminPage } from './session.ts';
import { text } from '#shared/text.ts';

/** Registering and managing the sites that log their users in here. */
export const siteRoutes = new Hono<DashboardEnv>();

siteRoutes.get('/admin/', adminPage, async (c) => {
  const list = await listSites(c.var.db);
  return c.html(sitesPage({ admin: c.var.admin, csrfToken: c.var.csrfToken, sites: list }));
});

const siteFields = z.object({
  site_url: z.url({ protocol: /^https?$/, error: 'The site address must be an http(s) URL.' }).max(500),
  roles: text()
    .max(2000)
    .optional()
    .transform((text) => [
      ...new Set(
        (text ?? '')
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean),
      ),
    ])
    .refine((roles) => roles.every((r) => r.length <= 60), 'Each role is at most 60 characters.'),
});
const newSite = siteFields.extend({ site_name: text().trim().min(1, 'The site name is required.').max(200) });

siteRoutes.post('/admin/sites/', adminForm, async (c) => {
  const parsed = newSite.safeParse(await form(c));
  if (!parsed.success) return badRequest(c, c.var.admin, firstIssue(parsed.error));
  const { site_name, site_url, roles } = parsed.data;
  const site = await createSite(c.var.db, { siteName: site_name, siteUrl: site_url, roles });
  if (!site) return badRequest(c, c.var.admin, `A site named ${site_name} is already registered.`);
  await audit(c.var.db, 'site_created', { userId: c.var.admin.id, siteName: site_name, ip: c.var.ip, detail: site_url });
  return c.redirect('/admin/', 303);
});

siteRoutes.post('/admin/sites/:id/', adminForm, async (c) => {
  const id = idParam(c);
  const parsed = siteFields.safeParse(await form(c));
  if (!id.success) return badRequest(c, c.var.admin, 'No such site.');
  if (!parsed.success) return badRequest(c, c.var.admin, firstIssue(parsed.error));
  const { site_url, roles } = parsed.data;
  const site = await updateSite(c.var.db, id.data, { siteUrl: site_url, roles });
  if (!site) return badRequest(c, c.var.admin, 'No such site.');
  await audit(c.var.db, 'site_updated', {
    userId: c.var.admin.id,
    siteName: site.siteName,
    ip: c.var.ip,
    detail: JSON.stringify(parsed.data),
  });
  return c.redirect('/admin/', 303);
});

siteRoutes.post('/admin/sites/:id/delete/', adminForm, async (c) => {
  const id = idParam(c);
  if (!id.success) return badRequest(c, c.var.admin, 'No such site.');
  const site = await deleteSite(c.var.db, id.data);
  if (site) await audit(c.var.db, 'site_deleted', { userId: c.var.admin.id, siteName: site.siteName, ip: c.var.ip });
  return c.redirect('/admin/', 303);
});
