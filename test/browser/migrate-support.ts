import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { configurationSql, migrateSiteSql, siteRoleSql } from '../../scripts/migrate-seed';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { executeD1 } from '../../scripts/workers';
import { type EnrolledAccount, type TestAuthService, startTestAuthService } from '../support/auth-service';
import { type RunningWorker, launchChromium, startServiceWorker } from '../support/browser';
// inject(): what test/global-setup.ts provides to every project (its ProvidedContext declaration).
import type {} from '../global-setup';

export const AUTH_VARS = {
  AUTH_SSO_SHARED_SECRET: 'browser-migrate-client-secret',
  AUTH_TOKEN_SECRET: 'browser-migrate-token-secret-0123456789abcdef',
  AUTH_TOTP_ENCRYPTION_KEY: 'YnJvd3Nlci1taWdyYXRlLXRvdHAta2V5LTMyLWJ5dGU=',
};
export const CONFIG_KEY = 'browser-migrate-config-key-0123456789abcdef';
export const OPERATOR = {
  email: 'browser-operator@example.com',
  password: 'browser-operator-password',
  totpSecret: 'KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF',
  role: 'user' as const,
};
/** A second Operator, so a sign-in under the path prefix never reuses the first one's TOTP step. */
export const PREFIX_OPERATOR = {
  email: 'browser-prefix-operator@example.com',
  password: 'browser-prefix-operator-password',
  totpSecret: 'OBZGKZTJPBXXAZLSMF2G64RAMJZG653T',
  role: 'user' as const,
};

/** An Admin (the global admin role), for the pages only an Admin may open. */
export const ADMIN = {
  email: 'browser-admin@example.com',
  password: 'browser-admin-password',
  totpSecret: 'UJPHKPBW4OK7MUMLTYYQNZB64EUCQUZD',
  role: 'admin' as const,
};

/**
 * The migration app in real workerd, signing in through the real authentication Worker over a
 * service binding, with two Operators and an Admin, the legacy source as its active configuration, and Chromium.
 * Each folder and process is kept as soon as it exists, so dispose() ends whatever start() got to.
 */
export class MigrateBrowserApp {
  registry = '';
  /** The migration app's local storage (D1, Durable Objects, R2); test files may keep files of their own there. */
  state = '';
  auth: TestAuthService | undefined;
  app: RunningWorker | undefined;
  browser: Browser | undefined;

  /** The running app's origin (after start()). */
  get url(): string {
    if (!this.app) throw new Error('the migration app has not started');
    return this.app.url;
  }

  async start(): Promise<void> {
    this.registry = mkdtempSync(join(tmpdir(), 'migrate-registry-'));
    this.state = mkdtempSync(join(tmpdir(), 'migrate-state-'));
    applyLocalD1Migrations('workers/migrate/wrangler.toml', 'DB', this.state);
    const legacy = new URL(inject('legacyDatabaseUrl'));
    const source = {
      host: legacy.hostname,
      port: Number(legacy.port || 5432),
      database: legacy.pathname.slice(1) || 'postgres',
      username: decodeURIComponent(legacy.username),
      password: decodeURIComponent(legacy.password) || 'postgres',
    };
    // Id mappings in the shared racing database are kept per configuration id: an id of its own keeps
    // this run apart from the migrate project's runs (configuration 1 there), which clear history.
    executeD1(
      'workers/migrate/wrangler.toml',
      'DB',
      [...(await configurationSql(source, CONFIG_KEY, 'Legacy')), 'UPDATE configurations SET id = 90001'],
      { persistTo: this.state },
    );
    this.auth = await startTestAuthService({ operator: OPERATOR, prefixOperator: PREFIX_OPERATOR, admin: ADMIN }, AUTH_VARS, {
      registry: this.registry,
      sql: [...migrateSiteSql(), ...siteRoleSql(OPERATOR.email, 'Operator'), ...siteRoleSql(PREFIX_OPERATOR.email, 'Operator')],
    });
    this.app = await startServiceWorker(
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
      { registry: this.registry, persistTo: this.state, logLevel: 'error' },
    );
    this.browser = await launchChromium();
  }

  async dispose(): Promise<void> {
    await this.browser?.close();
    await this.app?.dispose();
    await this.auth?.dispose();
    for (const dir of [this.registry, this.state]) if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Signs `account` in from the app's home page: the login form, then its authenticator code; ends on
 * the home page. `url` may end in the app's path prefix (`…/migrate`): every step stays under it.
 */
export async function signIn(
  page: Page,
  url: string,
  account: Pick<EnrolledAccount, 'email' | 'password' | 'totpSecret'> = OPERATOR,
): Promise<void> {
  const prefix = new URL(url).pathname.replace(/\/$/, '');
  await page.goto(`${url}/`);
  expect(new URL(page.url()).pathname).toBe(`${prefix}/Account/Login`);
  await page.fill('#email', account.email);
  await page.fill('#password', account.password);
  await page.click('button[type="submit"]');
  await page.waitForURL(/\/Account\/Verify/);
  await page.fill('#code', new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(account.totpSecret) }).generate());
  await page.click(`form[action="${prefix}/Account/Verify"] button[type="submit"]`);
  await page.waitForURL(`${url}/`);
}

/** Collects what a page should never see: requests leaving the app, script errors, console errors and 4xx/5xx answers. */
export function watchPage(page: Page, url: string): { foreign: string[]; errors: string[] } {
  const foreign: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(url)) foreign.push(request.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  return { foreign, errors };
}
