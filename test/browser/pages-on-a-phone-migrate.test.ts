import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium } from '../support/browser';
import { phoneContext } from '../support/page-checks';
import { MigrateBrowserApp, signIn } from './migrate-support';
import { expectHeaderMenuWorks, noProblems, problemsByPage } from './phone-pages';

// The migration app's pages at a phone's width (390 px): nothing wider than the screen, no
// critical or serious axe-core finding. The wizard's pages (/Migration/...) are not among them.
describe.skipIf(!haveChromium)('migration app on a phone', () => {
  const harness = new MigrateBrowserApp();
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await harness.start();
    // The page policy allows no inline script: axe-core is injected past it.
    context = await phoneContext(harness.browser!, { bypassCSP: true });
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await harness.dispose();
  });

  it('the sign-in page, then every page of the app, fit and pass axe', async () => {
    expect(await problemsByPage(page, harness.url, ['/Account/Login'])).toEqual(noProblems(['/Account/Login']));
    await signIn(page, harness.url);
    // A session, so /Session lists one by its name.
    await page.goto(`${harness.url}/Migration/TableSelection`);
    for (const table of ['venue', 'trainer', 'jockey', 'horse']) await page.check(`input[name="selectedTables"][value="${table}"]`);
    await page.click('form[action="/Migration/TableSelection"] button[type="submit"]');
    await page.waitForURL(/\/Migration\/SchemaImport/);
    // A sync job, so its incremental settings page can be visited.
    await page.goto(`${harness.url}/Sync/Create`);
    await page.fill('input[name="Name"]', 'Phone check');
    await page.locator('input[name="Tables"]').first().check();
    await page.click('form[action="/Sync/Save"] button[type="submit"]');
    await page.waitForURL(/\/Sync$/);
    const incremental = await page.locator('a[href^="/Sync/Incremental/"]').first().getAttribute('href');
    expect(incremental).toMatch(/^\/Sync\/Incremental\/\d+$/);
    const paths = [
      '/',
      '/Configuration',
      '/Configuration/Create',
      '/Configuration/Edit/90001',
      '/Session',
      '/Sync',
      '/Sync/Create',
      // The sync job's incremental settings.
      incremental!,
      '/Meetings',
      '/DisciplineRepair',
      '/BarrierTrials',
      '/BarrierTrials/AutoSync',
      '/Sectional',
      '/Sectional/AutoSync',
      '/Home/Error',
      '/No/Such/Page',
    ];
    expect(await problemsByPage(page, harness.url, paths, { '/No/Such/Page': 404 })).toEqual(noProblems(paths));
    await page.goto(`${harness.url}/Session`);
    expect(await page.locator('[data-session-link]').first().textContent()).toMatch(/^\s*\w+, \w+, \w+ and 1 more — \d{4}-\d{2}-\d{2}\s*$/);
  });

  it('the header menu opens from the keyboard and reaches its links', async () => {
    await expectHeaderMenuWorks(page, `${harness.url}/Sync`);
  });
});
