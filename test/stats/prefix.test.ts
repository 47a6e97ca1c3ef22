import { describe, expect, it } from 'vitest';
import { rootRelativeUrls } from '../support/page-urls';
import { call, recentMeeting, TOKEN } from './helpers';

/**
 * The service's main flow at the root of its own host and under its path prefix on a shared
 * origin, through the Worker's default export: the same answers, every URL a browser follows under
 * the prefix it came in by.
 */

/** A page under `base`: 200, every root-relative URL under the prefix, the base-path meta tag under it only. */
async function pageUnder(base: string, path: string): Promise<{ html: string; urls: string[] }> {
  const res = await call(`${base}${path}`);
  expect(res.status, path).toBe(200);
  const html = await res.text();
  const urls = rootRelativeUrls(html);
  expect(urls.length, path).toBeGreaterThan(0);
  for (const url of urls) {
    if (base) expect(url.startsWith(`${base}/`), `${path}: ${url}`).toBe(true);
    else expect(url.startsWith('/stats/'), `${path}: ${url}`).toBe(false);
  }
  if (base) expect(html, path).toContain(`<meta name="base-path" content="${base}">`);
  else expect(html, path).not.toContain('name="base-path"');
  // The page's own scripts are linked by content hash (`?v=`): compared here by path.
  return { html, urls: urls.map((url) => url.replace(/\?v=[0-9a-f]+$/, '')) };
}

/**
 * The page scripts' own root-relative string literals: each must be put under the page's base path
 * (read from the meta tag) before it is used, as `BASE + '/x'`, `esc(BASE) + '/x'` or through
 * `api('/x')`, which does the same.
 */
function expectScriptUnderBase(js: string, name: string) {
  expect(js, name).toContain(`const BASE = document.querySelector('meta[name="base-path"]')?.content ?? '';`);
  for (const m of js.matchAll(/["'`](\/(?!\/)[^"'`\s]*)["'`]/g)) {
    expect(js.slice(Math.max(0, m.index - 12), m.index), `${name}: ${m[1]}`).toMatch(/(BASE \+ |esc\(BASE\) \+ |api\()$/);
  }
  if (/\bfetch\(/.test(js)) for (const m of js.matchAll(/\bfetch\(([^,)]*)/g)) expect(m[1], name).toMatch(/BASE \+/);
}

for (const base of ['', '/stats'] as const) {
  describe(`served at ${base || 'the root'}`, () => {
    it('/meetingStats with its token, and with the one the login answers', async () => {
      const { date, courseId, course } = await recentMeeting();
      const query = `date=${date}&courseId=${courseId}`;
      const res = await call(`${base}/meetingStats?${query}&token=${TOKEN}`);
      expect(res.status).toBe(200);
      const stats = await res.json<{
        status: string;
        meeting: { course: string; courseId: number };
        trainers: unknown[];
        jockeys: unknown[];
      }>();
      expect(stats).toMatchObject({ status: 'success', meeting: { date, course, courseId } });
      expect(stats.trainers.length).toBeGreaterThan(0);
      expect((await call(`${base}/meetingStats?${query}`)).status).toBe(401);

      const login = await call(`${base}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'test-admin-password' }),
      });
      expect(login.status).toBe(200);
      const { access_token } = await login.json<{ access_token: string }>();
      const bearer = await call(`${base}/meetingStats?${query}`, { headers: { Authorization: `Bearer ${access_token}` } });
      expect(await bearer.json()).toEqual(stats);
    });

    it('the pages and their scripts: every link, form, script and fetch under the prefix', async () => {
      const dashboard = await pageUnder(base, '/');
      expect(dashboard.urls).toEqual(
        expect.arrayContaining([`${base}/`, `${base}/docs`, `${base}/redoc`, `${base}/login?direct=1`, `${base}/assets/dashboard.js`]),
      );
      if (base) expect((await pageUnder(base, '')).urls).toEqual(dashboard.urls);
      expect((await pageUnder(base, '/login?direct=1')).urls).toContain(`${base}/assets/login.js`);
      expect((await pageUnder(base, '/api-test')).urls).toContain(`${base}/assets/api-test.js`);
      expect((await pageUnder(base, '/api-docs')).urls).toContain(`${base}/openapi.json`);

      for (const name of ['dashboard.js', 'login.js', 'api-test.js']) {
        const res = await call(`${base}/assets/${name}`);
        expect(res.status, name).toBe(200);
        expectScriptUnderBase(await res.text(), name);
      }
      // uPlot is imported relative to the dashboard module, so from beside it under the prefix.
      const module = await (await call(`${base}/assets/dashboard.js`)).text();
      const uplot = /from '(\.\/uplot-[^']+)'/.exec(module)?.[1];
      expect(uplot).toBeDefined();
      const uplotUrl = new URL(uplot!, `http://stats${base}/assets/dashboard.js`);
      expect(uplotUrl.pathname.startsWith(`${base}/assets/`)).toBe(true);
      expect((await call(uplotUrl.pathname)).status).toBe(200);

      // Visitors from the portal still go to the portal (another host, left as it is).
      const portal = await call(`${base}/login`, { headers: { Referer: 'https://sso.racing.example/portal/apps' }, redirect: 'manual' });
      expect(portal.status).toBe(302);
      expect(portal.headers.get('location')).toBe('https://sso.racing.example/portal');
    });

    it('Swagger UI and ReDoc load the document, and "try it" calls the API, under the prefix', async () => {
      const swagger = await pageUnder(base, '/docs');
      expect(swagger.urls).toContain(`${base}/openapi.json`);
      expect(swagger.html).toContain(`url: "${base}/openapi.json"`);
      const redoc = await pageUnder(base, '/redoc');
      expect(redoc.html).toContain(`spec-url="${base}/openapi.json"`);
      for (const url of [...swagger.urls, ...redoc.urls]) expect((await call(url)).status, url).toBe(200);

      const doc = await (await call(`${base}/openapi.json`)).json<{
        servers?: { url: string }[];
        info: { description: string };
        paths: Record<string, unknown>;
      }>();
      if (base) expect(doc.servers).toEqual([{ url: base }]);
      else expect(doc).not.toHaveProperty('servers');
      expect(doc.info.description).toContain(`Calculation rules: ${base}/api-docs#rules.`);
      expect(doc.paths).toHaveProperty(['/meetingStats']);
      // The prefix header from outside is not trusted: it cannot move "try it" elsewhere.
      const spoofed = await (await call(`${base}/openapi.json`, { headers: { 'x-forwarded-prefix': '/elsewhere' } })).json<{
        servers?: unknown;
      }>();
      expect(spoofed.servers).toEqual(doc.servers);
      // Where Swagger UI sends "try it": the server (the document's own origin without one) plus the path.
      const tryIt = new URL(`${doc.servers?.[0]?.url ?? ''}/health`, `http://stats${base}/openapi.json`);
      expect(tryIt.pathname).toBe(`${base}/health`);
      expect(await (await call(tryIt.pathname)).json()).toEqual({ status: 'ok' });
    });
  });
}
