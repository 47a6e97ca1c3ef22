import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { pageProblems } from '../support/page-checks';

/**
 * Opens each path on `page` (already the size of a phone, signed in where needed) and returns what
 * pageProblems finds on it, by path: a passing service gives `{ path: [] }` for every path. A page
 * that answers an error status is a problem too, except where `statuses` expects it.
 */
export async function problemsByPage(
  page: Page,
  origin: string,
  paths: string[],
  statuses: Record<string, number> = {},
): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const path of paths) {
    const response = await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    const problems: string[] = [];
    const status = response?.status() ?? 0;
    if (status !== (statuses[path] ?? 200)) problems.push(`answered ${status}`);
    problems.push(...(await pageProblems(page)));
    out[path] = problems;
  }
  return out;
}

/** What a passing run of problemsByPage returns. */
export const noProblems = (paths: string[]) => Object.fromEntries(paths.map((path) => [path, [] as string[]]));

/**
 * On a phone the header's navigation is folded into the menu button: hidden at first, opened from
 * the keyboard (no script needed), its links then visible and next in the tab order.
 */
export async function expectHeaderMenuWorks(page: Page, url: string): Promise<void> {
  await page.goto(url);
  const links = page.locator('header nav[aria-label="Main"] a');
  const count = await links.count();
  expect(count).toBeGreaterThan(1);
  expect(await links.first().isVisible()).toBe(false);
  const button = page.locator('header details.site-menu > summary');
  expect(await button.isVisible()).toBe(true);
  await button.focus();
  await page.keyboard.press('Enter');
  for (let i = 0; i < count; i++) expect(await links.nth(i).isVisible()).toBe(true);
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe(await links.first().getAttribute('href'));
  // Open, the page still fits the screen.
  expect(await pageProblems(page)).toEqual([]);
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Enter');
  expect(await links.first().isVisible()).toBe(false);
}
