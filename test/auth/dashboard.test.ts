import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, sites, users } from '#d1/auth/schema.ts';
import {
  adminCookie,
  codeFor,
  createAccount,
  dashboardToken,
  db,
  ORIGIN,
  page,
  post,
  signInToDashboard,
  type TestAccount,
  type Tokens,
} from './helpers';

describe('admin dashboard', () => {
  it('sends the signed-out to the login page', async () => {
    for (const path of ['/admin/', '/admin/accounts/']) {
      const res = await page(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/admin/login/');
    }
    const forged = await page('/admin/', { cookie: '__Host-auth_dashboard=1.9999999999.forged' });
    expect(forged.status).toBe(303);
  });

  it('signs an admin in with password then code, and refuses other roles', async () => {
    const { cookie } = await adminCookie();
    const home = await page('/admin/', { cookie });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Register a site');

    const developer = await createAccount({ role: 'developer' });
    const refused = await signInToDashboard(developer);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('answers a wrong password and a wrong code on the page, without a cookie', async () => {
    const admin = await createAccount({ role: 'admin' });
    const wrong = await page('/admin/login/', { form: { email: admin.email, password: 'nope' } });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('Invalid e-mail or password.');
    const empty = await page('/admin/login/', { form: {} });
    expect(empty.status).toBe(400);
    const first = await page('/admin/login/', { form: { email: admin.email, password: admin.password } });
    const pending = /name="pending_token" value="([\w-]+)"/.exec(await first.text())![1]!;
    const badCode = await page('/admin/verify/', { form: { pending_token: pending, code: '12' } });
    expect(badCode.status).toBe(400);
    expect(badCode.headers.get('set-cookie')).toBeNull();
    expect(await badCode.text()).toContain('Invalid code.');
  });

  it('refuses cross-site form posts', async () => {
    const { cookie } = await adminCookie();
    const res = await page('/admin/sites/', {
      cookie,
      origin: 'https://evil.example',
      form: { site_name: 'x', site_url: 'https://x.example' },
    });
    expect(res.status).toBe(403);
  });

  it('refuses an administrator form without its session token, or with another session one', async () => {
    const { cookie } = await adminCookie();
    const { cookie: otherCookie } = await adminCookie();
    const html = await (await page('/admin/', { cookie })).text();
    const shown = /name="csrf_token" value="([\w-]+)"/.exec(html)?.[1];
    expect(shown).toBe(await dashboardToken(cookie.split('=')[1]!));
    const otherToken = await dashboardToken(otherCookie.split('=')[1]!);
    for (const csrf_token of ['', otherToken, `${shown!.slice(0, -2)}AA`]) {
      const name = `Forged ${csrf_token.length} ${Math.random()}`;
      const res = await page('/admin/sites/', { cookie, form: { site_name: name, site_url: 'https://x.example', csrf_token } });
      expect(res.status, csrf_token).toBe(403);
      expect(await res.text()).toBe('Forbidden');
      expect(await db().select().from(sites).where(eq(sites.siteName, name))).toEqual([]);
    }
  });

  it('registers, edits and deletes a site, audited, and the site works for logins', async () => {
    const { cookie, admin } = await adminCookie();
    const name = `Racing CMS ${admin.id}`;
    const created = await page('/admin/sites/', {
      cookie,
      form: { site_name: name, site_url: 'https://cms.example', roles: 'Editor, Senior Editor, Editor' },
    });
    expect(created.status).toBe(303);
    const [site] = await db().select().from(sites).where(eq(sites.siteName, name));
    expect(site).toMatchObject({ siteUrl: 'https://cms.example', roles: '["Editor","Senior Editor"]' });
    expect(await (await page('/admin/', { cookie })).text()).toContain(name);

    const duplicate = await page('/admin/sites/', { cookie, form: { site_name: name, site_url: 'https://cms.example' } });
    expect(duplicate.status).toBe(400);
    expect(await duplicate.text()).toContain('already registered');

    expect((await page(`/admin/sites/${site!.id}/`, { cookie, form: { site_url: 'https://cms2.example', roles: '' } })).status).toBe(303);
    const [edited] = await db().select().from(sites).where(eq(sites.id, site!.id));
    expect(edited).toMatchObject({ siteUrl: 'https://cms2.example', roles: null });

    expect((await page(`/admin/sites/${site!.id}/delete/`, { cookie, form: {} })).status).toBe(303);
    expect(await db().select().from(sites).where(eq(sites.id, site!.id))).toHaveLength(0);
    const events = (await db().select().from(auditLog).where(eq(auditLog.siteName, name))).map((r) => r.event);
    expect(events).toEqual(['site_created', 'site_updated', 'site_deleted']);
  });

  it('answers 400 for bad site input', async () => {
    const { cookie } = await adminCookie();
    const cases: Record<string, string>[] = [
      { site_name: '', site_url: 'https://a.example' },
      { site_name: 'a', site_url: 'not a url' },
      { site_name: 'a', site_url: 'javascript:alert(1)' },
      { site_name: 'x'.repeat(300), site_url: 'https://a.example' },
      { site_name: 'a', site_url: 'https://a.example', roles: 'y'.repeat(100) },
      { site_url: 'https://a.example' },
    ];
    for (const form of cases) expect((await page('/admin/sites/', { cookie, form })).status).toBe(400);
    for (const id of ['abc', '0', '-1', '99999999']) {
      expect((await page(`/admin/sites/${id}/`, { cookie, form: { site_url: 'https://a.example' } })).status).toBe(400);
    }
  });

  it('creates and enrols an account: otpauth URI, QR code and ten backup codes that work', async () => {
    const { cookie } = await adminCookie();
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await page('/admin/accounts/', {
      cookie,
      form: { email, first_name: 'New', last_name: 'Person', role: 'user', password: 'a good long password' },
    });
    expect(res.status).toBe(201);
    const html = await res.text();
    const uri = /id="otpauth-uri">([^<]+)</.exec(html)![1]!.replace(/&amp;/g, '&');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Racing%20back-office:new-\w+%40example\.com\?secret=[A-Z2-7]{32}&issuer=/);
    expect(html).toMatch(/<svg[^>]*viewBox/);
    const codes = [...html.matchAll(/<li><code>([a-z0-9]{4}-[a-z0-9]{4})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(10);
    const secret = new URL(uri).searchParams.get('secret')!;
    const [stored] = await db().select().from(users).where(eq(users.email, email));
    expect(stored!.totpSecret).not.toContain(secret);

    const account: TestAccount = { id: stored!.id, email, password: 'a good long password', secret, backupCodes: codes };
    const login = await post('/api/login/', { email, password: account.password, site: '' });
    const { pending_token } = await login.json<{ pending_token: string }>();
    const verify = await post('/api/verify-2fa/', { pending_token, code: await codeFor(secret) });
    expect(verify.status).toBe(200);
    expect((await verify.json<Tokens>()).user?.first_name).toBe('New');

    const again = await page('/admin/accounts/', { cookie, form: { email, role: 'user', password: 'a good long password' } });
    expect(again.status).toBe(400);
    const weak = await page('/admin/accounts/', { cookie, form: { email: `x${email}`, role: 'user', password: 'short' } });
    expect(weak.status).toBe(400);
    const badRole = await page('/admin/accounts/', {
      cookie,
      form: { email: `y${email}`, role: 'root', password: 'a good long password' },
    });
    expect(badRole.status).toBe(400);
  });

  it('deactivates an account: its refresh answers 403', async () => {
    const { cookie } = await adminCookie();
    const account = await createAccount({});
    const login = await post('/api/login/', { email: account.email, password: account.password, site: '' });
    const { pending_token } = await login.json<{ pending_token: string }>();
    const tokens = await (await post('/api/verify-2fa/', { pending_token, code: await codeFor(account.secret) })).json<Tokens>();
    expect((await page(`/admin/accounts/${account.id}/active/`, { cookie, form: { active: 'false' } })).status).toBe(303);
    expect((await post('/api/token/refresh/', { refresh_token: tokens.refresh_token })).status).toBe(403);
  });

  it('sets a per-site password and role, checked against the site’s vocabulary', async () => {
    const { cookie, admin } = await adminCookie();
    const name = `Vocab ${admin.id}`;
    await page('/admin/sites/', { cookie, form: { site_name: name, site_url: 'https://v.example', roles: 'Editor, Senior Editor' } });
    const [site] = await db().select().from(sites).where(eq(sites.siteName, name));
    const account = await createAccount({ role: 'user' });
    const form = { email: account.email, site_id: String(site!.id), password: 'the site password', site_role: 'Senior Editor' };
    expect((await page('/admin/credentials/', { cookie, form: { ...form, site_role: 'Chief' } })).status).toBe(400);
    expect((await page('/admin/credentials/', { cookie, form: { ...form, site_id: 'x' } })).status).toBe(400);
    expect((await page('/admin/credentials/', { cookie, form: { ...form, email: 'nobody@example.com' } })).status).toBe(400);
    expect((await page('/admin/credentials/', { cookie, form })).status).toBe(303);
    // Saving again replaces the credential rather than adding a second one.
    expect((await page('/admin/credentials/', { cookie, form })).status).toBe(303);

    const login = await post('/api/login/', { email: account.email, password: 'the site password', site: name });
    const { pending_token } = await login.json<{ pending_token: string }>();
    const tokens = await (await post('/api/verify-2fa/', { pending_token, code: await codeFor(account.secret) })).json<Tokens>();
    const who = await exports.default.fetch(`${ORIGIN}/api/whoami/`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await who.json()).toEqual({ user_name: account.email, user_permissions: 'SENIOR EDITOR' });
  });

  it('re-enrols an account: the old secret and backup codes stop working', async () => {
    const { cookie } = await adminCookie();
    const account = await createAccount({});
    const res = await page(`/admin/accounts/${account.id}/enrol/`, { cookie, form: {} });
    expect(res.status).toBe(200);
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(await res.text())![1]!;
    expect(secret).not.toBe(account.secret);
    const pendingOld = (
      await (await post('/api/login/', { email: account.email, password: account.password })).json<{ pending_token: string }>()
    ).pending_token;
    const viaOld = await post('/api/verify-2fa/', { pending_token: pendingOld, code: account.backupCodes[0] });
    expect(viaOld.status).toBe(400);
    const viaNew = await post('/api/verify-2fa/', { pending_token: pendingOld, code: await codeFor(secret) });
    expect(viaNew.status).toBe(200);
    expect((await page('/admin/accounts/abc/enrol/', { cookie, form: {} })).status).toBe(400);
  });
});
