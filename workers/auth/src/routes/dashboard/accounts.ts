import { Hono } from 'hono';
import { z } from 'zod';
import { normaliseEmail, siteRoles } from '../../accounts.ts';
import { createAccount, storeEnrolment } from '../../accounts-admin.ts';
import { audit } from '../../audit.ts';
import {
  findAccount,
  findAccountByEmail,
  findSite,
  listAccounts,
  listSiteChoices,
  replaceSiteCredential,
  setAccountActive,
} from '../../data/accounts.ts';
import { enrol } from '../../enrolment.ts';
import { hashPassword } from '../../passwords.ts';
import { accountsPage, enrolmentPage } from '../../views/dashboard/accounts.tsx';
import { badRequest, type DashboardEnv, firstIssue, form, idParam } from './common.ts';
import { adminForm, adminPage } from './session.ts';
import { text } from '#shared/text.ts';

/** Accounts: create and enrol in 2FA, re-enrol, (de)activate, per-site credentials. */
export const accountRoutes = new Hono<DashboardEnv>();

accountRoutes.get('/admin/accounts/', adminPage, async (c) => {
  const list = await listAccounts(c.var.db);
  const siteList = await listSiteChoices(c.var.db);
  return c.html(accountsPage({ admin: c.var.admin, csrfToken: c.var.csrfToken, accounts: list, sites: siteList }));
});

const newAccount = z.object({
  email: z.email('Enter a valid e-mail address.').max(254),
  first_name: text().max(150).default(''),
  last_name: text().max(150).default(''),
  role: z.enum(['admin', 'developer', 'user']),
  password: text().min(12, 'The password needs at least 12 characters.').max(1024),
});

accountRoutes.post('/admin/accounts/', adminForm, async (c) => {
  const parsed = newAccount.safeParse(await form(c));
  if (!parsed.success) return badRequest(c, c.var.admin, firstIssue(parsed.error));
  const input = parsed.data;
  const userId = await createAccount(c.var.db, {
    email: input.email,
    firstName: input.first_name,
    lastName: input.last_name,
    role: input.role,
    passwordHash: hashPassword(input.password),
  });
  if (userId === null) return badRequest(c, c.var.admin, 'An account with this e-mail already exists.');
  const email = normaliseEmail(input.email);
  const enrolment = await enrol(email, c.var.config.AUTH_TOTP_ISSUER, c.var.config.AUTH_TOTP_ENCRYPTION_KEY);
  await storeEnrolment(c.var.db, userId, enrolment);
  await audit(c.var.db, 'account_created', { userId, email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  await audit(c.var.db, 'enrolment', { userId, email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  return c.html(enrolmentPage(c.var.admin, email, enrolment), 201);
});

accountRoutes.post('/admin/accounts/:id/enrol/', adminForm, async (c) => {
  const id = idParam(c);
  const user = id.success ? await findAccount(c.var.db, id.data) : undefined;
  if (!user) return badRequest(c, c.var.admin, 'No such account.');
  const enrolment = await enrol(user.email, c.var.config.AUTH_TOTP_ISSUER, c.var.config.AUTH_TOTP_ENCRYPTION_KEY);
  await storeEnrolment(c.var.db, user.id, enrolment);
  await audit(c.var.db, 'enrolment', { userId: user.id, email: user.email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  return c.html(enrolmentPage(c.var.admin, user.email, enrolment));
});

accountRoutes.post('/admin/accounts/:id/active/', adminForm, async (c) => {
  const id = idParam(c);
  const active = (await form(c)).active === 'true';
  if (!id.success) return badRequest(c, c.var.admin, 'No such account.');
  if (id.data === c.var.admin.id && !active) return badRequest(c, c.var.admin, 'You cannot deactivate your own account.');
  const user = await setAccountActive(c.var.db, id.data, active);
  if (!user) return badRequest(c, c.var.admin, 'No such account.');
  await audit(c.var.db, active ? 'account_activated' : 'account_deactivated', {
    userId: id.data,
    email: user.email,
    ip: c.var.ip,
    detail: `by ${c.var.admin.email}`,
  });
  return c.redirect('/admin/accounts/', 303);
});

const siteCredential = z.object({
  email: z.email('Enter a valid e-mail address.').max(254),
  site_id: z.coerce.number().int().positive('Choose a site.'),
  password: text().min(12, 'The password needs at least 12 characters.').max(1024),
  site_role: text().trim().max(60).optional(),
});

accountRoutes.post('/admin/credentials/', adminForm, async (c) => {
  const parsed = siteCredential.safeParse(await form(c));
  if (!parsed.success) return badRequest(c, c.var.admin, firstIssue(parsed.error));
  const input = parsed.data;
  const user = await findAccountByEmail(c.var.db, normaliseEmail(input.email));
  const site = await findSite(c.var.db, input.site_id);
  if (!user || !site) return badRequest(c, c.var.admin, 'No such account or site.');
  const role = input.site_role || null;
  const vocabulary = siteRoles(site);
  if (role && !vocabulary?.includes(role)) return badRequest(c, c.var.admin, `${site.siteName} has no role ${role}.`);
  const values = { userId: user.id, siteId: site.id, passwordHash: hashPassword(input.password), siteRole: role, updatedAt: Date.now() };
  await replaceSiteCredential(c.var.db, values);
  await audit(c.var.db, 'site_updated', {
    userId: c.var.admin.id,
    siteName: site.siteName,
    ip: c.var.ip,
    detail: `credential for ${user.email}`,
  });
  return c.redirect('/admin/accounts/', 303);
});
