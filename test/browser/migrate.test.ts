import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { haveChromium } from '../support/browser';
import { MigrateBrowserApp, PREFIX_OPERATOR, signIn, watchPage } from './migrate-support';

/** Tables whose legacy rows all exist in the racing database already (matched by natural key): the run adds no rows other tests could see. */
const TABLES = ['venue', 'trainer', 'jockey'];

/** The migration app in real workerd, signing in through the real authentication Worker over a service binding. */
describe.skipIf(!haveChromium)('migration app in Chromium', () => {
  const harness = new MigrateBrowserApp();
  let mappingFile: string;

  beforeAll(async () => {
    await harness.start();
    mappingFile = join(harness.state, 'legacy-mapping.json');
    writeFileSync(mappingFile, JSON.stringify(LEGACY_MAPPING));
  }, 180_000);

  afterAll(() => harness.dispose());

  it('signs an Operator in and drives the wizard until Results shows every table validated', async () => {
    const { url } = harness;
    const page = await harness.browser!.newPage();
    const { foreign, errors } = watchPage(page, url);

    await signIn(page, url);
    await expect.poll(() => page.locator('[data-active-configuration="true"]').count()).toBe(1);
    const cookie = (await page.context().cookies(url)).find((c) => c.name === 'AuthToken');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('AuthToken');

    await page.click('a[href="/Migration/TableSelection"] >> nth=0');
    await page.waitForURL(/\/Migration\/TableSelection/);
    for (const table of TABLES) await page.check(`input[name="selectedTables"][value="${table}"]`);
    await page.click('form[action="/Migration/TableSelection"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/SchemaImport/);
    await page.setInputFiles('#schemaFile', mappingFile);
    await page.click('form[action="/Migration/SchemaImport"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/ReviewMappings/);
    expect(await page.locator('fieldset[data-table]').count()).toBe(TABLES.length);
    await page.click('form[action="/Migration/ReviewMappings"] button[type="submit"]');

    // Mappings → Filters → Relationships: the page's Next follows the step bar.
    await page.waitForURL(/\/Migration\/FilterConfig/);
    await page.click('form[action="/Migration/FilterConfig"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/RelationshipConfig/);
    await page.click('form[action="/Migration/RelationshipConfig"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/RunConfig/);
    expect(await page.locator('[data-run-order] li').count()).toBe(TABLES.length);
    await page.click('form[action="/Migration/RunConfig"] button[type="submit"]');

    await page.waitForURL(/\/Migration\/Progress/);
    // The page polls its JSON route and updates without a reload.
    await page.locator('[data-progress][data-state="completed"]').waitFor({ timeout: 90_000 });
    expect(await page.locator('[data-tables] tr').count()).toBe(TABLES.length);
    await page.click('[data-results-link]');

    await page.waitForURL(/\/Migration\/Results/);
    await page.locator('[data-validated="all"]').waitFor();
    expect(await page.locator('[data-validation] tr[data-ok="true"]').count()).toBe(TABLES.length);
    expect(await page.locator('[data-validation] tr[data-ok="false"]').count()).toBe(0);

    await page.click('form[action="/Account/Logout"] button[type="submit"]');
    await page.waitForURL(/\/Account\/Login/);

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);

  it('works under the /migrate path prefix: every request the pages and their scripts make stays under it', async () => {
    const base = `${harness.url}/migrate`;
    const page = await harness.browser!.newPage();
    // A request outside the prefix counts as leaving the app.
    const { foreign, errors } = watchPage(page, `${base}/`);

    await signIn(page, base, PREFIX_OPERATOR);
    await expect.poll(() => page.locator('[data-active-configuration="true"]').count()).toBe(1);
    const cookie = (await page.context().cookies(base)).find((c) => c.name === 'AuthToken');
    expect(cookie).toMatchObject({ path: '/migrate', httpOnly: true, secure: true, sameSite: 'Lax' });
    expect(await page.locator('meta[name="base-path"]').getAttribute('content')).toBe('/migrate');

    // Configuration: the connection test is the script's JSON POST (with the anti-forgery header).
    await page.click('nav a[href="/migrate/Configuration"]');
    await page.waitForURL(`${base}/Configuration`);
    await page.click('a[href^="/migrate/Configuration/Edit/"] >> nth=0');
    await page.waitForURL(/\/migrate\/Configuration\/Edit\//);
    await page.click('[data-test-connection]');
    await expect.poll(() => page.locator('[data-test-result]').textContent(), { timeout: 15_000 }).toMatch(/^Connected/);

    // Sync jobs: the status counts come from the JSON route.
    await page.click('nav a[href="/migrate/Sync"]');
    await page.waitForURL(`${base}/Sync`);
    await expect.poll(() => page.locator('[data-sync-status] [data-count="total"]').textContent()).toMatch(/^\d+$/);

    // Meetings: the races load, then a race's runners on request.
    await page.click('nav a[href="/migrate/Meetings"]');
    await page.waitForURL(/\/migrate\/Meetings/);
    await page.click('a[href^="/migrate/Meetings?rsId="] >> nth=0');
    await page.locator('[data-races-table]').waitFor({ timeout: 15_000 });
    await page.click('[data-races-table] button >> nth=0');
    await page.locator('[data-runners-table]').waitFor({ timeout: 15_000 });

    // Barrier trials: the live counts come from the JSON route.
    await page.click('nav a[href="/migrate/BarrierTrials"]');
    await page.waitForURL(`${base}/BarrierTrials`);
    await expect.poll(() => page.locator('[data-live="destination"]').textContent(), { timeout: 15_000 }).not.toBe('…');

    await page.click('form[action="/migrate/Account/Logout"] button[type="submit"]');
    await page.waitForURL(`${base}/Account/Login`);

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
