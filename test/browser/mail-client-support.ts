import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { type TestAuthService, startTestAuthService } from '../support/auth-service';
import { type RunningWorker, launchChromium, startServiceWorker } from '../support/browser';
import { freshCodes } from '../support/totp';

/**
 * The mail Worker in workerd (offline model, the account an assistant admin), the real
 * authentication Worker and the Graph stand-in, for the mail client's browser tests.
 */
export interface MailClientRig {
  mail: RunningWorker;
  browser: Browser;
  /** The stand-in's control URL of the account's mailbox (`/deliver`, …). */
  control: string;
  account: { email: string; password: string; totpSecret: string };
  /** Signs in and connects the mailbox (once per account; later sign-ins find it connected). */
  signIn(page: Page): Promise<void>;
  /** Delivers one message at the stand-in: its id. */
  deliver(message: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startMailClientRig(
  name: string,
  account: { email: string; password: string; totpSecret: string },
): Promise<MailClientRig> {
  const secrets = {
    AUTH_SSO_SHARED_SECRET: `browser-${name}-secret`,
    AUTH_TOKEN_SECRET: `browser-${name}-token-secret-0123456789abcdef`,
    AUTH_TOTP_ENCRYPTION_KEY: 'YnJvd3Nlci1tYWlsLXRvdHAta2V5LTMyLWJ5dGVzLS0=',
  };
  const code = freshCodes((_email: string) => account.totpSecret, {}, { fromCurrentStep: true });
  const registry = mkdtempSync(join(tmpdir(), `${name}-registry-`));
  const state = mkdtempSync(join(tmpdir(), `${name}-state-`));
  applyLocalD1Migrations('workers/mail/wrangler.toml', 'DB', state);
  const standin: GraphStandin = await startGraphStandin({ port: 0 });
  const created = await fetch(`${standin.url}/_standin/mailboxes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mail: account.email, seed: 'racing' }),
  });
  const control = ((await created.json()) as { control: string }).control;
  const auth: TestAuthService = await startTestAuthService({ owner: { ...account, role: 'admin' as const } }, secrets, { registry });
  const mail = await startServiceWorker(
    'mail',
    {
      GRAPH_BASE_URL: standin.graphBaseUrl,
      IDENTITY_BASE_URL: standin.identityBaseUrl,
      MS_CLIENT_ID: `browser-${name}-client`,
      AUTH_CLIENT_SECRET: secrets.AUTH_SSO_SHARED_SECRET,
      SESSION_SECRET: `browser-${name}-session-secret-0123456789abcdef`,
      MAIL_TOKEN_SECRET: `browser-${name}-mail-token-secret-0123456789ab`,
      MAIL_ASSISTANT_ADMINS: account.email,
      MAIL_MODEL: 'offline',
    },
    { registry, persistTo: state, logLevel: 'error' },
  );
  const browser = await launchChromium();
  return {
    mail,
    browser,
    control,
    account,
    async signIn(page) {
      await page.goto(`${mail.url}/login`);
      await page.getByLabel('E-mail').fill(account.email);
      await page.getByLabel('Password').fill(account.password);
      await page.getByRole('button', { name: 'Continue' }).click();
      const field = page.getByLabel('Code');
      await field.waitFor();
      await field.fill(code(account.email));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/(outlook|connect)$/);
      await page.goto(`${mail.url}/connect`);
      if (await page.getByRole('button', { name: 'Connect mailbox' }).count()) {
        await page.getByRole('button', { name: 'Connect mailbox' }).click();
        await page.waitForURL(/connected=1$/);
      }
    },
    async deliver(message) {
      const res = await fetch(`${control}/deliver`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
      });
      if (res.status !== 201) throw new Error(`deliver: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { value: { immutableId: string }[] }).value[0]!.immutableId;
    },
    async close() {
      await browser.close();
      await mail.dispose();
      await auth.dispose();
      await standin.close();
      for (const dir of [registry, state]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A 1×1 PNG. */
export const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
