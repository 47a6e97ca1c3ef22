import { and, eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import type { Child } from 'hono/jsx';
import { raw } from 'hono/html';
import { z } from 'zod';
import { credentials, sites, users } from '../../../../d1/auth/schema';
import { siteRoles, type User } from '../accounts';
import { createAccount, storeEnrolment } from '../accounts-admin';
import { audit } from '../audit';
import type { AuthEnv } from '../context';
import { enrol, qrSvg, type Enrolment } from '../enrolment';
import { checkCode, checkPassword, type AuthDeps } from '../login';
import { hashPassword } from '../passwords';

/** Sites and accounts for administrators, behind the same two-step login as the API. */
type DashboardEnv = { Bindings: AuthEnv['Bindings']; Variables: AuthEnv['Variables'] & { admin: User } };

export const dashboard = new Hono<DashboardEnv>();

const SESSION_COOKIE = '__Host-auth_dashboard';
const SESSION_SECONDS = 3600;
const sessionSecret = (c: Context<DashboardEnv>) => `${c.var.config.AUTH_TOKEN_SECRET}:dashboard-session`;
const deps = (c: Context<DashboardEnv>): AuthDeps => ({ env: c.env, config: c.var.config, db: c.var.db, ip: c.var.ip });

function Page(props: { title: string; admin?: User; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · Authentication</title>
        <style>{raw(`body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:.4rem;text-align:left;vertical-align:top}
form.inline{display:inline}input,select{padding:.3rem;margin:.15rem 0}label{display:block;margin:.4rem 0}
.error{color:#a40000;font-weight:600}.note{background:#fff6d6;padding:.6rem;border:1px solid #e6d48a}nav a{margin-right:1rem}
code{background:#f2f3f5;padding:.1rem .3rem}`)}</style>
      </head>
      <body>
        {props.admin ? (
          <nav>
            <a href="/admin/">Sites</a>
            <a href="/admin/accounts/">Accounts</a>
            <form class="inline" method="post" action="/admin/logout/">
              <button type="submit">Sign out {props.admin.email}</button>
            </form>
          </nav>
        ) : null}
        <h1>{props.title}</h1>
        {props.children}
      </body>
    </html>
  );
}

const LoginForm = (props: { error?: string }) => (
  <Page title="Sign in">
    {props.error ? <p class="error" role="alert">{props.error}</p> : null}
    <form method="post" action="/admin/login/">
      <label>
        E-mail <input name="email" type="email" autocomplete="username" required />
      </label>
      <label>
        Password <input name="password" type="password" autocomplete="current-password" required />
      </label>
      <button type="submit">Continue</button>
    </form>
  </Page>
);

const CodeForm = (props: { pendingToken: string; error?: string }) => (
  <Page title="Authenticator code">
    {props.error ? <p class="error" role="alert">{props.error}</p> : null}
    <form method="post" action="/admin/verify/">
      <input type="hidden" name="pending_token" value={props.pendingToken} />
      <label>
        6-digit code (or a backup code) <input name="code" inputmode="numeric" autocomplete="one-time-code" required />
      </label>
      <button type="submit">Sign in</button>
    </form>
  </Page>
);

async function form(c: Context<DashboardEnv>): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

const badRequest = (c: Context<DashboardEnv>, admin: User, message: string) =>
  c.html(
    <Page title="Not saved" admin={admin}>
      <p class="error" role="alert">{message}</p>
      <p>
        <a href="javascript:history.back()">Back</a>
      </p>
    </Page>,
    400,
  );

dashboard.use('/admin/*', csrf());
dashboard.get('/admin', (c) => c.redirect('/admin/'));
dashboard.get('/admin/login/', (c) => c.html(<LoginForm />));

dashboard.post('/admin/login/', async (c) => {
  const fields = await form(c);
  const email = (fields.email ?? '').slice(0, 254);
  const password = (fields.password ?? '').slice(0, 1024);
  if (!email || !password) return c.html(<LoginForm error="Enter your e-mail and password." />, 400);
  // The dashboard signs in with the account's siteless credential.
  const result = await checkPassword(deps(c), { email, password, site: '' }, 'dashboard');
  if (result.kind === 'pending') return c.html(<CodeForm pendingToken={result.pendingToken} />);
  if (result.kind === 'throttled') return c.html(<LoginForm error="Too many attempts. Try again later." />, 429);
  if (result.kind === 'not_enrolled') return c.html(<LoginForm error="This account is not enrolled in two-factor authentication." />, 400);
  return c.html(<LoginForm error="Invalid e-mail or password." />, 400);
});

dashboard.post('/admin/verify/', async (c) => {
  const fields = await form(c);
  const pendingToken = (fields.pending_token ?? '').slice(0, 256);
  const code = (fields.code ?? '').slice(0, 32);
  const result = await checkCode(deps(c), { pendingToken, code }, 'dashboard');
  if (result.kind === 'invalid_code') return c.html(<CodeForm pendingToken={pendingToken} error="Invalid code." />, 400);
  if (result.kind === 'throttled') return c.html(<LoginForm error="Too many attempts. Try again later." />, 429);
  if (result.kind === 'invalid_token') return c.html(<LoginForm error="The sign-in has expired; start again." />, 400);
  if (result.user.role !== 'admin') return c.html(<LoginForm error="Only administrators can use this dashboard." />, 403);
  await audit(c.var.db, 'dashboard_login', { userId: result.user.id, email: result.user.email, ip: c.var.ip });
  const expires = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
  await setSignedCookie(c, SESSION_COOKIE, `${result.user.id}.${expires}`, sessionSecret(c), {
    path: '/',
    secure: true,
    httpOnly: true,
    sameSite: 'Strict',
    maxAge: SESSION_SECONDS,
  });
  return c.redirect('/admin/', 303);
});

dashboard.post('/admin/logout/', (c) => {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: true });
  return c.redirect('/admin/login/', 303);
});

// Everything below needs a signed-in, still active administrator.
dashboard.use('/admin/*', async (c, next) => {
  const value = await getSignedCookie(c, sessionSecret(c), SESSION_COOKIE);
  const [id, expires] = typeof value === 'string' ? value.split('.').map(Number) : [];
  if (id && expires && expires * 1000 > Date.now()) {
    const [admin] = await c.var.db.select().from(users).where(eq(users.id, id)).limit(1);
    if (admin?.isActive && admin.role === 'admin') {
      c.set('admin', admin);
      return next();
    }
  }
  return c.redirect('/admin/login/', 303);
});

dashboard.get('/admin/', async (c) => {
  const list = await c.var.db.select().from(sites).orderBy(sites.siteName);
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
                  <input name="site_url" value={site.siteUrl} aria-label="site address" size={36} />{' '}
                  <input name="roles" value={(siteRoles(site) ?? []).join(', ')} placeholder="global roles" aria-label="roles" />{' '}
                  <button type="submit">Save</button>
                </form>
              </td>
              <td>
                <form method="post" action={`/admin/sites/${site.id}/delete/`}>
                  <button type="submit">Delete</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Register a site</h2>
      <form method="post" action="/admin/sites/">
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
  roles: z
    .string()
    .max(2000)
    .optional()
    .transform((text) => [...new Set((text ?? '').split(',').map((r) => r.trim()).filter(Boolean))])
    .refine((roles) => roles.every((r) => r.length <= 60), 'Each role is at most 60 characters.'),
});
const newSite = siteFields.extend({ site_name: z.string().trim().min(1, 'The site name is required.').max(200) });
const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'Invalid input.';
const siteId = (c: Context<DashboardEnv>) => z.coerce.number().int().positive().safeParse(c.req.param('id'));

dashboard.post('/admin/sites/', async (c) => {
  const parsed = newSite.safeParse(await form(c));
  if (!parsed.success) return badRequest(c, c.var.admin, firstIssue(parsed.error));
  const { site_name, site_url, roles } = parsed.data;
  const [site] = await c.var.db
    .insert(sites)
    .values({ siteName: site_name, siteUrl: site_url, roles: roles.length ? JSON.stringify(roles) : null })
    .onConflictDoNothing()
    .returning({ id: sites.id });
  if (!site) return badRequest(c, c.var.admin, `A site named ${site_name} is already registered.`);
  await audit(c.var.db, 'site_created', { userId: c.var.admin.id, siteName: site_name, ip: c.var.ip, detail: site_url });
  return c.redirect('/admin/', 303);
});

dashboard.post('/admin/sites/:id/', async (c) => {
  const id = siteId(c);
  const parsed = siteFields.safeParse(await form(c));
  if (!id.success) return badRequest(c, c.var.admin, 'No such site.');
  if (!parsed.success) return badRequest(c, c.var.admin, firstIssue(parsed.error));
  const { site_url, roles } = parsed.data;
  const [site] = await c.var.db
    .update(sites)
    .set({ siteUrl: site_url, roles: roles.length ? JSON.stringify(roles) : null })
    .where(eq(sites.id, id.data))
    .returning({ siteName: sites.siteName });
  if (!site) return badRequest(c, c.var.admin, 'No such site.');
  await audit(c.var.db, 'site_updated', { userId: c.var.admin.id, siteName: site.siteName, ip: c.var.ip, detail: JSON.stringify(parsed.data) });
  return c.redirect('/admin/', 303);
});

dashboard.post('/admin/sites/:id/delete/', async (c) => {
  const id = siteId(c);
  if (!id.success) return badRequest(c, c.var.admin, 'No such site.');
  const [site] = await c.var.db.delete(sites).where(eq(sites.id, id.data)).returning({ siteName: sites.siteName });
  if (site) await audit(c.var.db, 'site_deleted', { userId: c.var.admin.id, siteName: site.siteName, ip: c.var.ip });
  return c.redirect('/admin/', 303);
});

dashboard.get('/admin/accounts/', async (c) => {
  const list = await c.var.db.select().from(users).orderBy(users.email);
  const siteList = await c.var.db.select({ id: sites.id, siteName: sites.siteName }).from(sites).orderBy(sites.siteName);
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
                  <button type="submit">{user.totpSecret ? 'Re-enrol' : 'Enrol'}</button>
                </form>
              </td>
              <td>
                {user.isActive ? 'active' : 'deactivated'}
                <form method="post" action={`/admin/accounts/${user.id}/active/`}>
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
  first_name: z.string().max(150).default(''),
  last_name: z.string().max(150).default(''),
  role: z.enum(['admin', 'developer', 'user']),
  password: z.string().min(12, 'The password needs at least 12 characters.').max(1024),
});

dashboard.post('/admin/accounts/', async (c) => {
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
  const email = input.email.toLowerCase();
  const enrolment = await enrol(email, c.var.config.AUTH_TOTP_ISSUER, c.var.config.AUTH_TOTP_ENCRYPTION_KEY);
  await storeEnrolment(c.var.db, userId, enrolment);
  await audit(c.var.db, 'account_created', { userId, email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  await audit(c.var.db, 'enrolment', { userId, email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  return c.html(<EnrolmentPage admin={c.var.admin} email={email} enrolment={enrolment} />, 201);
});

dashboard.post('/admin/accounts/:id/enrol/', async (c) => {
  const id = siteId(c);
  const [user] = id.success ? await c.var.db.select().from(users).where(eq(users.id, id.data)).limit(1) : [];
  if (!user) return badRequest(c, c.var.admin, 'No such account.');
  const enrolment = await enrol(user.email, c.var.config.AUTH_TOTP_ISSUER, c.var.config.AUTH_TOTP_ENCRYPTION_KEY);
  await storeEnrolment(c.var.db, user.id, enrolment);
  await audit(c.var.db, 'enrolment', { userId: user.id, email: user.email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  return c.html(<EnrolmentPage admin={c.var.admin} email={user.email} enrolment={enrolment} />);
});

dashboard.post('/admin/accounts/:id/active/', async (c) => {
  const id = siteId(c);
  const active = (await form(c)).active === 'true';
  if (!id.success) return badRequest(c, c.var.admin, 'No such account.');
  if (id.data === c.var.admin.id && !active) return badRequest(c, c.var.admin, 'You cannot deactivate your own account.');
  const [user] = await c.var.db.update(users).set({ isActive: active }).where(eq(users.id, id.data)).returning({ email: users.email });
  if (!user) return badRequest(c, c.var.admin, 'No such account.');
  await audit(c.var.db, active ? 'account_activated' : 'account_deactivated', { userId: id.data, email: user.email, ip: c.var.ip, detail: `by ${c.var.admin.email}` });
  return c.redirect('/admin/accounts/', 303);
});

const siteCredential = z.object({
  email: z.email('Enter a valid e-mail address.').max(254),
  site_id: z.coerce.number().int().positive('Choose a site.'),
  password: z.string().min(12, 'The password needs at least 12 characters.').max(1024),
  site_role: z.string().trim().max(60).optional(),
});

dashboard.post('/admin/credentials/', async (c) => {
  const parsed = siteCredential.safeParse(await form(c));
  if (!parsed.success) return badRequest(c, c.var.admin, firstIssue(parsed.error));
  const input = parsed.data;
  const [user] = await c.var.db.select().from(users).where(eq(users.email, input.email.toLowerCase())).limit(1);
  const [site] = await c.var.db.select().from(sites).where(eq(sites.id, input.site_id)).limit(1);
  if (!user || !site) return badRequest(c, c.var.admin, 'No such account or site.');
  const role = input.site_role || null;
  const vocabulary = siteRoles(site);
  if (role && !vocabulary?.includes(role)) return badRequest(c, c.var.admin, `${site.siteName} has no role ${role}.`);
  const values = { userId: user.id, siteId: site.id, passwordHash: hashPassword(input.password), siteRole: role, updatedAt: Date.now() };
  await c.var.db.batch([
    c.var.db.delete(credentials).where(and(eq(credentials.userId, user.id), eq(credentials.siteId, site.id))),
    c.var.db.insert(credentials).values(values),
  ]);
  await audit(c.var.db, 'site_updated', { userId: c.var.admin.id, siteName: site.siteName, ip: c.var.ip, detail: `credential for ${user.email}` });
  return c.redirect('/admin/accounts/', 303);
});
