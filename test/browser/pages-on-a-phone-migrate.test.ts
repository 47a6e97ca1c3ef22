import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeCsv } from '../../scripts/sheet-writers.ts';
import { haveChromium } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { ADMIN, MigrateBrowserApp, signIn } from './migrate-support';
import { expectHeaderMenuWorks, noProblems, problemsByPage } from './phone-pages';

// The migration app's pages at a phone's width (390 px): nothing wider than the screen, no
// critical or serious axe-core finding. The wizard's main path is walked at this width by
// migrate-wizard.test.ts; its other pages (schema check, field mapping, matches, summary, FK patch,
// Progress and Results before a run) are checked here, with a sync job's pages, a meeting, an
// import's preview and progress, a discipline repair's progress and the Admin's delete confirmation.
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
    // The code step, as the sign-in's first step leads to it (the token is only checked on post).
    const verify = ['/Account/Login', '/Account/Verify?pendingToken=pending&email=someone%40example.com'];
    expect(await problemsByPage(page, harness.url, verify)).toEqual(noProblems(verify));
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

  it("the wizard's other pages, a sync job's pages, a meeting and an import's preview and progress fit and pass axe", async () => {
    const { url } = harness;
    await page.goto(`${url}/Migration/TableSelection`);
    await page.check('input[name="selectedTables"][value="venue"]');
    await page.click('form[action="/Migration/TableSelection"] button[type="submit"]');
    await page.waitForURL(/\/Migration\/SchemaImport/);
    const s = `sessionId=${new URL(page.url()).searchParams.get('sessionId')}`;
    await page.click('[data-use-suggestions]');
    await page.waitForURL(/\/Migration\/ReviewMappings/);
    // The sync job the first test saved, and the first meeting of the comparison's list.
    await page.goto(`${url}/Sync`);
    const edit = await page.locator('a[href^="/Sync/Edit/"]').first().getAttribute('href');
    const preview = await page.locator('a[href^="/Sync/Preview/"]').first().getAttribute('href');
    await page.goto(`${url}/Meetings`);
    const meeting = await page.locator('a[href^="/Meetings?rsId="]').first().getAttribute('href');
    expect([edit, preview, meeting]).not.toContain(null);
    const paths = [
      `/Migration/ValidateSchema?${s}`,
      `/Migration/FieldMapping?${s}`,
      `/Migration/Summary?${s}`,
      `/Migration/PendingMappings?${s}`,
      '/Migration/FkPatch?childSourceTable=race_meeting&fkSourceColumn=venue_id&parentSourceTable=venue',
      // Before a run: both say so.
      `/Migration/Progress?${s}`,
      `/Migration/Results?${s}`,
      edit!,
      preview!,
      meeting!,
    ];
    expect(await problemsByPage(page, url, paths)).toEqual(noProblems(paths));

    // What natural-key matching found, on the matches page.
    await page.goto(`${url}/Migration/FieldMapping?${s}`);
    await page.click('form[action="/Migration/FindNaturalKeyMatches"] button[type="submit"]');
    await page.waitForURL(/\/Migration\/PendingMappings/);
    await page.locator('tr[data-match-table="venue"]').waitFor();
    expect(await pageProblems(page), 'PendingMappings with matches').toEqual([]);

    // An import's preview and progress, of a sheet whose one row names a meeting that does not
    // exist: the preview shows the problem, the job skips the row and writes nothing.
    const sheets = {
      BarrierTrials: writeCsv(
        ['Date', 'Course', 'Heat', 'Distance', 'Horse', 'Jockey', 'Trainer', 'Barrier', 'Position', 'Margin', 'Time'],
        [['1990-01-02', 'No Such Course', 1, 1000, 'No Such Horse', 'No Jockey', 'No Trainer', 1, 1, 0, 60.1]],
      ),
      Sectional: writeCsv(
        ['Date', 'Course', 'Race', 'Horse', 'Tab', 'Segment', 'Time'],
        [['1990-01-02', 'No Such Course', 1, 'No Such Horse', 1, 'L600', 35.4]],
      ),
    };
    for (const [area, csv] of Object.entries(sheets)) {
      await page.goto(`${url}/${area}`);
      await page.locator('form[data-upload-form] input[name="excelFile"]').setInputFiles({
        name: 'phone.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(csv),
      });
      await page.click('form[data-upload-form] button[type="submit"]');
      await page.waitForURL(new RegExp(`/${area}/Preview$`));
      await page.locator('section[data-preview]').waitFor();
      expect(await page.locator('section[data-preview] [data-invalid]').textContent()).toBe('1');
      expect(await pageProblems(page), `${area} preview`).toEqual([]);
      await page.click('form[data-start-form] [data-start]');
      await page.waitForURL(new RegExp(`/${area}/Progress\\?jobId=`));
      await page.locator('section[data-import-progress][data-state="completed"]').waitFor({ timeout: 60_000 });
      expect(await page.locator('[data-count="inserted"]').textContent()).toBe('0');
      expect(await pageProblems(page), `${area} progress`).toEqual([]);
    }
  }, 180_000);

  it("an Admin's pages: a configuration's delete confirmation and a discipline repair's progress fit and pass axe", async () => {
    const { url } = harness;
    const context = await phoneContext(harness.browser!, { bypassCSP: true });
    const admin = await context.newPage();
    await signIn(admin, url, ADMIN);
    expect(await problemsByPage(admin, url, ['/Configuration/Delete/90001'])).toEqual(noProblems(['/Configuration/Delete/90001']));

    // A repair job against a source that refuses the password fails at once and changes nothing:
    // its progress page, and the job on the repair page's list.
    const legacy = new URL(inject('legacyDatabaseUrl'));
    await admin.goto(`${url}/Configuration/Create`);
    await admin.fill('input[name="Name"]', 'Refused password');
    await admin.fill('input[name="Host"]', legacy.hostname);
    await admin.fill('input[name="Port"]', legacy.port || '5432');
    await admin.fill('input[name="Database"]', legacy.pathname.slice(1) || 'postgres');
    await admin.fill('input[name="Username"]', decodeURIComponent(legacy.username) || 'postgres');
    await admin.fill('input[name="Password"]', 'not-the-password');
    await admin.click('form[data-configuration-form] button[type="submit"]');
    await admin.waitForURL(/\/Configuration$/);
    const refused = admin.locator('tr[data-configuration]', { hasText: 'Refused password' });
    await refused.locator('form[action="/Configuration/SetActive"] button[type="submit"]').click();
    await admin.waitForURL(/\/Configuration/);
    try {
      await admin.goto(`${url}/DisciplineRepair`);
      await admin.click('form[action="/DisciplineRepair/Start"] [data-start]');
      await admin.waitForURL(/\/DisciplineRepair\/Progress\?jobId=/);
      await admin.locator('section[data-repair-progress][data-state="failed"]').waitFor({ timeout: 60_000 });
      expect(await pageProblems(admin), 'DisciplineRepair progress').toEqual([]);
      await admin.goto(`${url}/DisciplineRepair`);
      expect(await admin.locator('tr[data-repair-job]').count()).toBeGreaterThan(0);
      expect(await pageProblems(admin), 'DisciplineRepair with a job').toEqual([]);
    } finally {
      await admin.goto(`${url}/Configuration`);
      await admin.locator('tr[data-configuration="90001"] form[action="/Configuration/SetActive"] button[type="submit"]').click();
      await admin.waitForURL(/\/Configuration/);
      await context.close();
    }
  }, 180_000);

  it('the header menu opens from the keyboard and reaches its links', async () => {
    await expectHeaderMenuWorks(page, `${harness.url}/Sync`);
  });
});
