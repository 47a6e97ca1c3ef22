import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, haveChromium } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { type MailClientRig, startMailClientRig } from './mail-client-support';

const OWNER = {
  email: 'settings-office@example.com',
  password: 'browser-settings-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};

type Summaries = { items: { message_id: string; subject: string; category: string }[]; total: number };

/**
 * The settings page in Chromium, on a phone's screen: a category made and given a rule, recent
 * mail re-categorised in the background, and the result in the mail client's list.
 */
describe.skipIf(!haveChromium)('mail settings in Chromium', () => {
  let rig: MailClientRig;
  let mail: RunningWorker;
  let browser: Browser;

  beforeAll(async () => {
    rig = await startMailClientRig('mail-settings', OWNER);
    ({ mail, browser } = rig);
  }, 120_000);

  afterAll(() => rig?.close());

  // On the phone's touch screen: taps, not clicks.
  const signInAndConnect = (page: Page) => rig.signIn(page, { tap: true });

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
