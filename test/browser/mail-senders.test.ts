import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, haveChromium } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { type MailClientRig, startMailClientRig } from './mail-client-support';

const OWNER = {
  email: 'senders-office@example.com',
  password: 'browser-senders-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};

/**
 * The Senders page and the follow-up setting in Chromium on a phone's screen (390 px, taps):
 * the ranking, one sender unsubscribed (a mailto: draft) and archived with the job's progress,
 * and the follow-up days saved on the settings page; no overflow and no serious axe finding.
 */
describe.skipIf(!haveChromium)('mail senders in Chromium', () => {
  let rig: MailClientRig;
  let mail: RunningWorker;
  let browser: Browser;

  beforeAll(async () => {
    rig = await startMailClientRig('mail-senders', OWNER);
    ({ mail, browser } = rig);
  }, 120_000);

  afterAll(() => rig?.close());

  it('ranks senders, unsubscribes and archives one with a tap, and saves the follow-up days', async () => {
    for (const subject of ['Weekly tips', 'More weekly tips'])
      await rig.deliver({
        subject,
        from: { name: 'Tips List', address: 'tips@lists.test' },
        headers: [{ name: 'List-Unsubscribe', value: '<mailto:leave@lists.test?subject=stop>' }],
      });
    const context = await phoneContext(browser, { bypassCSP: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await rig.signIn(page, { tap: true });

    await page.goto(`${mail.url}/senders`);
    expect(await page.getByRole('heading', { name: 'Senders', exact: true }).isVisible()).toBe(true);
    expect(await pageProblems(page)).toEqual([]);
    const row = page.locator('li[data-sender="tips@lists.test"]');
    expect(await row.textContent()).toContain('2 messages, 0% read');
    await row.getByRole('button', { name: 'Unsubscribe and archive tips@lists.test' }).tap();
    await page.waitForURL(/\/senders\?sort=volume&job=/);
    const job = page.locator('ul.jobs li[data-job]').first();
    expect(await job.textContent()).toContain('waiting in Drafts');
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('ul.jobs li[data-job]').first().getAttribute('data-status');
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe('done');
    expect(await page.locator('ul.jobs li[data-job]').first().textContent()).toContain('2 archived');
    expect(await page.locator('li[data-sender="tips@lists.test"]').count()).toBe(0);
    expect(await pageProblems(page)).toEqual([]);

    await page.getByRole('link', { name: 'Rank by how much is read' }).tap();
    await page.waitForURL(/sort=read/);
    expect(await pageProblems(page)).toEqual([]);

    await page.goto(`${mail.url}/settings`);
    await page.locator('#follow-up-days').fill('5');
    await page.locator('section[data-section="follow-up"]').getByRole('button', { name: 'Save' }).tap();
    await page.locator('.flash.notice').filter({ hasText: 'after 5 days' }).waitFor();
    expect(await page.locator('#follow-up-days').inputValue()).toBe('5');
    expect(await pageProblems(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
