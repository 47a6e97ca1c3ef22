import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { type TestAuthService, startTestAuthService } from '../support/auth-service';
import { type RunningWorker, launchChromium, startServiceWorker } from '../support/browser';
import { freshCodes } from '../support/totp';

/** An account of the rig: the mail assistant's admins by default. */
export type RigAccount = { email: string; password: string; totpSecret: string; role?: 'admin' | 'developer' | 'user' };

/** How a sign-in goes: whose, and with taps (a phone's touch screen) rather than clicks. */
export type SignInOptions = { account?: RigAccount; tap?: boolean };

/**
 * The mail Worker in workerd (offline model, the accounts assistant admins), the real
 * authentication Worker and the Graph stand-in with a seeded mailbox per account, for the mail
 * client's browser tests.
 */
export interface MailClientRig {
  mail: RunningWorker;
  browser: Browser;
  /** The Graph and identity stand-in (its `/_standin` control). */
  standin: GraphStandin;
  /** The stand-in's control URL of the first account's mailbox (`/deliver`, …). */
  control: string;
  /** Each account's mailbox control URL, by address. */
  controls: Record<string, string>;
  /** The first account. */
  account: RigAccount;
  /** A TOTP code of the account's not used yet, from the current step on (a page may submit it late). */
  code(account: RigAccount): string;
  /** Fills the sign-in form through the code and submits it (default: the first account). */
  logIn(page: Page, options?: SignInOptions): Promise<void>;
  /** Signs in and connects the mailbox (once per account; later sign-ins find it connected). */
  signIn(page: Page, options?: SignInOptions): Promise<void>;
  /** Delivers one message at the stand-in (default: to the first account's mailbox): its id. */
  deliver(message: Record<string, unknown>, control?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startMailClientRig(
  name: string,
  accounts: RigAccount | [RigAccount, ...RigAccount[]],
  options: {
    /** Further variables of the mail Worker. */
    vars?: Record<string, string>;
    /** Whether the mailboxes are made before the Worker starts (default); without, the stand-in makes them on first use. */
    mailboxes?: boolean;
  } = {},
): Promise<MailClientRig> {
  const all = Array.isArray(accounts) ? accounts : [accounts];
  const account = all[0]!;
  const secrets = {
    AUTH_SSO_SHARED_SECRET: `browser-${name}-secret`,
    AUTH_TOKEN_SECRET: `browser-${name}-token-secret-0123456789abcdef`,
    AUTH_TOTP_ENCRYPTION_KEY: 'YnJvd3Nlci1tYWlsLXRvdHAta2V5LTMyLWJ5dGVzLS0=',
  };
  const fresh = freshCodes((email: string) => all.find((one) => one.email === email)!.totpSecret, {}, { fromCurrentStep: true });
  const registry = mkdtempSync(join(tmpdir(), `${name}-registry-`));
  const state = mkdtempSync(join(tmpdir(), `${name}-state-`));
  applyLocalD1Migrations('workers/mail/wrangler.toml', 'DB', state);
  const standin: GraphStandin = await startGraphStandin({ port: 0 });
  const controls: Record<string, string> = {};
  for (const one of options.mailboxes === false ? [] : all) {
    const created = await fetch(`${standin.url}/_standin/mailboxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mail: one.email, seed: 'racing' }),
    });
    controls[one.email] = ((await created.json()) as { control: string }).control;
  }
  const enrolled = Object.fromEntries(all.map((one, i) => [i === 0 ? 'owner' : `account${i}`, { ...one, role: one.role ?? 'admin' }]));
  const auth: TestAuthService = await startTestAuthService(enrolled, secrets, { registry });
  const mail = await startServiceWorker(
    'mail',
    {
      GRAPH_BASE_URL: standin.graphBaseUrl,
      IDENTITY_BASE_URL: standin.identityBaseUrl,
      MS_CLIENT_ID: `browser-${name}-client`,
      AUTH_CLIENT_SECRET: secrets.AUTH_SSO_SHARED_SECRET,
      SESSION_SECRET: `browser-${name}-session-secret-0123456789abcdef`,
      MAIL_TOKEN_SECRET: `browser-${name}-mail-token-secret-0123456789ab`,
      MAIL_ASSISTANT_ADMINS: all.map((one) => one.email).join(','),
      MAIL_MODEL: 'offline',
      ...options.vars,
    },
    { registry, persistTo: state, logLevel: 'error' },
  );
  const browser = await launchChromium();
  const code = (one: RigAccount) => fresh(one.email);
  const logIn = async (page: Page, { account: one = account, tap = false }: SignInOptions = {}) => {
    const press = (label: string) =>
      tap ? page.getByRole('button', { name: label }).tap() : page.getByRole('button', { name: label }).click();
    await page.goto(`${mail.url}/login`);
    await page.getByLabel('E-mail').fill(one.email);
    await page.getByLabel('Password').fill(one.password);
    await press('Continue');
    const field = page.getByLabel('Code');
    await field.waitFor();
    await field.fill(code(one));
    await press('Sign in');
  };
  return {
    mail,
    browser,
    standin,
    control: controls[account.email] ?? '',
    controls,
    account,
    code,
    logIn,
    async signIn(page, signIn = {}) {
      await logIn(page, signIn);
      await page.waitForURL(/\/(outlook|connect)$/);
      await page.goto(`${mail.url}/connect`);
      // connected already by an earlier sign-in of the same account
      const connect = page.getByRole('button', { name: 'Connect mailbox' });
      if (await connect.count()) {
        await (signIn.tap ? connect.tap() : connect.click());
        await page.waitForURL(/connected=1$/);
      }
    },
    async deliver(message, control = controls[account.email]) {
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
