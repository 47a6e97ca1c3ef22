import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seedAuthDevAccount } from '../../scripts/auth-admin';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { ROOT } from '../../scripts/workers';
import { DEV_ACCOUNT } from '../../workers/auth/src/account-sql';
import { fromBase32 } from '#shared/crypto.ts';
import { stepAt, totpAt } from '../../workers/auth/src/totp';
import { type RunningWorker, haveChromium, launchChromium, startServiceWorker } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { expectHeaderMenuWorks, noProblems, problemsByPage } from './phone-pages';
// inject(): what test/global-setup.ts provides to every project (its ProvidedContext declaration).
import type {} from '../global-setup';

// Every page of the authentication dashboard, meeting statistics and runner form at a phone's width
// (390 px): nothing wider than the screen, no critical or serious axe-core finding. The mail
// assistant and the migration app have files of their own (pages-on-a-phone-*.test.ts).

let browser: Browser;
beforeAll(async () => {
  if (haveChromium) browser = await launchChromium();
});
afterAll(() => browser?.close());

describe.skipIf(!haveChromium)('authentication dashboard on a phone', () => {
  const persistTo = mkdtempSync(join(tmpdir(), 'auth-phone-'));
  let url: string;
  let worker: RunningWorker;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    applyLocalD1Migrations(join(ROOT, 'workers/auth/wrangler.toml'), 'DB', persistTo);
    await seedAuthDevAccount(persistTo);
    worker = await startServiceWorker(
      'auth',
      {
        PG_WS_PROXY: inject('pgRelay'),
        AUTH_SSO_SHARED_SECRET: 'dev-client-secret',
        AUTH_TOKEN_SECRET: 'dev-token-secret-change-me-in-production-0123456789',
        AUTH_TOTP_ENCRYPTION_KEY: 'ZGV2LXRvdHAta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0=',
      },
      { persistTo, logLevel: 'error' },
    );
    // localhost is a secure context for Chromium, so the __Host- (Secure) cookie is kept.
    url = worker.url.replace('127.0.0.1', 'localhost');
    context = await phoneContext(browser, { bypassCSP: true });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await worker?.dispose();
    rmSync(persistTo, { recursive: true, force: true });
  });

  it('the login pages, then every signed-in page, fit and pass axe', async () => {
    expect(await problemsByPage(page, url, ['/admin/login/'])).toEqual(noProblems(['/admin/login/']));
    await page.fill('input[name=email]', DEV_ACCOUNT.email);
    await page.fill('input[name=password]', DEV_ACCOUNT.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=code]');
    expect(await pageProblems(page)).toEqual([]);
    await page.fill('input[name=code]', await totpAt(fromBase32(DEV_ACCOUNT.totpSecret)!, stepAt(Date.now())));
    await page.click('button[type=submit]');
    await page.waitForURL(`${url}/admin/`);
    // An account with its enrolment shown (QR code, backup codes): the widest page there is.
    await page.goto(`${url}/admin/accounts/`);
    await page.fill('form[action="/admin/accounts/"] input[name=email]', 'phone-editor@example.com');
    await page.fill('form[action="/admin/accounts/"] input[name=password]', 'a phone editor password');
    await page.click('form[action="/admin/accounts/"] button');
    await page.waitForSelector('#qr svg');
    expect(await pageProblems(page)).toEqual([]);
    const paths = ['/admin/', '/admin/accounts/'];
    expect(await problemsByPage(page, url, paths)).toEqual(noProblems(paths));
  });

  it('the header menu opens from the keyboard and reaches its links', async () => {
    await expectHeaderMenuWorks(page, `${url}/admin/`);
  });
});

describe.skipIf(!haveChromium)('meeting statistics on a phone', () => {
  let worker: RunningWorker;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    worker = await startServiceWorker('stats', {
      DATABASE_URL: inject('racingDatabaseUrl'),
      PG_WS_PROXY: inject('pgRelay'),
      STATIC_API_TOKEN: 'phone-static-token-0123456789',
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: 'phone-admin-password',
    });
    context = await phoneContext(browser, { bypassCSP: true });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await worker?.dispose();
  });

  it('the dashboard, the tester, the reference and the login page fit and pass axe', async () => {
    // The documentation viewers (/docs, /redoc) are Swagger UI's and ReDoc's own pages.
    const paths = ['/login?direct=1', '/', '/api-test', '/api-docs'];
    expect(await problemsByPage(page, worker.url, paths)).toEqual(noProblems(paths));
  });

  it('the header menu opens from the keyboard and reaches its links', async () => {
    await expectHeaderMenuWorks(page, `${worker.url}/api-docs`);
  });
});

describe.skipIf(!haveChromium)('runner form on a phone', () => {
  const USERNAME = 'phone-admin';
  const PASSWORD = 'phone-password-123';
  let worker: RunningWorker;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    worker = await startServiceWorker('form', {
      DATABASE_URL: inject('racingDatabaseUrl'),
      PG_WS_PROXY: inject('pgRelay'),
      ADMIN_USERNAME: USERNAME,
      ADMIN_PASSWORD: PASSWORD,
      SESSION_SECRET: 'phone-test-session-secret-0123456789',
    });
    context = await phoneContext(browser, { bypassCSP: true });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await worker?.dispose();
  });

  it('the login page, the runner form, the guide, search and the error page fit and pass axe', async () => {
    expect(await problemsByPage(page, worker.url, ['/form/'])).toEqual(noProblems(['/form/']));
    await page.getByLabel('Username').fill(USERNAME);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/form\/runner\/\d+\/\?tab=brief/);
    const runner = new URL(page.url()).pathname;
    const paths = [`${runner}?tab=brief`, `${runner}?tab=detailed`, '/form/guide/', '/form/search/?q=the', '/form/runner/999999999/'];
    expect(await problemsByPage(page, worker.url, paths)).toEqual(noProblems(paths));
  });

  it('the header menu opens from the keyboard and reaches its links', async () => {
    await expectHeaderMenuWorks(page, `${worker.url}/form/guide/`);
  });
});
