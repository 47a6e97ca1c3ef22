import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { type TestAuthService, startTestAuthService } from '../support/auth-service';
import { type RunningWorker, haveChromium, launchChromium, startServiceWorker } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { freshCodes } from '../support/totp';

const AUTH_VARS = {
  AUTH_SSO_SHARED_SECRET: 'browser-mail-settings-secret',
  AUTH_TOKEN_SECRET: 'browser-mail-settings-token-secret-0123456789ab',
  AUTH_TOTP_ENCRYPTION_KEY: 'YnJvd3Nlci1tYWlsLXRvdHAta2V5LTMyLWJ5dGVzLS0=',
};
const OWNER = {
  email: 'settings-office@example.com',
  password: 'browser-settings-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};
const code = freshCodes((_email: string) => OWNER.totpSecret, {}, { fromCurrentStep: true });

type Summaries = { items: { message_id: string; subject: string; category: string }[]; total: number };

/**
 * The settings page in Chromium, on a phone's screen: a category made and given a rule, recent
 * mail re-categorised in the background, and the result in the mail client's list.
 */
describe.skipIf(!haveChromium)('mail settings in Chromium', () => {
  let registry: string;
  let state: string;
  let auth: TestAuthService;
  let standin: GraphStandin;
  let mail: RunningWorker;
  let browser: Browser;

  beforeAll(async () => {
    registry = mkdtempSync(join(tmpdir(), 'mail-settings-registry-'));
    state = mkdtempSync(join(tmpdir(), 'mail-settings-state-'));
    applyLocalD1Migrations('workers/mail/wrangler.toml', 'DB', state);
    standin = await startGraphStandin({ port: 0 });
    await fetch(`${standin.url}/_standin/mailboxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mail: OWNER.email, seed: 'racing' }),
    });
    auth = await startTestAuthService({ owner: OWNER }, AUTH_VARS, { registry });
    mail = await startServiceWorker(
      'mail',
      {
        GRAPH_BASE_URL: standin.graphBaseUrl,
        IDENTITY_BASE_URL: standin.identityBaseUrl,
        MS_CLIENT_ID: 'browser-mail-settings-client',
        AUTH_CLIENT_SECRET: AUTH_VARS.AUTH_SSO_SHARED_SECRET,
        SESSION_SECRET: 'browser-mail-settings-session-secret-0123456789',
        MAIL_TOKEN_SECRET: 'browser-mail-settings-token-secret-0123456789',
        MAIL_ASSISTANT_ADMINS: OWNER.email,
        MAIL_MODEL: 'offline',
      },
      { registry, persistTo: state, logLevel: 'error' },
    );
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await mail?.dispose();
    await auth?.dispose();
    await standin?.close();
    for (const dir of [registry, state]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function signInAndConnect(page: Page) {
    await page.goto(`${mail.url}/login`);
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Continue' }).tap();
    const field = page.getByLabel('Code');
    await field.waitFor();
    await field.fill(code(OWNER.email));
    await page.getByRole('button', { name: 'Sign in' }).tap();
    await page.waitForURL(/\/(outlook|connect)$/);
    await page.goto(`${mail.url}/connect`);
    // connected already by an earlier sign-in of the same account
    if (await page.getByRole('button', { name: 'Connect mailbox' }).count()) {
      await page.getByRole('button', { name: 'Connect mailbox' }).tap();
      await page.waitForURL(/connected=1$/);
    }
  }

  const summaries = (page: Page, query: string) =>
    page.evaluate(async (q) => (await (await fetch(`/api/docdb/email_summaries?${q}`)).json()) as Summaries, query);

  it('creates a category, gives it a rule, re-categorises recent mail and sees it in the mail client', async () => {
    // The page policy allows no inline script: axe-core is injected past it.
    const context = await phoneContext(browser, { bypassCSP: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await signInAndConnect(page);

    // From the navigation (folded into the header's menu on a phone).
    await page.goto(`${mail.url}/outlook`);
    await page.locator('details.site-menu > summary').tap();
    await page.locator('nav a[href="/settings"]').tap();
    await page.waitForURL(`${mail.url}/settings`);
    expect(await page.getByRole('heading', { name: 'Assistant settings' }).isVisible()).toBe(true);
    expect(await pageProblems(page)).toEqual([]);

    // A mistake: the form comes back with the input and the message beside the field.
    await page.getByLabel('Name', { exact: true }).last().fill('Stewards <report>');
    await page.getByRole('button', { name: 'Create category' }).tap();
    await page.locator('#new-name-error').waitFor();
    expect(await page.locator('#new-name').inputValue()).toBe('Stewards <report>');
    expect(await page.locator('#new-name').getAttribute('aria-invalid')).toBe('true');
    expect(await pageProblems(page)).toEqual([]);

    // Create it without a rule, then give it one.
    await page.locator('#new-name').fill('Stewards');
    await page.getByRole('button', { name: 'Create category' }).tap();
    await page.waitForURL(`${mail.url}/settings`);
    await page.locator('.flash.notice').waitFor();
    const card = page.locator('section.card[data-category="Stewards"]');
    await card.waitFor();
    await card.getByLabel('Rule').fill('stewards report inquiry protest');
    await card.getByRole('button', { name: 'Save Stewards' }).tap();
    await page.locator('.flash.notice').filter({ hasText: 'sorted again' }).waitFor();
    // The change offers the re-categorisation of recent mail.
    await page.locator('.recategorise-box.offered').waitFor();
    expect(await pageProblems(page)).toEqual([]);

    expect((await summaries(page, 'page_size=1')).total).toBe(0);
    await page.getByRole('button', { name: 'Re-categorise recent mail' }).tap();
    await page
      .locator('.flash.notice')
      .filter({ hasText: /recent Inbox messages/ })
      .waitFor();

    // The background work summarises and categorises the recent Inbox messages.
    const inbox = await page.evaluate(
      async () => ((await (await fetch('/api/emails/inbox?top=50')).json()) as { items: { id: string; subject: string }[] }).items,
    );
    const stewards = inbox.filter((m) => /stewards/i.test(m.subject));
    expect(stewards.length).toBeGreaterThan(0);
    await expect.poll(async () => (await summaries(page, 'page_size=1')).total, { timeout: 60_000, interval: 500 }).toBe(inbox.length);
    const categorised = await summaries(page, 'category=Stewards&page_size=100');
    expect(categorised.items.map((s) => s.message_id)).toEqual(expect.arrayContaining(stewards.map((m) => m.id)));

    // The job's progress shows on the page.
    await page.reload();
    await expect
      .poll(async () => page.locator('.jobs li').first().getAttribute('data-status'), { timeout: 20_000, interval: 500 })
      .toBe('done');

    expect(errors).toEqual([]);

    // The mail client's list shows the category on the messages.
    await page.goto(`${mail.url}/outlook`);
    await page.locator('[data-messages] li[role="option"]').first().waitFor();
    const chips = page.locator('[data-messages] span.chip.category[data-category="Stewards"]');
    await expect.poll(() => chips.count(), { timeout: 10_000, interval: 500 }).toBeGreaterThan(0);
    await context.close();
  }, 180_000);

  it('edits and resets a prompt and deletes the category, on a phone', async () => {
    // The page policy allows no inline script: axe-core is injected past it.
    const context = await phoneContext(browser, { bypassCSP: true });
    const page = await context.newPage();
    await signInAndConnect(page);
    await page.goto(`${mail.url}/settings`);
    const summarise = page.locator('section.card[data-prompt="summarise"]');
    await summarise.getByRole('textbox').fill('Summarise in at most 2 bullets.');
    await summarise.getByRole('button', { name: 'Save prompt' }).tap();
    await page.locator('.flash.notice').waitFor();
    expect(await page.locator('section.card[data-prompt="summarise"] textarea').inputValue()).toBe('Summarise in at most 2 bullets.');
    await page.getByRole('button', { name: 'Reset “summarise” to the default' }).tap();
    await page.locator('.flash.notice').filter({ hasText: 'back to the default' }).waitFor();
    expect(await page.locator('section.card[data-prompt="summarise"] textarea').inputValue()).not.toBe('Summarise in at most 2 bullets.');

    await page.locator('#new-name').fill('Farriers');
    await page.locator('#new-rule').fill('farrier shoeing plates');
    await page.locator('#new-mode').selectOption('no_reply');
    await page.getByRole('button', { name: 'Create category' }).tap();
    const category = page.locator('section.card[data-category="Farriers"]');
    await category.waitFor();
    expect(await category.locator('select').inputValue()).toBe('no_reply');
    await category.getByRole('button', { name: 'Delete Farriers' }).tap();
    await page.locator('.flash.notice').filter({ hasText: 'deleted' }).waitFor();
    expect(await page.locator('section.card[data-category="Farriers"]').count()).toBe(0);
    expect(await pageProblems(page)).toEqual([]);
    await context.close();
  }, 120_000);
});
