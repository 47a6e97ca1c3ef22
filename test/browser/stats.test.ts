import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningWorker, haveChromium, launchChromium, startServiceWorker } from '../support/browser';
// inject(): what test/global-setup.ts provides to every project (its ProvidedContext declaration).
import type {} from '../global-setup';

const TOKEN = 'browser-static-token-0123456789';

describe.skipIf(!haveChromium)('stats dashboard in Chromium', () => {
  let worker: RunningWorker;
  let browser: Browser;

  beforeAll(async () => {
    worker = await startServiceWorker('stats', {
      DATABASE_URL: inject('racingDatabaseUrl'),
      PG_WS_PROXY: inject('pgRelay'),
      STATIC_API_TOKEN: TOKEN,
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: 'browser-admin-password',
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.dispose();
  });

  it('logs in, picks a meeting, shows sortable tables and the IV chart, on a phone-sized screen', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    await page.goto(`${worker.url}/login?direct=1`);
    await page.fill('input[name=username]', 'admin');
    await page.fill('input[name=password]', 'browser-admin-password');
    await page.click('button[type=submit]');
    await page.waitForURL(`${worker.url}/`);

    // The nearest earlier day with meetings.
    const options = page.locator('#meeting option[value]:not([value=""])');
    const today = inject('racingToday');
    let found = false;
    for (let back = 1; back < 10 && !found; back++) {
      const date = new Date(Date.parse(`${today}T00:00:00Z`) - back * 86_400_000).toISOString().slice(0, 10);
      await page.fill('#date', date);
      await page.dispatchEvent('#date', 'change');
      // Wait for the list of this date, not whatever the page showed before.
      await page.locator(`#meeting[data-loaded-for="${date}"]`).waitFor({ state: 'attached' });
      found = (await options.count()) > 0;
    }
    expect(found).toBe(true);
    await page.selectOption('#meeting', { index: 1 });

    const trainerRows = page.locator('#trainers tbody tr');
    await trainerRows.first().waitFor();
    expect(await trainerRows.count()).toBeGreaterThan(1);
    expect(await page.locator('#jockeys tbody tr').count()).toBeGreaterThan(1);
    await page.locator('#chart canvas').waitFor();
    expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
    // The bars are drawn: the plot canvas has painted pixels.
    const painted = await page.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('#chart canvas')!;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(1000);

    // Sorting by name puts the rows in alphabetical order; clicking again reverses it.
    const names = () => page.locator('#trainers tbody tr td:first-child').allTextContents();
    await page.click('#trainers th[data-col="0"]');
    const ascending = await names();
    expect(ascending).toEqual([...ascending].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    await page.click('#trainers th[data-col="0"]');
    expect(await names()).toEqual([...ascending].reverse());

    // A row picks whose IVs the chart shows.
    const second = trainerRows.nth(1);
    const name = (await second.locator('td').first().textContent()) ?? '';
    await second.click();
    expect(await page.textContent('#chart-title')).toContain(name);

    // Nothing is wider than the phone's screen except inside the scrollable table boxes.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a token in a link is used for the page but stored only when the user asks', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${worker.url}/?token=${TOKEN}&x=1`);
    await page.locator('#link-token').waitFor({ state: 'visible' });
    // Taken out of the address, and not stored: a crafted link plants nothing.
    expect(new URL(page.url()).searchParams.get('token')).toBeNull();
    expect(await page.evaluate(() => localStorage.getItem('statsToken'))).toBeNull();
    // Used for this page: the meetings list loads with it.
    await page.locator('#meeting[data-loaded-for]').waitFor({ state: 'attached' });
    expect(await page.textContent('#status')).not.toContain('Not logged in');
    await page.click('#keep-token');
    expect(await page.evaluate(() => localStorage.getItem('statsToken'))).toBe(TOKEN);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('Swagger UI and ReDoc render the generated document from the Worker’s own assets', async () => {
    const page = await browser.newPage();
    const external: string[] = [];
    page.on('requestfinished', (req) => {
      if (!/^(data:|blob:)/.test(req.url()) && !req.url().startsWith(worker.url)) external.push(req.url());
    });
    const sources = () =>
      page.evaluate(() => [
        ...[...document.scripts].map((s) => s.src).filter(Boolean),
        ...[...document.querySelectorAll<HTMLLinkElement>('link[rel=stylesheet]')].map((l) => l.href),
      ]);
    await page.goto(`${worker.url}/docs`);
    await page.getByText('/meetingStats').first().waitFor();
    const docsSources = await sources();
    await page.goto(`${worker.url}/redoc`);
    await page.getByText('Meeting statistics API').first().waitFor();
    const redocSources = [...(await sources()), ...docsSources];
    expect(redocSources.length).toBeGreaterThanOrEqual(3);
    for (const src of redocSources) expect(src.startsWith(`${worker.url}/assets/`), src).toBe(true);
    expect(external, external.join(', ')).toEqual([]);
    await page.close();
  });
});
