import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningWorker, haveChromium, launchChromium, startRouterWorker, startServiceWorker } from '../support/browser';
// inject(): what test/global-setup.ts provides to every project (its ProvidedContext declaration).
import type {} from '../global-setup';

const USERNAME = 'browser-admin';
const PASSWORD = 'browser-password-123';

let worker: RunningWorker;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  worker = await startServiceWorker('form', {
    DATABASE_URL: inject('racingDatabaseUrl'),
    PG_WS_PROXY: inject('pgRelay'),
    ADMIN_USERNAME: USERNAME,
    ADMIN_PASSWORD: PASSWORD,
    SESSION_SECRET: 'browser-test-session-secret-0123456789',
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.dispose();
});

async function logIn(page: Page) {
  await page.goto(`${worker.url}/form/`);
  await page.getByLabel('Username').fill(USERNAME);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/\/form\/runner\/\d+\/\?tab=brief/);
}

/** Set on the page; still there afterwards only if the page was not reloaded. */
const markPage = (page: Page) => page.evaluate(() => Reflect.set(window, '__noReload', true));
const stillSamePage = (page: Page) => page.evaluate(() => Reflect.get(window, '__noReload') === true);

describe.runIf(haveChromium)('runner form in Chromium', () => {
  it('rejects wrong credentials with a message, then logs in and opens a runner', async () => {
    const page = await browser.newPage();
    await page.goto(`${worker.url}/form/`);
    await page.getByLabel('Username').fill(USERNAME);
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid username or password.');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/form\/runner\/\d+\/\?tab=brief/);
    const name = await page.locator('h1[data-horse-name]').textContent();
    expect(name?.length).toBeGreaterThan(2);
    const css = await page.evaluate(() => getComputedStyle(document.querySelector('[role="tab"][aria-selected="true"]')!).backgroundColor);
    expect(css).not.toBe('rgba(0, 0, 0, 0)');
    await page.close();
  });

  it('switches tabs in place with the mouse and the keyboard', async () => {
    const page = await browser.newPage();
    await logIn(page);
    await markPage(page);
    await page.getByRole('tab', { name: 'Detailed' }).click();
    await expect.poll(() => page.locator('#panel-detailed').isVisible()).toBe(true);
    expect(await page.locator('#panel-brief').isVisible()).toBe(false);
    expect(page.url()).toContain('tab=detailed');
    // The detailed panel arrives by fetch the first time it is shown.
    await expect.poll(() => page.getByRole('heading', { name: 'Barrier trials' }).isVisible()).toBe(true);
    expect(await page.locator('#panel-detailed [data-stat-group="by_sot"]').count()).toBe(1);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.locator('#panel-brief').isVisible()).toBe(true);
    expect(await page.getByRole('tab', { name: 'Brief' }).getAttribute('aria-selected')).toBe('true');
    expect(await stillSamePage(page)).toBe(true);
    await page.close();
  });

  it('the toolbar: a date lists its meetings, a meeting its races, a race opens with its field', async () => {
    const page = await browser.newPage();
    await logIn(page);
    await page.locator('[data-toolbar-date]').fill(inject('racingToday'));
    await page.locator('[data-toolbar-date]').dispatchEvent('change');
    // Wait for the lists of the chosen date and meeting, not the ones the page was rendered with.
    await page.locator(`[data-toolbar-meeting][data-loaded-for="${inject('racingToday')}"]`).waitFor({ state: 'attached' });
    expect(await page.locator('[data-toolbar-meeting] option').count()).toBeGreaterThan(1);
    const meeting = await page.locator('[data-toolbar-meeting] option').nth(1).getAttribute('value');
    await page.locator('[data-toolbar-meeting]').selectOption(meeting!);
    await page.locator(`[data-toolbar-race][data-loaded-for="${meeting}"]`).waitFor({ state: 'attached' });
    expect(await page.locator('[data-toolbar-race] option').count()).toBeGreaterThan(1);
    const race = await page.locator('[data-toolbar-race] option').nth(1).getAttribute('value');
    await page.locator('[data-toolbar-race]').selectOption(race!);
    await page.waitForURL(new RegExp(`race=${race}`));
    expect(await page.locator(`[data-toolbar-race] option[value="${race}"]`).getAttribute('selected')).not.toBeNull();
    expect(await page.locator('[data-race-runners] tbody tr').count()).toBeGreaterThan(1);
    await page.close();
  });

  it('opens the guide and picks a race: its runners appear without a reload', async () => {
    const page = await browser.newPage();
    await logIn(page);
    await page.getByRole('link', { name: 'Form guide' }).click();
    await page.waitForURL(/\/form\/guide\/$/);
    await markPage(page);
    const race = page.locator('a[data-race-link]').first();
    const raceName = (await race.textContent())!.replace(/^R\d+ /, '');
    await race.click();
    await expect.poll(() => page.locator('[data-guide-runners] h2').textContent()).toContain(raceName);
    expect(await page.locator('[data-race-runners] tbody tr').count()).toBeGreaterThan(1);
    expect(page.url()).toMatch(/race=\d+/);
    expect(await stillSamePage(page)).toBe(true);
    // Another day from the date strip, in place too.
    const day = page.locator('.date-strip li a:not([aria-current])').first();
    const dayDate = new URL((await day.getAttribute('href'))!, worker.url).searchParams.get('date');
    await day.click();
    await expect.poll(() => page.locator('#meetings-head').textContent()).toBe(`Meetings on ${dayDate}`);
    expect(await stillSamePage(page)).toBe(true);
    await page.goBack();
    await expect.poll(() => page.locator('[data-race-runners] tbody tr').count()).toBeGreaterThan(1);
    // A runner in the card opens that horse's form.
    await page.locator('[data-race-runners] tbody a[href^="/form/runner/"]').first().click();
    await page.waitForURL(/\/form\/runner\/\d+\//);
    await page.close();
  });

  it('searches a horse from the search box and opens it', async () => {
    const page = await browser.newPage();
    await logIn(page);
    const name = (await page.locator('h1[data-horse-name]').textContent())!;
    await page.getByLabel('Find a horse').fill(name.slice(0, 5));
    const hit = page.locator('#search-results a', { hasText: name });
    await hit.first().waitFor();
    await hit.first().click();
    await page.waitForURL(/\/form\/runner\/\d+\/$/);
    expect(await page.locator('h1[data-horse-name]').textContent()).toBe(name);
    await page.close();
  });

  it('fits a phone screen', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
    await logIn(page);
    const runnerUrl = page.url();
    const raceHref = await (async () => {
      await page.goto(`${worker.url}/form/guide/`);
      return page.locator('a[data-race-link]').first().getAttribute('href');
    })();
    for (const path of [runnerUrl, `${runnerUrl.split('?')[0]}?tab=detailed`, `${worker.url}/form/guide/`, `${worker.url}${raceHref}`]) {
      await page.goto(path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(1);
      // Headings and links outside the tables (which scroll in their own box) stay on screen.
      const clipped = await page.evaluate(() =>
        [...document.querySelectorAll('h1, h2, h3, nav a, .meeting a, .race-list a')]
          .filter((el) => !el.closest('.table-wrap') && el.getBoundingClientRect().right > window.innerWidth + 1)
          .map((el) => el.textContent),
      );
      expect(clipped, path).toEqual([]);
    }
    await page.close();
  });

  it('works without script: tabs and race picks are plain links', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await logIn(page);
    await page.getByRole('tab', { name: 'Detailed' }).click();
    await page.waitForURL(/tab=detailed/);
    expect(await page.locator('#panel-detailed').isVisible()).toBe(true);
    await page.goto(`${worker.url}/form/guide/`);
    await page.locator('a[data-race-link]').first().click();
    await page.waitForURL(/race=\d+/);
    expect(await page.locator('[data-race-runners] tbody tr').count()).toBeGreaterThan(1);
    await context.close();
  });

  it('logs out', async () => {
    const page = await browser.newPage();
    await logIn(page);
    await page.getByRole('link', { name: 'Log out' }).click();
    await page.waitForURL(/\/form\/$/);
    await page.goto(`${worker.url}/form/guide/`);
    expect(new URL(page.url()).pathname).toBe('/form/');
    await page.close();
  });
});

describe.runIf(haveChromium)('runner form through the router, by its path on a shared origin', () => {
  let registry: string;
  let form: RunningWorker;
  let router: RunningWorker;

  beforeAll(async () => {
    registry = mkdtempSync(join(tmpdir(), 'form-registry-'));
    form = await startServiceWorker(
      'form',
      {
        DATABASE_URL: inject('racingDatabaseUrl'),
        PG_WS_PROXY: inject('pgRelay'),
        ADMIN_USERNAME: USERNAME,
        ADMIN_PASSWORD: PASSWORD,
        SESSION_SECRET: 'browser-test-session-secret-0123456789',
      },
      { registry, logLevel: 'error' },
    );
    router = await startRouterWorker({ registry, ready: '/form/' });
  }, 120_000);

  afterAll(async () => {
    await router?.dispose();
    await form?.dispose();
    if (registry) rmSync(registry, { recursive: true, force: true });
  });

  it('logs in, opens a runner and its assets, all on the router origin under /form/', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(`${router.url}/form/`)) elsewhere.push(request.url());
    });
    await page.goto(`${router.url}/form/`);
    await page.getByLabel('Username').fill(USERNAME);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(new RegExp(`^${router.url}/form/runner/\\d+/\\?tab=brief`));
    expect((await page.locator('h1[data-horse-name]').textContent())?.length).toBeGreaterThan(2);
    const css = await page.evaluate(() => getComputedStyle(document.querySelector('[role="tab"][aria-selected="true"]')!).backgroundColor);
    expect(css).not.toBe('rgba(0, 0, 0, 0)');
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
