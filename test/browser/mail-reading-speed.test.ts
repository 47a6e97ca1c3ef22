import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, haveChromium } from '../support/browser';
import { pageProblems, phoneContext } from '../support/page-checks';
import { type MailClientRig, startMailClientRig } from './mail-client-support';

const OWNER = {
  email: 'reading-desk@example.com',
  password: 'browser-reading-password',
  totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  role: 'admin' as const,
};

// The promise: a clicked message's text on screen within 500 ms at the median and 1.5 s at p95 on
// the dev stack, with the rest of the test suite running beside it. `npm run bench -- mail-reading`
// asserts it (READING_BOUNDS=promised); in `npm test` the bounds are four times as wide, a check
// that reading has not broken or slowed by a different order, which holds on a busy machine too.
const PROMISED = process.env.READING_BOUNDS === 'promised';
const MEDIAN_BOUND_MS = PROMISED ? 500 : 2_000;
const P95_BOUND_MS = PROMISED ? 1_500 : 6_000;

interface ReadingMarks {
  clicks: number[];
  frames: { at: number; src: string }[];
}

/** The text of a message's body as shown: inside the sandboxed frame for HTML mail, else the text view. */
async function bodyTextShown(article: Locator): Promise<string> {
  const frame = article.locator('iframe[data-mail-frame]');
  if (await frame.count())
    return (
      (await frame
        .contentFrame()
        .locator('body')
        .textContent({ timeout: 50 })
        .catch(() => '')) ?? ''
    ).trim();
  return (
    (await article
      .locator('[data-body-text]')
      .textContent({ timeout: 50 })
      .catch(() => '')) ?? ''
  ).trim();
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * How long a message takes to open in /outlook: 20 clicks, each timed from the click to the
 * message's text on screen, while new mail arrives and the assistant works on it (webhook, the
 * mailbox object's queue: Graph reads, summaries, categories, suggested replies). The dev set-up:
 * the mailbox connects by itself (MAIL_DEV_AUTO_CONNECT), the offline model. The clock stops when
 * the body's own text is on screen (inside the sandboxed frame for HTML mail), not at the headers.
 * The bounds: see PROMISED above; the figures are printed (run with
 * `--silent=false` to see them; READING_NO_MAIL=1 reads without new mail arriving, to compare).
 */
describe.skipIf(!haveChromium)('reading mail in /outlook', () => {
  let rig: MailClientRig;
  let mail: RunningWorker;
  let browser: Browser;

  beforeAll(async () => {
    // as `npm run dev`: the stand-in's mailbox connects by itself
    rig = await startMailClientRig('mail-reading', OWNER, { vars: { MAIL_DEV_AUTO_CONNECT: 'true' }, mailboxes: false });
    ({ mail, browser } = rig);
  }, 120_000);

  afterAll(() => rig?.close());

  it('the first visit finds the mailbox connected; 20 messages open quickly while new mail is processed', async () => {
    // bypassCSP: the page checks inject axe-core
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await rig.logIn(page);

    // the first page after signing in is the mail client, with the mailbox connected already
    await page.waitForURL(`${mail.url}/outlook`);
    const messages = page.locator('[data-messages] li[role="option"]');
    await messages.first().waitFor();
    expect(page.url()).toBe(`${mail.url}/outlook`);
    expect(await messages.count()).toBeGreaterThanOrEqual(20);
    expect(await pageProblems(page)).toEqual([]);
    const phone = await phoneContext(browser, { bypassCSP: true, storageState: await context.storageState() });
    const small = await phone.newPage();
    await small.goto(`${mail.url}/outlook`);
    await small.locator('[data-messages] li[role="option"]').first().waitFor();
    expect(await pageProblems(small)).toEqual([]);
    await phone.close();

    // a Category in draft mode, so new mail gets the whole assistant treatment
    const csrf = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const created = await page.evaluate(
      async ([token]) =>
        (
          await fetch('/api/admin/categories', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-csrf-token': token! },
            body: JSON.stringify({ name: 'Entries', rule: 'nomination entry race acceptance', reply_mode: 'draft' }),
          })
        ).status,
      [csrf],
    );
    expect(created).toBe(201);

    // new mail keeps arriving while the messages are read: webhook → queue → Graph, model, D1
    let delivering = true;
    const deliveries = (async () => {
      for (let n = 0; delivering && n < (process.env.READING_NO_MAIL ? 0 : 20); n++) {
        await fetch(`${rig.standin.url}/_standin/deliver`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            count: 3,
            subject: `Nomination ${n}`,
            body: 'Please accept the nomination for race 4 on Saturday. The entry fee is paid.',
            from: { name: 'Trainer', address: 'trainer@stables.test' },
          }),
        });
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
    })();

    // The browser's own clock: the click on a list item, the load of the current message's frame
    // (its body drawn), and the requests between (the driver's round trips are not counted).
    await page.evaluate(() => {
      const marks: ReadingMarks = { clicks: [], frames: [] };
      (window as unknown as { __reading: ReadingMarks }).__reading = marks;
      document.addEventListener(
        'click',
        (e) => (e.target as Element).closest?.('[data-messages] li') && marks.clicks.push(performance.now()),
        true,
      );
      document.addEventListener(
        'load',
        (e) => {
          const t = e.target;
          if (t instanceof HTMLIFrameElement && t.matches('article.message.current iframe[data-mail-frame]'))
            marks.frames.push({ at: performance.now(), src: t.src });
        },
        true,
      );
    });
    const times: number[] = [];
    const split: string[] = [];
    const reader = page.locator('[data-reader]');
    for (let i = 0; i < 20; i++) {
      // the list as loaded at first: new mail shows when it is reloaded, not under the pointer
      // (the list is drawn again after each message is marked read: the locator finds the item anew)
      const item = messages.nth(i);
      const started = performance.now();
      await item.click();
      // opening replaces the pane at once ("Loading…"): the message shown next is the one clicked
      const article = reader.locator('article.message.current');
      await article.waitFor({ state: 'visible', timeout: 30_000 });
      // the message's own text: an HTML body's inside its sandboxed frame, once the frame has loaded
      await expect.poll(async () => (await bodyTextShown(article)).length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
      const driver = performance.now() - started;
      const src = await article
        .locator('iframe[data-mail-frame]')
        .getAttribute('src', { timeout: 50 })
        .catch(() => null);
      const inPage = await page.evaluate((frameSrc) => {
        const marks = (window as unknown as { __reading: ReadingMarks }).__reading;
        const click = marks.clicks.at(-1)!;
        const frame = frameSrc ? marks.frames.find((f) => f.at > click && f.src.endsWith(frameSrc)) : undefined;
        const request = (part: string) =>
          performance.getEntriesByType('resource').find((r) => r.startTime >= click && r.name.includes(part)) as
            | PerformanceResourceTiming
            | undefined;
        const thread = request('/api/thread/');
        const html = request('/html');
        return {
          total: frame ? frame.at - click : undefined,
          // click → thread asked; the thread's request; its answer → the frame asked; the frame's request; its answer → loaded
          parts:
            thread && html && frame
              ? [
                  thread.startTime - click,
                  thread.duration,
                  html.startTime - thread.responseEnd,
                  html.duration,
                  frame.at - html.responseEnd,
                ].map((ms) => Math.round(ms))
              : undefined,
        };
      }, src);
      // an HTML body: click to its frame loaded; a text body: as the driver saw it
      times.push(inPage.total ?? driver);
      split.push(`${(inPage.total ?? driver).toFixed(0)}${inPage.parts ? ` (${inPage.parts.join('+')})` : ''}`);
    }
    delivering = false;
    await deliveries;

    const sorted = [...times].sort((a, b) => a - b);
    const median = percentile(sorted, 50);
    const p95 = percentile(sorted, 95);
    console.log(
      `reading speed, 20 messages, click to the body's text: median ${median.toFixed(0)} ms (bound ${MEDIAN_BOUND_MS} ms), p95 ${p95.toFixed(0)} ms (bound ${P95_BOUND_MS} ms), max ${sorted.at(-1)!.toFixed(0)} ms; each as click→thread asked + thread request + →frame asked + frame request + →frame loaded: ${split.join(', ')}`,
    );
    expect(median).toBeLessThan(MEDIAN_BOUND_MS);
    expect(p95).toBeLessThan(P95_BOUND_MS);
    await context.close();
  }, 180_000);
});
