import { Hono } from 'hono';
import { raw } from 'hono/html';
import { z } from 'zod';
import { normaliseEmail, siteRoles, type User } from '../../accounts.ts';
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
import { enrol, qrSvg, type Enrolment } from '../../enrolment.ts';
import { hashPassword } from '../../passwords.ts';
import { badRequest, CsrfField, firstIssue, form, idParam, Page, type DashboardEnv } from './layout.tsx';
import { adminForm, adminPage } from './session.tsx';
import { text } from '#shared/text.ts';

/** Accounts: create and enrol in 2FA, re-enrol, (de)activate, per-site credentials. */
export const accountRoutes = new Hono<DashboardEnv>();

accountRoutes.get('/admin/accounts/', adminPage, async (c) => {
  const list = await listAccounts(c.var.db);
  const siteList = await listSiteChoices(c.var.db);
  return c.html(
    <Page title="Accounts" admin={c.var.admin}>
      <table>
        <thead>
          <tr>
            <th>E-mail</th>
            <th>Name</th>
            <th>Role</th>
            <th>2FA</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {list.map((user) => (
            <tr data-account={user.email}>
              <td>{user.email}</td>
              <td>
                {user.firstName} {user.lastName}
              </td>
              <td>{user.role}</td>
              <td>
                {user.totpSecret ? 'enrolled' : 'not enrolled'}
                <form method="post" action={`/admin/accounts/${user.id}/enrol/`}>
                  <CsrfField c={c} />
                  <button type="submit">{user.totpSecret ? 'Re-enrol' : 'Enrol'}</button>
                </form>
              </td>
              <td>
                {user.isActive ? 'active' : 'deactivated'}
                <form method="post" action={`/admin/accounts/${user.id}/active/`}>
                  <CsrfField c={c} />
                  <input type="hidden" name="active" value={user.isActive ? 'false' : 'true'} />
                  <button type="submit">{user.isActive ? 'Deactivate' : 'Activate'}</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Create an account</h2>
      <p>The account is enrolled in two-factor authentication at once: the next page shows its authenticator QR code and backup codes.</p>
      <form method="post" action="/admin/accounts/">
        <CsrfField c={c} />
        <label>
          E-mail <input name="email" type="email" required />
        </label>
        <label>
          First name <input name="first_name" />
        </label>
        <label>
          Last name <input name="last_name" />
        </label>
        <label>
          Role{' '}
          <select name="role">
            <option value="user">user</option>
            <option value="developer">developer</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>
          Password (at least 12 characters) <input name="password" type="password" minlength={12} required autocomplete="new-password" />
        </label>
        <button type="submit">Create and enrol</button>
      </form>
      <h2>Set a password and role for one site</h2>
      <form method="post" action="/admin/credentials/">
        <CsrfField c={c} />
        <label>
          Account e-mail <input name="email" type="email" required />
        </label>
        <label>
          Site{' '}
          <select name="site_id">
            {siteList.map((s) => (
              <option value={String(s.id)}>{s.siteName}</option>
            ))}
          </select>
        </label>
        <label>
          Password <input name="password" type="password" minlength={12} required autocomplete="new-password" />
        </label>
        <label>
          Role on the site (one of its vocabulary; empty for the account’s role) <input name="site_role" />
        </label>
        <button type="submit">Save credential</button>
      </form>
    </Page>,
  );
});

const EnrolmentPage = (props: { admin: User; email: string; enrolment: Enrolment }) => (
  <Page title={`Enrolment of ${props.email}`} admin={props.admin}>
    <p class="note">Shown once. Scan the code with an authenticator app, and hand the backup codes to the account holder.</p>
    <div id="qr" style="width:240px">
      {raw(qrSvg(props.enrolment.otpauthUri))}
    </div>
    <p>
      <code id="otpauth-uri">{props.enrolment.otpauthUri}</code>
    </p>
    <p>
      Secret: <code id="totp-secret">{props.enrolment.secret}</code>
    </p>
    <h2>Backup codes (each works once)</h2>
    <ul id="backup-codes">
      {props.enrolment.backupCodes.map((code) => (
        <li>
          <code>{code}</code>
        </li>
      ))}
    </ul>
    <p>
      <a href="/admin/accounts/">Back to accounts</a>
    </p>
  </Page>
);

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
  return c.html(<EnrolmentPage admin={c.var.admin} email={email} enrolment={enrolment} />, 201);
});

accountRoutes.post('/admin/accounts/:id/enrol/', adminForm, async (c) => {
  const id = idParam(c);
  const user = id.success ? await findAccount(c.var.db, id.data) : undefined;
  if (!user) return badRequest(c, c.var.admin, 'No such account.');
  const enrolment = await enrol(user.email, c.var.config.AUTH_TOTP_ISSUER, c.var.config.AUTH_TOTP_ENCRYPTION_KEY);
  await storeEnrolment(c.var.db, user.id, enrolment);
  await audit(c.var.db, 'enrolment', { userId: user.id, email: user.email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  return c.html(<EnrolmentPage admin={c.var.admin} email={user.email} enrolment={enrolment} />);
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
