import { Hono } from 'hono';
import { z } from 'zod';
import { siteRoles } from '../../accounts.ts';
import { audit } from '../../audit.ts';
import { createSite, deleteSite, listSites, updateSite } from '../../data/sites.ts';
import { badRequest, CsrfField, firstIssue, form, idParam, Page, type DashboardEnv } from './layout.tsx';
import { adminForm, adminPage } from './session.tsx';
import { text } from '#shared/text.ts';

/** Registering and managing the sites that log their users in here. */
export const siteRoutes = new Hono<DashboardEnv>();

siteRoutes.get('/admin/', adminPage, async (c) => {
  const list = await listSites(c.var.db);
  return c.html(
    <Page title="Sites" admin={c.var.admin}>
      <table>
        <thead>
          <tr>
            <th>Site name</th>
            <th>Address and roles</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {list.map((site) => (
            <tr data-site={site.siteName}>
              <td>
                <code>{site.siteName}</code>
              </td>
              <td>
                <form method="post" action={`/admin/sites/${site.id}/`}>
                  <CsrfField c={c} />
                  <input name="site_url" value={site.siteUrl} aria-label="site address" size={36} />{' '}
                  <input name="roles" value={(siteRoles(site) ?? []).join(', ')} placeholder="global roles" aria-label="roles" />{' '}
                  <button type="submit">Save</button>
                </form>
              </td>
              <td>
                <form method="post" action={`/admin/sites/${site.id}/delete/`}>
                  <CsrfField c={c} />
                  <button type="submit">Delete</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Register a site</h2>
      <form method="post" action="/admin/sites/">
        <CsrfField c={c} />
        <label>
          Site name <input name="site_name" required maxlength={200} />
        </label>
        <label>
          Site address <input name="site_url" type="url" required placeholder="https://cms.example.com" />
        </label>
        <label>
          Role vocabulary (comma-separated; empty for admin, developer, user) <input name="roles" />
        </label>
        <button type="submit">Register site</button>
      </form>
    </Page>,
  );
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
