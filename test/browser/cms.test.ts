import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { type TestAuthService, startTestAuthService } from '../support/auth-service';
import { type RunningWorker, haveChromium, launchChromium, startServiceWorker } from '../support/browser';
// inject(): what test/global-setup.ts provides to every project (its ProvidedContext declaration).
import type {} from '../global-setup';

const AUTH_VARS = {
  AUTH_SSO_SHARED_SECRET: 'browser-cms-client-secret',
  AUTH_TOKEN_SECRET: 'browser-cms-token-secret-0123456789abcdef0123',
  AUTH_TOTP_ENCRYPTION_KEY: 'YnJvd3Nlci1jbXMtdG90cC1rZXktMzItYnl0ZXMtLS0=',
};
const EDITOR = {
  email: 'browser-editor@example.com',
  password: 'browser-editor-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};

/** The CMS in real workerd, signing in through the real authentication Worker over a service binding. */
describe.skipIf(!haveChromium)('CMS in Chromium', () => {
  let registry: string;
  let state: string;
  let auth: TestAuthService;
  let cms: RunningWorker;
  let browser: Browser;

  beforeAll(async () => {
    registry = mkdtempSync(join(tmpdir(), 'cms-registry-'));
    state = mkdtempSync(join(tmpdir(), 'cms-state-'));
    applyLocalD1Migrations('workers/cms/wrangler.toml', 'DB', state);
    auth = await startTestAuthService({ editor: EDITOR }, AUTH_VARS, { registry });
    cms = await startServiceWorker(
      'cms',
      {
        DATABASE_URL: inject('racingDatabaseUrl'),
        PG_WS_PROXY: inject('pgRelay'),
        AUTH_CLIENT_SECRET: AUTH_VARS.AUTH_SSO_SHARED_SECRET,
        SESSION_SECRET: 'browser-cms-session-secret-0123456789abcdef',
      },
      { registry, persistTo: state, logLevel: 'error' },
    );
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cms?.dispose();
    await auth?.dispose();
    for (const dir of [registry, state]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs fetch inside the page, so the browser's own cookie handling is what is tested. */
  const pageFetch = (page: Page, path: string, init: { method?: string; json?: unknown } = {}) =>
    page.evaluate(
      async ({ path, init }) => {
        const res = await fetch(path, {
          method: init.method ?? 'GET',
          headers: init.json === undefined ? {} : { 'content-type': 'application/json' },
          body: init.json === undefined ? undefined : JSON.stringify(init.json),
          credentials: 'same-origin',
        });
        return { status: res.status, body: await res.json() };
      },
      { path, init },
    );

  it('serves the API docs from its own origin, signs an editor in with the session cookie and uploads a photo', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(cms.url)) foreign.push(request.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    await page.goto(`${cms.url}/`);
    await page.getByText('/api/v1/auth/totp-verify').first().waitFor();
    expect(await page.locator('.opblock-tag').count()).toBeGreaterThanOrEqual(3);

    const login = await pageFetch(page, '/api/v1/auth/login', { method: 'POST', json: { email: EDITOR.email, password: EDITOR.password } });
    expect(login).toMatchObject({ status: 200, body: { totpRequired: true } });
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(EDITOR.totpSecret) }).generate();
    // No loginToken in the body: the browser carries the pending login in its cookie.
    const verify = await pageFetch(page, '/api/v1/auth/totp-verify', { method: 'POST', json: { code } });
    expect(verify).toMatchObject({ status: 200, body: { email: EDITOR.email, role: 'ADMIN' } });

    const cookies = await page.context().cookies(`${cms.url}/api/v1/auth/me`);
    const session = cookies.find((cookie) => cookie.name === 'app_session');
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/api' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('app_session');

    expect(await pageFetch(page, '/api/v1/auth/me')).toMatchObject({ status: 200, body: { email: EDITOR.email } });

    // A photo drawn in the page goes through both upload steps, as an editor's browser sends it:
    // step 1 asks for an address, the bytes are PUT straight to it, step 2 stores the record.
    const uploaded = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 800;
      canvas.height = 500;
      const draw = canvas.getContext('2d')!;
      draw.fillStyle = '#1a6';
      draw.fillRect(0, 0, 800, 500);
      draw.fillStyle = '#fc0';
      draw.fillRect(100, 100, 300, 200);
      const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/jpeg', 0.9));
      const step1 = await fetch(`/api/v1/media/upload-url?type=photo&contentType=image/jpeg&size=${blob.size}&fileName=finish.jpg`);
      const grant = (await step1.json()) as { uploadUrl: string; objectKey: string; headers: Record<string, string> };
      const put = await fetch(grant.uploadUrl, { method: 'PUT', headers: grant.headers, body: blob });
      const step2 = await fetch('/api/v1/media', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'photo', objectKey: grant.objectKey, title: 'Finish line', credit: 'Staff' }),
      });
      const item = (await step2.json()) as { id: number; width: number; height: number; urls: Record<string, string> };
      const thumbnail = new Image();
      thumbnail.src = item.urls.thumbnail!;
      await thumbnail.decode();
      return { step1: step1.status, put: put.status, step2: step2.status, item, thumbnailWidth: thumbnail.naturalWidth };
    });
    expect(uploaded).toMatchObject({ step1: 200, put: 200, step2: 201, item: { width: 800, height: 500 }, thumbnailWidth: 150 });
    const listed = await pageFetch(page, '/api/v1/media?type=photo&search=finish');
    expect(listed).toMatchObject({ status: 200, body: { totalCount: 1, items: [{ id: uploaded.item.id, title: 'Finish line' }] } });

    expect(await pageFetch(page, '/api/v1/auth/logout', { method: 'POST' })).toMatchObject({
      status: 200,
      body: { success: true, revoked: true },
    });
    expect((await pageFetch(page, '/api/v1/auth/me')).status).toBe(401);

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('serves the API docs, their "try it" requests and the editor session under the /cms prefix of a shared origin', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(`${cms.url}/cms/`)) outside.push(request.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    // The document, not every subresource's load event: the operations' text below appears only once
    // Swagger UI's script has run, and waiting for it is the check (one fresh-clone run timed out
    // at 30 s in `goto`'s wait for load on a loaded machine, with nothing else wrong).
    await page.goto(`${cms.url}/cms/`, { waitUntil: 'domcontentloaded' });
    await page.getByText('/api/v1/auth/totp-verify').first().waitFor({ timeout: 60_000 });
    // Swagger UI's "try it" sends the request under the prefix (the document's servers entry).
    const health = page.locator('.opblock-get', { hasText: '/health' }).first();
    await health.locator('.opblock-summary').first().click();
    await health.getByRole('button', { name: 'Try it out' }).click();
    const [tried] = await Promise.all([
      page.waitForRequest((request) => request.url().includes('/health')),
      health.getByRole('button', { name: 'Execute' }).click(),
    ]);
    expect(new URL(tried.url()).pathname).toBe('/cms/health');
    const status = health.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect(await status.textContent()).toContain('200');

    const login = await pageFetch(page, '/cms/api/v1/auth/login', {
      method: 'POST',
      json: { email: EDITOR.email, password: EDITOR.password },
    });
    expect(login).toMatchObject({ status: 200, body: { totpRequired: true } });
    // The step after the one the first sign-in may have taken: each step is accepted once.
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(EDITOR.totpSecret) }).generate({ timestamp: Date.now() + 30_000 });
    expect(await pageFetch(page, '/cms/api/v1/auth/totp-verify', { method: 'POST', json: { code } })).toMatchObject({
      status: 200,
      body: { email: EDITOR.email },
    });
    const cookies = await page.context().cookies(`${cms.url}/cms/api/v1/auth/me`);
    expect(cookies.find((cookie) => cookie.name === 'app_session')).toMatchObject({ httpOnly: true, path: '/cms/api' });
    expect(await pageFetch(page, '/cms/api/v1/auth/me')).toMatchObject({ status: 200, body: { email: EDITOR.email } });
    // At the root the session cookie is not sent: the services sharing one origin keep their cookies apart.
    expect((await pageFetch(page, '/api/v1/auth/me')).status).toBe(401);
    expect(await pageFetch(page, '/cms/api/v1/auth/logout', { method: 'POST' })).toMatchObject({ status: 200, body: { success: true } });
    expect((await pageFetch(page, '/cms/api/v1/auth/me')).status).toBe(401);

    expect(outside.filter((url) => new URL(url).pathname !== '/api/v1/auth/me')).toEqual([]);
    expect(errors).toEqual([]);
  });
});
