import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withClient } from '../../scripts/racing/pg-client';
import { haveChromium } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { MigrateBrowserApp, OPERATOR, PREFIX_OPERATOR, signIn, watchPage } from './migrate-support';

/** The destination tables the walk copies into, and their row counts now. */
const destCounts = () =>
  withClient(inject('racingDatabaseUrl'), async (client) => ({
    courses: Number((await client.query<{ n: string }>('SELECT count(*)::bigint AS n FROM courses')).rows[0]!.n),
    jockeys: Number((await client.query<{ n: string }>('SELECT count(*)::bigint AS n FROM jockeys')).rows[0]!.n),
  }));

/**
 * The wizard from TableSelection to Results taking every default: `venue` and `jockey`, no schema file
 * (the suggested mappings), no filter, the proposed natural key, a dry run of five rows before the
 * start. `check` runs on every wizard page.
 */
async function walkWithDefaults(page: Page, url: string, check: (name: string) => Promise<void>): Promise<void> {
  await page.goto(`${url}/Migration/TableSelection`);
  await check('TableSelection');
  await page.check('input[name="selectedTables"][value="venue"]');
  await page.check('input[name="selectedTables"][value="jockey"]');
  await page.click('form[action="/Migration/TableSelection"] button[type="submit"]');

  await page.waitForURL(/\/Migration\/SchemaImport/);
  await check('SchemaImport');
  await page.click('[data-use-suggestions]');

  await page.waitForURL(/\/Migration\/ReviewMappings/);
  await check('ReviewMappings');
  expect(await page.locator('fieldset[data-table="venue"] select[name$=".DestTable"]').inputValue()).toBe('courses');
  expect(await page.locator('fieldset[data-table="jockey"] select[name$=".DestTable"]').inputValue()).toBe('jockeys');
  for (const [column, dest] of [
    ['venue.venue_name', 'name'],
    ['venue.country_code', 'country'],
    ['venue.category_code', 'category'],
    ['jockey.full_name', 'name'],
    ['jockey.home_state', 'state'],
  ]) {
    expect(await page.locator(`select[aria-label="Destination column for ${column}"]`).inputValue(), column).toBe(dest);
  }
  await page.click('form[action="/Migration/ReviewMappings"] button[type="submit"]');

  await page.waitForURL(/\/Migration\/FilterConfig/);
  await check('FilterConfig');
  await page.click('form[action="/Migration/FilterConfig"] button[type="submit"]');

  await page.waitForURL(/\/Migration\/RelationshipConfig/);
  await check('RelationshipConfig');
  expect(await page.locator('[data-natural-key="venue"] input[value="name"]').isChecked()).toBe(true);
  expect(await page.locator('[data-natural-key="jockey"] input[value="name"]').isChecked()).toBe(true);
  await page.click('form[action="/Migration/RelationshipConfig"] button[type="submit"]');

  await page.waitForURL(/\/Migration\/RunConfig/);
  await check('RunConfig');
  expect(await page.locator('[data-duplicate-risk]').count()).toBe(0);
  // The dry run first: its report, then back to the run settings.
  await page.fill('form[action="/Migration/DryRun"] input[name="rows"]', '5');
  await page.click('form[action="/Migration/DryRun"] button[type="submit"]');
  await page.locator('[data-dry-run] tr[data-table="courses"] [data-read]').waitFor();
  expect(await page.locator('[data-dry-run] tr[data-table="courses"] [data-read]').textContent()).toBe('5');
  await check('DryRun');
  await page.goBack();
  await page.waitForURL(/\/Migration\/RunConfig/);
  await page.click('form[action="/Migration/RunConfig"] button[type="submit"]');

  await page.waitForURL(/\/Migration\/Progress/);
  await page.locator('[data-progress][data-state="completed"]').waitFor({ timeout: 90_000 });
  // The run has ended: its Cancel button is gone.
  await expect.poll(() => page.locator('[data-cancel]').count()).toBe(0);
  await check('Progress');
  await page.click('[data-results-link]');

  await page.waitForURL(/\/Migration\/Results/);
  await page.locator('[data-validated="all"]').waitFor();
  expect(await page.locator('[data-rejects]').getAttribute('data-rejects')).toBe('0');
  await check('Results');
}

describe.skipIf(!haveChromium)('the migration wizard with its defaults, in Chromium', () => {
  const harness = new MigrateBrowserApp();

  beforeAll(() => harness.start(), 180_000);
  afterAll(() => harness.dispose());

  it('copies venue into courses and jockey into jockeys (already there) without adding a row', async () => {
    const page = await harness.browser!.newPage();
    const { foreign, errors } = watchPage(page, harness.url);
    await signIn(page, harness.url, OPERATOR);
    const before = await destCounts();
    await walkWithDefaults(page, harness.url, async () => {});
    expect(await destCounts()).toEqual(before);
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);

  it('fits a phone: every wizard page of the same walk has no overflow and no serious axe finding', async () => {
    // bypassCSP: the page checks inject axe-core as an inline script.
    const context = await phoneContext(harness.browser!, { bypassCSP: true });
    const page = await context.newPage();
    const { errors } = watchPage(page, harness.url);
    await signIn(page, harness.url, PREFIX_OPERATOR);
    const before = await destCounts();
    const problems: Record<string, string[]> = {};
    await walkWithDefaults(page, harness.url, async (name) => {
      problems[name] = await pageProblems(page);
    });
    expect(Object.keys(problems)).toHaveLength(9);
    for (const [name, found] of Object.entries(problems)) expect(found, name).toEqual([]);
    expect(await destCounts()).toEqual(before);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
