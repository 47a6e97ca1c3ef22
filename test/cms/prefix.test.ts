import { describe, expect, it } from 'vitest';
import { rootRelativeUrls } from '../support/page-urls';
import { api, BASE, cookieFrom, freshCode, account } from './helpers';
import { encodeImage, putTo, type UploadAddress } from './media-helpers';
import { lookups, type StoryJson } from './story-fixtures';

/**
 * The service's main flow at the root of its own host and under its path prefix on a shared
 * origin, through the Worker's default export: the same answers, every URL a client follows under
 * the prefix it came in by.
 */

/** A same-origin browser request: writes carry the page's Origin, which the CMS checks. */
const browser = (cookie: string, json?: unknown): RequestInit & { cookie: string; json?: unknown } => ({
  cookie,
  json,
  headers: { origin: BASE },
});

type Photo = { id: number; title: string; urls: Record<'original' | 'thumbnail' | 'medium' | 'large', string> };

for (const base of ['', '/cms'] as const) {
  describe(`served at ${base || 'the root'}`, () => {
    it('signs in with both steps; the session cookie is the prefix’s own', async () => {
      const { email, password } = account('prefix');
      const login = await api(`${base}/api/v1/auth/login`, { method: 'POST', json: { email, password }, headers: { origin: BASE } });
      expect(login.status).toBe(200);
      const pendingLine = login.headers.getAll('set-cookie').find((line: string) => line.startsWith('app_login='));
      expect(pendingLine).toContain(`; Path=${base}/api/v1/auth;`);

      // The second step with the pending-login cookie alone, as a browser sends it.
      let session: string | undefined;
      let sessionLine: string | undefined;
      for (let attempt = 0; attempt < 5 && !session; attempt++) {
        const verify = await api(`${base}/api/v1/auth/totp-verify`, {
          method: 'POST',
          ...browser(cookieFrom(login, 'app_login')!, { code: freshCode('prefix') }),
        });
        if (verify.status === 200) {
          expect(await verify.json()).toMatchObject({ email });
          session = cookieFrom(verify, 'app_session');
          sessionLine = verify.headers.getAll('set-cookie').find((line: string) => line.startsWith('app_session='));
        } else expect(verify.status).toBe(400);
      }
      expect(session).toBeDefined();
      expect(sessionLine).toMatch(new RegExp(`; Path=${base}/api;`));
      if (base) expect(sessionLine).toContain('; Path=/cms/api;');

      const me = await api(`${base}/api/v1/auth/me`, { cookie: session });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ email, role: 'ADMIN' });

      // A story: created and read under the prefix.
      const l = await lookups();
      const created = await api(`${base}/api/v1/story`, {
        method: 'POST',
        ...browser(session!, { title: `Prefix story ${l.tag}`, siteIds: [l.siteA] }),
      });
      expect(created.status).toBe(201);
      const story = await created.json<StoryJson>();
      const read = await api(`${base}/api/v1/story/${story.id}`, { cookie: session });
      expect(read.status).toBe(200);
      expect(await read.json()).toEqual(story);
      // Another origin may not write, under the prefix as at the root.
      const foreign = await api(`${base}/api/v1/story`, {
        method: 'POST',
        cookie: session,
        json: { title: 'x', siteIds: [l.siteA] },
        headers: { origin: 'https://evil.example' },
      });
      expect(foreign.status).toBe(403);

      // The upload address is this Worker's own, under the prefix; the files' URLs too.
      const jpeg = encodeImage(320, 200, 'jpeg');
      const grant = await api(`${base}/api/v1/media/upload-url?type=photo&contentType=image/jpeg&size=${jpeg.length}`, { cookie: session });
      expect(grant.status).toBe(200);
      const address = await grant.json<UploadAddress>();
      const uploadUrl = new URL(address.uploadUrl);
      expect(uploadUrl.origin).toBe(BASE);
      expect(uploadUrl.pathname).toBe(`${base}/api/v1/media/uploads/${address.objectKey}`);
      expect((await putTo(address.uploadUrl, jpeg, 'image/jpeg')).status).toBe(200);

      const stored = await api(`${base}/api/v1/media`, {
        method: 'POST',
        ...browser(session!, { type: 'photo', objectKey: address.objectKey, title: `Prefix photo ${l.tag}` }),
      });
      expect(stored.status).toBe(201);
      const photo = await stored.json<Photo>();
      for (const url of Object.values(photo.urls)) expect(url.startsWith(`${base}/api/v1/media/${photo.id}/file/`), url).toBe(true);
      const listed = await api(`${base}/api/v1/media?type=photo&search=${encodeURIComponent(`Prefix photo ${l.tag}`)}`, {
        cookie: session,
      });
      expect(await listed.json()).toMatchObject({ totalCount: 1, items: [{ id: photo.id, urls: photo.urls }] });
      expect(await (await api(`${base}/api/v1/media/${photo.id}?type=photo`, { cookie: session })).json()).toMatchObject({
        urls: photo.urls,
      });
      const thumbnail = await api(photo.urls.thumbnail, { cookie: session });
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-type')).toBe('image/jpeg');
      await thumbnail.body?.cancel();

      expect((await api(`${base}/api/v1/media/${photo.id}?type=photo`, { method: 'DELETE', ...browser(session!) })).status).toBe(204);
      expect((await api(`${base}/api/v1/story/${story.id}`, { method: 'DELETE', ...browser(session!) })).status).toBe(204);

      const out = await api(`${base}/api/v1/auth/logout`, { method: 'POST', ...browser(session!) });
      expect(out.status).toBe(200);
      expect(out.headers.getAll('set-cookie').find((line: string) => line.startsWith('app_session='))).toContain(`; Path=${base}/api;`);
    });

    it('the API docs load the document, and "try it" calls the API, under the prefix', async () => {
      for (const path of base ? [`${base}/`, base] : ['/']) {
        const res = await api(path);
        expect(res.status, path).toBe(200);
        const html = await res.text();
        const urls = rootRelativeUrls(html);
        expect(urls.sort()).toEqual([`${base}/docs.js`, `${base}/swagger-ui-bundle.js`, `${base}/swagger-ui.css`]);
        if (base) expect(html).toContain(`<meta name="base-path" content="${base}">`);
        else expect(html).not.toContain('name="base-path"');
        for (const url of urls) expect((await api(url)).status, url).toBe(200);
      }

      // The initializer has no root-relative URL of its own: the document's address is under the page's base path.
      const init = await (await api(`${base}/docs.js`)).text();
      expect(init).toContain(`document.querySelector('meta[name="base-path"]')?.content ?? ''`);
      expect(init).toContain(`url: base + '/openapi.json'`);
      expect([...init.matchAll(/["'`](\/[^"'`\s]*)["'`]/g)].map((m) => init.slice(Math.max(0, m.index - 7), m.index))).toEqual(['base + ']);

      const doc = await (await api(`${base}/openapi.json`)).json<{ servers?: { url: string }[]; paths: Record<string, unknown> }>();
      if (base) expect(doc.servers).toEqual([{ url: base }]);
      else expect(doc).not.toHaveProperty('servers');
      expect(doc.paths).toHaveProperty(['/api/v1/auth/login']);
      // The prefix header from outside is not trusted: it cannot move "try it" elsewhere.
      const spoofed = await (await api(`${base}/openapi.json`, { headers: { 'x-forwarded-prefix': '/elsewhere' } })).json<{
        servers?: unknown;
      }>();
      expect(spoofed.servers).toEqual(doc.servers);
      // Where Swagger UI sends "try it": the server (the document's own origin without one) plus the path.
      const tryIt = new URL(`${doc.servers?.[0]?.url ?? ''}/health`, `${BASE}${base}/openapi.json`);
      expect(tryIt.pathname).toBe(`${base}/health`);
      expect((await api(tryIt.pathname)).status).toBe(200);
    });
  });
}
