import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withClient } from '../../scripts/racing/pg-client';
import { writeXlsx } from '../../scripts/sheet-writers.ts';
import type { SheetCell } from '../../workers/migrate/src/imports/sheet/index.ts';
import { haveChromium } from '../support/browser';
import { MigrateBrowserApp, signIn, watchPage } from './migrate-support';

const SECTIONAL_HEADER = ['Date', 'Course', 'Race', 'Horse', 'Tab', 'Segment', 'Time'];
/** Plausible times for the runner's three segments (within SEGMENT_SECONDS). */
const VALID_TIMES: [segment: string, seconds: number][] = [
  ['L600', 35.42],
  ['L400', 23.18],
  ['L200', 11.64],
];
const UNKNOWN_HORSE = 'No Such Horse In This Race';

type Runner = { runner_id: number; date: string; course: string; race_number: number; horse: string; tab_number: number };

const racing = <T>(use: (query: <R>(text: string, values?: unknown[]) => Promise<R[]>) => Promise<T>) =>
  withClient(inject('racingDatabaseUrl'), (client) =>
    use(async <R>(text: string, values?: unknown[]) => (await client.query(text, values)).rows as R[]),
  );

/** The sectional-times import in Chromium: upload, preview with its problems, filter test, start, live progress to the end. */
describe.skipIf(!haveChromium)('sectional import in Chromium', () => {
  const harness = new MigrateBrowserApp();
  /** A runner that ran but has no sectional times yet: the rows this file inserts are all its. */
  let runner: Runner;

  beforeAll(async () => {
    await harness.start();
    // The last such runner, away from the one the migrate project's import tests take (the first).
    const [found] = await racing((query) =>
      query<Runner>(
        `SELECT ru.id AS runner_id, m.date::text AS date, c.name AS course, r.race_number, h.name AS horse, ru.tab_number
         FROM runners ru JOIN races r ON r.id = ru.race_id JOIN meetings m ON m.id = r.meeting_id JOIN courses c ON c.id = m.course_id JOIN horses h ON h.id = ru.horse_id
         WHERE NOT m.is_trial AND NOT ru.scratched AND ru.finishing_position IS NOT NULL AND ru.tab_number IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM sectional_times s WHERE s.runner_id = ru.id)
           AND (SELECT count(*) FROM runners x JOIN horses xh ON xh.id = x.horse_id WHERE x.race_id = r.id AND lower(xh.name) = lower(h.name)) = 1
           AND (SELECT count(*) FROM meetings xm JOIN courses xc ON xc.id = xm.course_id WHERE NOT xm.is_trial AND xm.date = m.date AND lower(xc.name) = lower(c.name)) = 1
         ORDER BY ru.id DESC LIMIT 1`,
      ),
    );
    expect(found, 'a runner without sectional times in the racing database').toBeTruthy();
    runner = {
      ...found!,
      runner_id: Number(found!.runner_id),
      race_number: Number(found!.race_number),
      tab_number: Number(found!.tab_number),
    };
  }, 180_000);

  afterAll(async () => {
    // The runner had no sectional times: it gets back to none, whatever the test got to.
    if (runner) await racing((query) => query('DELETE FROM sectional_times WHERE runner_id = $1', [runner.runner_id]));
    await harness.dispose();
  });

  it('previews a sheet with its bad rows, tests a filter, and imports the valid rows while the progress page updates itself', async () => {
    const { url } = harness;
    const u = runner;
    const rows: SheetCell[][] = [
      ...VALID_TIMES.map(([segment, seconds]): SheetCell[] => [u.date, u.course, u.race_number, u.horse, u.tab_number, segment, seconds]),
      [u.date, u.course, u.race_number, UNKNOWN_HORSE, u.tab_number, 'L600', 35.9],
      [u.date, u.course, u.race_number, u.horse, u.tab_number, 'L200', 3],
    ];
    // Sheet rows 2-4 are valid; row 5 names a horse that is not in the race, row 6 has an impossible time.
    const badLines = { unknownHorse: '5', badTime: '6' };
    const bytes = writeXlsx(SECTIONAL_HEADER, rows);

    const page = await harness.browser!.newPage();
    const { foreign, errors } = watchPage(page, url);
    await signIn(page, url);

    await page.goto(`${url}/Sectional`);
    const upload = page.locator('form[data-upload-form]');
    await upload.locator('input[name="excelFile"]').setInputFiles({
      name: 'sectionals.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      buffer: Buffer.from(bytes),
    });
    expect(await upload.locator('select[name="fk.runner"]').inputValue()).toBe('horse');
    await upload.locator('button[type="submit"]').click();

    // The preview: counts, problem kinds, and each bad row marked with its problem.
    await page.waitForURL(/\/Sectional\/Preview$/);
    const preview = page.locator('section[data-preview]');
    await preview.waitFor();
    expect(await preview.locator('[data-rows]').textContent()).toBe(String(rows.length));
    expect(await preview.locator('[data-valid]').textContent()).toBe(String(VALID_TIMES.length));
    expect(await preview.locator('[data-invalid]').textContent()).toBe('2');
    expect(
      (await preview.locator('[data-problem-kind]').evaluateAll((items) => items.map((li) => li.getAttribute('data-problem-kind')))).sort(),
    ).toEqual(['bad time', 'unknown horse']);
    const lines = preview.locator('[data-preview-rows] tr[data-line]');
    expect(await lines.count()).toBe(rows.length);
    for (const line of ['2', '3', '4']) expect(await preview.locator(`tr[data-line="${line}"]`).getAttribute('data-problems')).toBe('');
    const horseRow = preview.locator(`tr[data-line="${badLines.unknownHorse}"]`);
    expect(await horseRow.getAttribute('data-problems')).toBe('unknown horse');
    expect(await horseRow.getAttribute('class')).toBe('error');
    expect(await horseRow.textContent()).toContain(`${UNKNOWN_HORSE} is not a runner in race ${u.race_number}`);
    const timeRow = preview.locator(`tr[data-line="${badLines.badTime}"]`);
    expect(await timeRow.getAttribute('data-problems')).toBe('bad time');
    expect(await timeRow.getAttribute('class')).toBe('error');

    // The filter test counts the uploaded sheet's rows the filter keeps (valid or not), on the page.
    const start = preview.locator('form[data-start-form]');
    await start.locator('[data-filter]').fill("segment = 'L600'");
    await start.locator('[data-test-filter]').click();
    await expect.poll(() => start.locator('[data-filter-result]').textContent()).toBe('2 rows match');
    await start.locator('[data-filter]').fill('segment = ');
    await start.locator('[data-test-filter]').click();
    await expect.poll(() => start.locator('[data-filter-result]').textContent()).toMatch(/filter/i);
    const polls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/sectional/progress/')) polls.push(new URL(request.url()).pathname);
    });
    // Start without a filter: every valid row.
    await start.locator('[data-filter]').fill('');
    await start.locator('[data-start]').click();

    // The progress page polls its JSON route and shows the end without a reload.
    await page.waitForURL(/\/Sectional\/Progress\?jobId=[0-9a-f-]{36}$/);
    const jobId = new URL(page.url()).searchParams.get('jobId')!;
    const progress = page.locator(`section[data-import-progress="${jobId}"]`);
    await progress.waitFor();
    const arrivedIn = await progress.getAttribute('data-state');
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    await page.locator(`section[data-import-progress="${jobId}"][data-state="completed"]`).waitFor({ timeout: 60_000 });
    expect(await progress.locator('[data-import-state]').textContent()).toBe('completed');
    await progress.locator('[data-finished]').waitFor({ state: 'visible' });
    expect(await progress.locator('[data-summary-text]').textContent()).toBe(
      `${VALID_TIMES.length} inserted, 0 updated, 0 unchanged, 2 skipped.`,
    );
    expect(await progress.locator('[data-count="inserted"]').textContent()).toBe(String(VALID_TIMES.length));
    expect(await progress.locator('[data-count="skipped"]').textContent()).toBe('2');
    expect(await progress.locator('[data-count="filteredOut"]').textContent()).toBe('0');
    expect(await progress.locator('[data-processed]').textContent()).toBe(String(VALID_TIMES.length));
    expect(await progress.locator('[data-cancel-form]').count()).toBe(0);
    // The skipped rows are listed: sheet row, what it was, the problem.
    const skipped = await progress
      .locator('[data-problems] tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(skipped.map((cells) => cells[0]).sort()).toEqual([badLines.unknownHorse, badLines.badTime]);
    expect(skipped.find((cells) => cells[0] === badLines.unknownHorse)?.[2]).toContain(UNKNOWN_HORSE);
    expect(skipped.find((cells) => cells[0] === badLines.badTime)?.[2]).toMatch(/Time/);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // Unless the job had already ended when the page was served, the end came through the page's polling.
    if (!['completed', 'failed', 'cancelled'].includes(arrivedIn ?? '')) expect(polls).toContain(`/api/sectional/progress/${jobId}`);

    // What the racing database holds now: the three times, for that runner only.
    const written = await racing((query) =>
      query<{ segment: string; t: string }>(
        'SELECT segment, time_seconds::text AS t FROM sectional_times WHERE runner_id = $1 ORDER BY segment',
        [u.runner_id],
      ),
    );
    expect(written).toEqual(
      VALID_TIMES.map(([segment, seconds]) => ({ segment, t: seconds.toFixed(2) })).sort((a, b) => a.segment.localeCompare(b.segment)),
    );

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
