import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { haveChromium } from '../support/browser';
import { MigrateBrowserApp, signIn, watchPage } from './migrate-support';

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
});
