import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sites } from '#d1/auth/schema.ts';
import { rootRelativeUrls } from '../support/page-urls';
import checkedIn from '../../workers/auth/openapi.json';
import { codeFor, createAccount, db, ORIGIN, page, post, uniqueIp, type Tokens } from './helpers';

/**
 * The service's main flows at the root of its own host and under its path prefix on a shared
 * origin, through the Worker's default export: the same answers, every URL a client follows under
 * the prefix it came in by.
 */

/** Every root-relative URL of the page is under the prefix (at the root: none carries it twice). */
function expectUnder(html: string, base: string) {
  const urls = rootRelativeUrls(html);
  for (const url of urls) {
    if (base) expect(url.startsWith(`${base}/`), url).toBe(true);
    else expect(url.startsWith('/auth/'), url).toBe(false);
  }
  if (base) expect(html).toContain(`<meta name="base-path" content="${base}">`);
  else expect(html).not.toContain('name="base-path"');
  return urls;
}

for (const base of ['', '/auth'] as const) {
  describe(`served at ${base || 'the root'}`, () => {
    it('login → TOTP verify → whoami', async () => {
      const account = await createAccount({ role: 'developer' });
      const ip = uniqueIp();
      const login = await post(`${base}/api/login/`, { email: account.email, password: account.password, site: '' }, { ip });
      expect(login.status).toBe(200);
      const { pending_token } = await login.json<{ pending_token: string }>();
      const verify = await post(`${base}/api/verify-2fa/`, { pending_token, code: await codeFor(account.secret) }, { ip });
      expect(verify.status).toBe(200);
      const tokens = await verify.json<Tokens>();
      const who = await exports.default.fetch(`${ORIGIN}${base}/api/whoami/`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(who.status).toBe(200);
      expect(await who.json()).toEqual({ user_name: account.email, user_permissions: 'DEVELOPER' });
    });

    it('the dashboard: redirects, sign-in pages, forms and sign-out under the prefix', async () => {
      for (const path of ['/admin', '/admin/', '/admin/accounts/']) {
        const res = await page(`${base}${path}`);
        expect([302, 303], path).toContain(res.status);
        expect(res.headers.get('location'), path).toBe(path === '/admin' ? `${base}/admin/` : `${base}/admin/login/`);
      }
      const signInPage = await page(`${base}/admin/login/`);
      expect(signInPage.status).toBe(200);
      const signInHtml = await signInPage.text();
      expect(expectUnder(signInHtml, base)).toContain(`${base}/admin/login/`);

      const admin = await createAccount({ role: 'admin' });
      const first = await page(`${base}/admin/login/`, { form: { email: admin.email, password: admin.password } });
      expect(first.status).toBe(200);
      const codeHtml = await first.text();
      expect(expectUnder(codeHtml, base)).toContain(`${base}/admin/verify/`);
      const pending = /name="pending_token" value="([\w-]+)"/.exec(codeHtml)![1]!;
      const verified = await page(`${base}/admin/verify/`, { form: { pending_token: pending, code: await codeFor(admin.secret) } });
      expect(verified.status).toBe(303);
      expect(verified.headers.get('location')).toBe(`${base}/admin/`);
      // A __Host- cookie must keep Path=/ (browsers refuse it otherwise), under the prefix too.
      const setCookie = verified.headers.get('set-cookie')!;
      expect(setCookie).toMatch(/^__Host-auth_dashboard=[^;]+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
      const cookie = setCookie.split(';')[0]!;

      for (const path of ['/admin/', '/admin/accounts/']) {
        const res = await page(`${base}${path}`, { cookie });
        expect(res.status, path).toBe(200);
        const urls = expectUnder(await res.text(), base);
        expect(urls).toEqual(expect.arrayContaining([`${base}/admin/`, `${base}/admin/accounts/`, `${base}/admin/logout/`]));
      }

      // A same-origin form post passes the CSRF check under the prefix; another origin's does not.
      const siteName = `Prefix site ${admin.id}`;
      const created = await page(`${base}/admin/sites/`, {
        cookie,
        form: { site_name: siteName, site_url: 'https://cms.example', roles: '' },
      });
      expect(created.status).toBe(303);
      expect(created.headers.get('location')).toBe(`${base}/admin/`);
      // This test's own site (the list holds every site the database has, other tests' too).
      const [site] = await db().select({ id: sites.id }).from(sites).where(eq(sites.siteName, siteName));
      expect(site).toBeDefined();
      const siteId = site!.id;
      const home = await (await page(`${base}/admin/`, { cookie })).text();
      expect(home).toContain(`action="${base}/admin/sites/${siteId}/"`);
      expect(home).toContain(`action="${base}/admin/sites/${siteId}/delete/"`);
      const forged = await page(`${base}/admin/sites/`, {
        cookie,
        origin: 'https://evil.example',
        form: { site_name: 'x', site_url: 'https://x.example' },
      });
      expect(forged.status).toBe(403);
      expect((await page(`${base}/admin/sites/${siteId}/delete/`, { cookie, form: {} })).headers.get('location')).toBe(`${base}/admin/`);
      expect(await db().select().from(sites).where(eq(sites.id, siteId))).toEqual([]);

      const out = await page(`${base}/admin/logout/`, { cookie, form: {} });
      expect(out.status).toBe(303);
      expect(out.headers.get('location')).toBe(`${base}/admin/login/`);
      expect(out.headers.get('set-cookie')).toMatch(/^__Host-auth_dashboard=; Max-Age=0; Path=\//);
      expect((await page(`${base}/admin/`, { cookie })).headers.get('location')).toBe(`${base}/admin/login/`);
    });

    it('the API docs load the document, and "try it" calls the API, under the prefix', async () => {
      const bare = await exports.default.fetch(`${ORIGIN}${base}/api/docs`, { redirect: 'manual' });
      expect(bare.status).toBe(301);
      expect(bare.headers.get('location')).toBe(`${base}/api/docs/`);

      const docsUrl = `${ORIGIN}${base}/api/docs/`;
      const html = await (await exports.default.fetch(docsUrl)).text();
      expectUnder(html, base);
      // The page's own files are relative to it, so they resolve under the prefix.
      const files = [...html.matchAll(/\s(?:href|src)="([^"]+)"/g)].map((m) => new URL(m[1]!, docsUrl));
      expect(files.map((url) => url.pathname).sort()).toEqual([
        `${base}/api/docs/swagger-init.js`,
        `${base}/api/docs/swagger-ui-bundle.js`,
        `${base}/api/docs/swagger-ui.css`,
      ]);
      for (const url of files) expect((await exports.default.fetch(url)).status, url.pathname).toBe(200);

      const init = await (await exports.default.fetch(`${ORIGIN}${base}/api/docs/swagger-init.js`)).text();
      const specUrl = /url: '([^']+)'/.exec(init)?.[1];
      expect(specUrl).toBeDefined();
      const spec = new URL(specUrl!, docsUrl);
      expect(spec.pathname).toBe(`${base}/api/docs/openapi.json`);

      const doc = await (await exports.default.fetch(spec)).json<typeof checkedIn & { servers?: { url: string }[] }>();
      if (base) expect(doc).toEqual({ ...checkedIn, servers: [{ url: base }] });
      else expect(doc).toEqual(checkedIn);
      // The prefix header from outside is not trusted: it cannot move "try it" elsewhere.
      const spoofed = await exports.default.fetch(spec, { headers: { 'x-forwarded-prefix': '/elsewhere' } });
      expect((await spoofed.json<{ servers?: unknown }>()).servers).toEqual(doc.servers);
      // Where Swagger UI sends "try it": the server (the spec's own origin without one) plus the path.
      const tryIt = new URL(`${doc.servers?.[0]?.url ?? ''}/api/whoami/`, spec);
      expect(tryIt.pathname).toBe(`${base}/api/whoami/`);
      expect((await exports.default.fetch(tryIt)).status).toBe(401);
    });
  });
}
