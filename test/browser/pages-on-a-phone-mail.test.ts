import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, haveChromium } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { type MailClientRig, startMailClientRig } from './mail-client-support';
import { expectHeaderMenuWorks, noProblems, problemsByPage } from './phone-pages';

const OWNER = {
  email: 'phone-office@example.com',
  password: 'phone-mail-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};

// The mail assistant's pages at a phone's width (390 px), signed in through the real
// authentication Worker, the mailbox on the Graph stand-in: nothing wider than the screen, no
// critical or serious axe-core finding. /outlook is checked as its page shell; the settings page
// has its own tests (its rules page and the senders page are here).
describe.skipIf(!haveChromium)('mail assistant on a phone', () => {
  let rig: MailClientRig;
  let mail: RunningWorker;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    rig = await startMailClientRig('mail-phone', OWNER);
    mail = rig.mail;
    // The page policy allows no inline script: axe-core is injected past it.
    context = await phoneContext(rig.browser, { bypassCSP: true });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await rig?.close();
  });

  it('the sign-in page, the mailbox connection, then every page fit and pass axe', async () => {
    expect(await problemsByPage(page, mail.url, ['/login'])).toEqual(noProblems(['/login']));
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    const field = page.getByLabel('Code');
    await field.waitFor();
    expect(await pageProblems(page)).toEqual([]);
    await field.fill(rig.code(OWNER));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    // The client's script sends a browser without a mailbox on to /connect: let it finish first.
    await page.waitForLoadState('networkidle');
    expect(await problemsByPage(page, mail.url, ['/connect'])).toEqual(noProblems(['/connect']));
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    await page.waitForURL(/\/connect\?connected=1$/);
    const paths = [
      '/connect',
      '/inbox',
      '/outlook',
      '/dashboard',
      '/admin',
      '/settings/rules',
      '/senders',
      '/trace/not%20an%20id',
      '/no-such-page',
    ];
    expect(await problemsByPage(page, mail.url, paths, { '/trace/not%20an%20id': 400, '/no-such-page': 404 })).toEqual(noProblems(paths));
  });

  it('the header menu opens from the keyboard and reaches its links', async () => {
    await expectHeaderMenuWorks(page, `${mail.url}/inbox`);
  });
});
