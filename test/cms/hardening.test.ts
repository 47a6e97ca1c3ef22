import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, signIn, withEnv } from './helpers';
import { encodeImage, upload } from './media-helpers';
import { lookups } from './story-fixtures';

let cookie: string;
beforeAll(async () => {
  cookie = await signIn('platform');
});

describe('search of any accepted length', () => {
  it.each([
    ['49 letters', 'a'.repeat(49)],
    ['200 letters', 'b'.repeat(200)],
    ['25 % and _', '%_'.repeat(13).slice(0, 25)],
    ['two-byte characters', 'é'.repeat(40)],
  ])('story search with %s is 200, not 500', async (_, text) => {
    const res = await api(`/api/v1/story?search=${encodeURIComponent(text)}`, { cookie });
    expect(res.status).toBe(200);
    expect((await res.json<{ items: unknown[] }>()).items).toEqual([]);
  });

  it('link-search with a 60-byte query is 200', async () => {
    const res = await api(`/api/v1/story/link-search?siteIds=1&query=${'c'.repeat(60)}`, { cookie });
    expect(res.status).toBe(200);
  });

  it('media search with 150 characters is 200', async () => {
    const res = await api(`/api/v1/media?type=photo&search=${'d'.repeat(150)}`, { cookie });
    expect(res.status).toBe(200);
  });

  it('a long search still finds a story by a substring of its title, case-insensitively, wildcards literal', async () => {
    const title = `Hardening ${'x'.repeat(60)} 100%_sure title ${crypto.randomUUID()}`;
    const { siteA } = await lookups();
    const created = await api('/api/v1/story', { method: 'POST', cookie, json: { title, siteIds: [siteA] } });
    expect(created.status, await created.clone().text()).toBe(201);
    const needle = title.slice(0, 90).toUpperCase();
    const found = await api(`/api/v1/story?search=${encodeURIComponent(needle)}`, { cookie });
    expect((await found.json<{ items: { title: string }[] }>()).items.map((s) => s.title)).toEqual([title]);
    const wildcard = await api(`/api/v1/story?search=${encodeURIComponent('100%_sure')}`, { cookie });
    expect((await wildcard.json<{ items: { title: string }[] }>()).items.map((s) => s.title)).toContain(title);
    const none = await api(`/api/v1/story?search=${encodeURIComponent('100x_sure')}`, { cookie });
    expect((await none.json<{ items: { title: string }[] }>()).items.map((s) => s.title)).not.toContain(title);
  });
});

describe('NUL in text input', () => {
  it.each(['horses', 'trainers', 'jockeys'])('/api/v1/lookup/%s?query=%%00 is 400 naming the field', async (kind) => {
    const res = await api(`/api/v1/lookup/${kind}?query=%00`, { cookie });
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; issues: { field: string; message: string }[] }>();
    expect(body.error).toBe('invalid_request');
    expect(body.issues).toContainEqual({ field: 'query.query', message: 'must not contain NUL characters' });
  });

  it('a story title with NUL is 400 and nothing is written', async () => {
    const res = await api('/api/v1/story', { method: 'POST', cookie, json: { title: 'a\u0000b', siteIds: [1] } });
    expect(res.status).toBe(400);
    expect((await res.json<{ issues: { field: string }[] }>()).issues.map((i) => i.field)).toContain('json.title');
  });
});

describe('cross-site writes', () => {
  it('Sec-Fetch-Site: cross-site is refused even with the CMS’s own or an editor Origin', async () => {
    for (const origin of ['https://cms.test', 'https://editor.example']) {
      const res = await api('/api/v1/story', {
        method: 'POST',
        cookie,
        json: { title: 'cross-site', siteIds: [1] },
        headers: { origin, 'sec-fetch-site': 'cross-site' },
      });
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'forbidden_origin' });
    }
    const sameSite = await api('/api/v1/auth/me', { cookie, headers: { origin: 'https://editor.example', 'sec-fetch-site': 'same-site' } });
    expect(sameSite.status).toBe(200);
  });
});

describe('429 from the authentication service', () => {
  const login = (retryAfter?: string) =>
    withEnv(
      '/api/v1/auth/login',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'x' }) },
      {
        AUTH: {
          fetch: async () =>
            Response.json(
              { success: false, error: 'Too many attempts. Try again later.' },
              { status: 429, headers: retryAfter ? { 'retry-after': retryAfter } : {} },
            ),
        },
      },
    );

  it('passes on Retry-After', async () => {
    const res = await login('37');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('37');
    expect(await res.json()).toMatchObject({ error: 'too_many_attempts' });
  });

  it('says a minute when the authentication service named no time', async () => {
    const res = await login();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
  });
});

describe('headers', () => {
  it('the docs page has a CSP, frame protection, nosniff and HSTS; JSON answers are nosniff', async () => {
    const page = await api('/');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    const json = await api('/api/v1/auth/me');
    expect(json.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('stored files of an active type', () => {
  it('a file the bucket holds as SVG (or HTML) is served as a sandboxed octet-stream download; a JPEG still shows', async () => {
    const objectKey = await upload(cookie, 'photo', encodeImage(200, 120, 'jpeg'), 'image/jpeg');
    const created = await api('/api/v1/media', { method: 'POST', cookie, json: { type: 'photo', objectKey, title: 'Active types' } });
    expect(created.status, await created.clone().text()).toBe(201);
    const photo = await created.json<{ thumbnailKey: string; mediumKey: string; urls: Record<'thumbnail' | 'medium' | 'large', string> }>();
    const shown = await api(photo.urls.large, { cookie });
    expect([shown.status, shown.headers.get('content-type'), shown.headers.get('content-disposition')]).toEqual([
      200,
      'image/jpeg',
      'inline',
    ]);
    expect(shown.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    await shown.arrayBuffer();
    // Written to the bucket by other means than this service's uploads, which take passive types only.
    await env.MEDIA.put(photo.thumbnailKey, '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', {
      httpMetadata: { contentType: 'image/svg+xml' },
    });
    await env.MEDIA.put(photo.mediumKey, '<script>alert(1)</script>', { httpMetadata: { contentType: 'text/html' } });
    for (const url of [photo.urls.thumbnail, photo.urls.medium]) {
      const res = await api(url, { cookie });
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition'), url).toBe('attachment');
      expect(res.headers.get('content-security-policy'), url).toBe("sandbox; default-src 'none'");
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      await res.arrayBuffer();
    }
  });

  it('upload addresses are never given for an active type, and a media type list naming one is a configuration error', async () => {
    const svg = await api('/api/v1/media/upload-url?type=photo&contentType=image%2Fsvg%2Bxml&size=100', { cookie });
    expect(svg.status).toBe(400);
    const misconfigured = await withEnv(
      '/api/v1/media/upload-url?type=photo&contentType=image%2Fpng&size=100',
      { headers: { cookie } },
      { MEDIA_PHOTO_CONTENT_TYPES: 'image/png,image/svg+xml' },
    );
    expect(misconfigured.status).toBe(500);
    const body = await misconfigured.json<{ error: string; message: string }>();
    expect(body.error).toBe('configuration_error');
    expect(body.message).toMatch(/MEDIA_PHOTO_CONTENT_TYPES: must list passive types only .*not image\/svg\+xml/);
  });
});
