import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';
import { applyLocalD1Migrations } from '../../scripts/local-worker';
import { type TestAuthService, startTestAuthService } from '../support/auth-service';
import { type RunningWorker, haveChromium, launchChromium, startServiceWorker } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { freshCodes } from '../support/totp';
import { expectHeaderMenuWorks, noProblems, problemsByPage } from './phone-pages';

const AUTH_VARS = {
  AUTH_SSO_SHARED_SECRET: 'phone-mail-client-secret',
  AUTH_TOKEN_SECRET: 'phone-mail-token-secret-0123456789abcdef012345',
  AUTH_TOTP_ENCRYPTION_KEY: 'cGhvbmUtbWFpbC10b3RwLWtleS0zMi1ieXRlcy0tLS0=',
};
const OWNER = {
  email: 'phone-office@example.com',
  password: 'phone-mail-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};
const code = freshCodes((_email: string) => OWNER.totpSecret, {}, { fromCurrentStep: true });

// The mail assistant's pages at a phone's width (390 px), signed in through the real
// authentication Worker, the mailbox on the Graph stand-in: nothing wider than the screen, no
// critical or serious axe-core finding. /outlook is checked as its page shell; the settings page
// has its own tests.
describe.skipIf(!haveChromium)('mail assistant on a phone', () => {
  let registry: string;
  let state: string;
  let auth: TestAuthService;
  let standin: GraphStandin;
  let mail: RunningWorker;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    registry = mkdtempSync(join(tmpdir(), 'mail-phone-registry-'));
    state = mkdtempSync(join(tmpdir(), 'mail-phone-state-'));
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
        MS_CLIENT_ID: 'phone-mail-client',
        AUTH_CLIENT_SECRET: AUTH_VARS.AUTH_SSO_SHARED_SECRET,
        SESSION_SECRET: 'phone-mail-session-secret-0123456789abcdef',
        MAIL_TOKEN_SECRET: 'phone-mail-token-secret-0123456789abcdef',
        MAIL_ASSISTANT_ADMINS: OWNER.email,
        MAIL_MODEL: 'offline',
      },
      { registry, persistTo: state, logLevel: 'error' },
    );
    browser = await launchChromium();
    // The page policy allows no inline script: axe-core is injected past it.
    context = await phoneContext(browser, { bypassCSP: true });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await mail?.dispose();
    await auth?.dispose();
    await standin?.close();
    for (const dir of [registry, state]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the sign-in page, the mailbox connection, then every page fit and pass axe', async () => {
    expect(await problemsByPage(page, mail.url, ['/login'])).toEqual(noProblems(['/login']));
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    const field = page.getByLabel('Code');
    await field.waitFor();
    expect(await pageProblems(page)).toEqual([]);
    await field.fill(code(OWNER.email));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    // The client's script sends a browser without a mailbox on to /connect: let it finish first.
    await page.waitForLoadState('networkidle');
    expect(await problemsByPage(page, mail.url, ['/connect'])).toEqual(noProblems(['/connect']));
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    await page.waitForURL(/\/connect\?connected=1$/);
    const paths = ['/connect', '/inbox', '/outlook', '/dashboard', '/admin', '/trace/not%20an%20id', '/no-such-page'];
    expect(await problemsByPage(page, mail.url, paths, { '/trace/not%20an%20id': 400, '/no-such-page': 404 })).toEqual(noProblems(paths));
  });

  it('the header menu opens from the keyboard and reaches its links', async () => {
    await expectHeaderMenuWorks(page, `${mail.url}/inbox`);
  });
});
