import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seedAuthDevAccount } from '../../scripts/auth-admin';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { ROOT } from '../../scripts/workers';
import { DEV_ACCOUNT } from '../../workers/auth/src/account-sql';
import { fromBase32 } from '#shared/crypto.ts';
import { stepAt, totpAt } from '../../workers/auth/src/totp';
import { haveChromium, launchChromium, startServiceWorker } from '../support/browser';

// The dashboard as `npm run dev` serves it: migrated and seeded local D1, the development secrets.
const persistTo = mkdtempSync(join(tmpdir(), 'auth-browser-'));
let browser: Browser;
let url: string;
let dispose: () => Promise<void>;

beforeAll(async () => {
  if (!haveChromium) return;
  applyLocalD1Migrations(join(ROOT, 'workers/auth/wrangler.toml'), 'DB', persistTo);
  await seedAuthDevAccount(persistTo);
  const secrets = {
    // What makes the Worker local, as npm run dev gives it to every Worker: the development secrets are refused without it.
    PG_WS_PROXY: inject('pgRelay'),
    AUTH_SSO_SHARED_SECRET: 'dev-client-secret',
    AUTH_TOKEN_SECRET: 'dev-token-secret-change-me-in-production-0123456789',
    AUTH_TOTP_ENCRYPTION_KEY: 'ZGV2LXRvdHAta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0=',
  };
  const worker = await startServiceWorker('auth', secrets, { persistTo, logLevel: 'error' });
  // localhost is a secure context for Chromium, so the __Host- (Secure) cookie is kept.
  url = worker.url.replace('127.0.0.1', 'localhost');
  dispose = () => worker.dispose();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dispose?.();
  rmSync(persistTo, { recursive: true, force: true });
});

describe.skipIf(!haveChromium)('auth dashboard in Chromium', () => {
  it('signs the development admin in with password and code, then registers a site', async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/admin/`);
    expect(new URL(page.url()).pathname).toBe('/admin/login/');

    await page.fill('input[name=email]', DEV_ACCOUNT.email);
    await page.fill('input[name=password]', 'not the password');
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toBe('Invalid e-mail or password.');

    await page.fill('input[name=email]', DEV_ACCOUNT.email);
    await page.fill('input[name=password]', DEV_ACCOUNT.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=code]');
    const code = await totpAt(fromBase32(DEV_ACCOUNT.totpSecret)!, stepAt(Date.now()));
    await page.fill('input[name=code]', code);
    await page.click('button[type=submit]');
    await page.waitForURL(`${url}/admin/`);
    expect(await page.textContent('h1')).toBe('Sites');

    await page.fill('input[name=site_name]', 'Racing CMS');
    await page.fill('input[name=site_url]', 'https://cms.racing.example');
    await page.fill('input[name=roles]', 'Editor, Senior Editor');
    await page.click('form[action="/admin/sites/"] button');
    await page.waitForSelector('tr[data-site="Racing CMS"]');
    expect(await page.inputValue('tr[data-site="Racing CMS"] input[name=site_url]')).toBe('https://cms.racing.example');
    expect(await page.inputValue('tr[data-site="Racing CMS"] input[name=roles]')).toBe('Editor, Senior Editor');

    await page.goto(`${url}/admin/accounts/`);
    await page.fill('form[action="/admin/accounts/"] input[name=email]', 'editor@example.com');
    await page.fill('form[action="/admin/accounts/"] input[name=password]', 'an editor password');
    await page.click('form[action="/admin/accounts/"] button');
    await page.waitForSelector('#qr svg');
    expect(await page.textContent('#otpauth-uri')).toMatch(/^otpauth:\/\/totp\/.*editor%40example\.com\?secret=/);
    expect(await page.locator('#backup-codes li').count()).toBe(10);
    await page.close();
  });
});
