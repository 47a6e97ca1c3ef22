import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { configurationSql, migrateSiteSql, siteRoleSql } from '../../scripts/migrate-seed';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { executeD1 } from '../../scripts/workers';
import { type TestAuthService, startTestAuthService } from '../support/auth-service';
import { type RunningWorker, haveChromium, launchChromium, startServiceWorker } from '../support/browser';

declare module 'vitest' {
  export interface ProvidedContext {
    racingDatabaseUrl: string;
    pgRelay: string;
    legacyDatabaseUrl: string;
    legacyDatabaseHost: string;
    racingDatabaseEmbedded: boolean;
  }
}

const AUTH_VARS = {
  AUTH_SSO_SHARED_SECRET: 'browser-migrate-client-secret',
  AUTH_TOKEN_SECRET: 'browser-migrate-token-secret-0123456789abcdef',
  AUTH_TOTP_ENCRYPTION_KEY: 'YnJvd3Nlci1taWdyYXRlLXRvdHAta2V5LTMyLWJ5dGU=',
};
const CONFIG_KEY = 'browser-migrate-config-key-0123456789abcdef';
const OPERATOR = { email: 'browser-operator@example.com', password: 'browser-operator-password', totpSecret: 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF', role: 'user' as const };
/** Tables whose legacy rows all exist in the racing database already (matched by natural key): the run adds no rows other tests could see. */
const TABLES = ['venue', 'trainer', 'jockey'];

/** The migration app in real workerd, signing in through the real authentication Worker over a service binding. */
describe.skipIf(!haveChromium)('migration app in Chromium', () => {
  let registry: string;
  let state: string;
  let auth: TestAuthService;
  let app: RunningWorker;
  let browser: Browser;
  let mappingFile: string;

  beforeAll(async () => {
    registry = mkdtempSync(join(tmpdir(), 'migrate-registry-'));
    state = mkdtempSync(join(tmpdir(), 'migrate-state-'));
    mappingFile = join(state, 'legacy-mapping.json');
    writeFileSync(mappingFile, JSON.stringify(LEGACY_MAPPING));
    applyLocalD1Migrations('workers/migrate/wrangler.toml', 'DB', state);
    const legacy = new URL(inject('legacyDatabaseUrl'));
    const source = { host: legacy.hostname, port: Number(legacy.port || 5432), database: legacy.pathname.slice(1) || 'postgres', username: decodeURIComponent(legacy.username), password: decodeURIComponent(legacy.password) || 'postgres' };
    // Id mappings in the shared racing database are kept per configuration id: an id of its own keeps
    // this run apart from the migrate project's runs (configuration 1 there), which clear history.
    executeD1('workers/migrate/wrangler.toml', 'DB', [...(await configurationSql(source, CONFIG_KEY, 'Legacy')), 'UPDATE configurations SET id = 90001'], { persistTo: state });
    auth = await startTestAuthService({ operator: OPERATOR }, AUTH_VARS, { registry, sql: [...migrateSiteSql(), ...siteRoleSql(OPERATOR.email, 'Operator')] });
    app = await startServiceWorker(
      'migrate',
      {
        DATABASE_URL: inject('racingDatabaseUrl'),
        PG_WS_PROXY: inject('pgRelay'),
        MIGRATE_ALLOWED_HOSTS: inject('legacyDatabaseHost'),
        MIGRATE_DIRECT_COPY: inject('racingDatabaseEmbedded') ? 'off' : 'on',
        AUTH_CLIENT_SECRET: AUTH_VARS.AUTH_SSO_SHARED_SECRET,
        SESSION_SECRET: 'browser-migrate-session-secret-0123456789abcdef',
        CONFIG_ENCRYPTION_KEY: CONFIG_KEY,
      },
      { registry, persistTo: state, logLevel: 'error' },
    );
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    await auth?.dispose();
    for (const dir of [registry, state]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('signs an Operator in and drives the wizard until Results shows every table validated', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(app.url)) foreign.push(request.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
    });

    await page.goto(`${app.url}/`);
    expect(new URL(page.url()).pathname).toBe('/Account/Login');
    await page.fill('#email', OPERATOR.email);
    await page.fill('#password', OPERATOR.password);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/Account\/Verify/);
    await page.fill('#code', new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(OPERATOR.totpSecret) }).generate());
    await page.click('form[action="/Account/Verify"] button[type="submit"]');
    await page.waitForURL(`${app.url}/`);
    await expect.poll(() => page.locator('[data-active-configuration="true"]').count()).toBe(1);
    const cookie = (await page.context().cookies(app.url)).find((c) => c.name === 'AuthToken');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('AuthToken');

    await page.click('a[href="/Migration/TableSelection"] >> nth=0');
    await page.waitForURL(/\/Migration\/TableSelection/);
    for (const table of TABLES) await page.check(`input[name="selectedTables"][value="${table}"]`);
    await page.click('form[action="/Migration/TableSelection"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/SchemaImport/);
    await page.setInputFiles('#schemaFile', mappingFile);
    await page.click('form[action="/Migration/SchemaImport"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/ReviewMappings/);
    expect(await page.locator('fieldset[data-table]').count()).toBe(TABLES.length);
    await page.click('form[action="/Migration/ReviewMappings"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/RelationshipConfig/);
    await page.click('form[action="/Migration/RelationshipConfig"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/RunConfig/);
    expect(await page.locator('[data-run-order] li').count()).toBe(TABLES.length);
    await page.click('form[action="/Migration/RunConfig"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/Progress/);
    // The page polls its JSON route and updates without a reload.
    await page.locator('[data-progress][data-state="completed"]').waitFor({ timeout: 90_000 });
    expect(await page.locator('[data-tables] tr').count()).toBe(TABLES.length);
    await page.click('[data-results-link]');

    await page.waitForURL(/\/Migration\/Results/);
    await page.locator('[data-validated="all"]').waitFor();
    expect(await page.locator('[data-validation] tr[data-ok="true"]').count()).toBe(TABLES.length);
    expect(await page.locator('[data-validation] tr[data-ok="false"]').count()).toBe(0);

    await page.click('form[action="/Account/Logout"] button[type="submit"]');
    await page.waitForURL(/\/Account\/Login/);

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);
});
