import { createExecutionContext, createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { servicesOf } from '../../workers/migrate/src/context';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { runAutoSyncSchedule } from '../../workers/migrate/src/imports/auto-sync';
import type { ImportProgress } from '../../workers/migrate/src/imports/jobs';
import { writeCsv, writeXlsx } from '../../scripts/sheet-writers.ts';
import type { SheetCell } from '../../workers/migrate/src/imports/sheet/index.ts';
import worker from '../../workers/migrate/src/index';
import { openRacing } from './engine-support';
import { type Client, signIn } from './helpers';
import { rowsAs } from './rows-as';

const FINAL = ['completed', 'failed', 'cancelled'];
const TRIAL_HEADER = ['Date', 'Course', 'Heat', 'Distance', 'Horse', 'Jockey', 'Trainer', 'Barrier', 'Position', 'Margin', 'Time'];
const SECTIONAL_HEADER = ['Date', 'Course', 'Race', 'Horse', 'Tab', 'Segment', 'Time'];

let admin: Client;
let operator: Client;
let viewer: Client;
let racing: Sql;
/** Ids above these were added by this file (removed again afterwards). */
let maxTrialRun = 0;
let maxSectional = 0;

type TrialRow = {
  date: string;
  course: string;
  heat_number: number;
  distance: number;
  horse: string;
  jockey: string | null;
  trainer: string;
  barrier: number;
  finishing_position: number;
  margin: string;
  time_seconds: string;
};
type SectionalRow = {
  id: number;
  date: string;
  course: string;
  race_number: number;
  horse: string;
  tab_number: number;
  segment: string;
  time_seconds: string;
};

let trials: TrialRow[] = [];
let sectionals: SectionalRow[] = [];
/** A runner that ran but has no sectional times yet. */
let untimed: { date: string; course: string; race_number: number; horse: string; tab_number: number; runner_id: number } | null = null;

beforeAll(async () => {
  [admin, operator, viewer] = await Promise.all([signIn('importAdmin'), signIn('importOperator'), signIn('importViewer')]);
  await Promise.all([admin.page('/BarrierTrials'), operator.page('/BarrierTrials'), viewer.page('/BarrierTrials')]);
  racing = openRacing();
  const [ids] = await rowsAs<{ t: number; s: number }>(
    racing,
    'SELECT (SELECT coalesce(max(id), 0) FROM trial_runs)::int AS t, (SELECT coalesce(max(id), 0) FROM sectional_times)::int AS s',
  );
  maxTrialRun = ids!.t;
  maxSectional = ids!.s;
  // One trial meeting's runs whose horse, trainer and jockey names are each one racing-database row.
  trials = await rowsAs<TrialRow>(
    racing,
    `WITH unique_names AS (SELECT lower(name) AS n FROM horses GROUP BY 1 HAVING count(*) = 1),
          unique_trainers AS (SELECT lower(name) AS n FROM trainers GROUP BY 1 HAVING count(*) = 1),
          unique_jockeys AS (SELECT lower(name) AS n FROM jockeys GROUP BY 1 HAVING count(*) = 1),
          m AS (SELECT m.id FROM meetings m WHERE m.is_trial AND (SELECT count(*) FROM trial_runs t WHERE t.meeting_id = m.id) >= 6 ORDER BY m.date DESC, m.id LIMIT 1)
     SELECT m.date::text AS date, c.name AS course, t.heat_number, t.distance, h.name AS horse, j.name AS jockey, tr.name AS trainer, t.barrier,
            t.finishing_position, t.margin::text AS margin, t.time_seconds::text AS time_seconds
     FROM trial_runs t JOIN meetings m ON m.id = t.meeting_id JOIN courses c ON c.id = m.course_id JOIN horses h ON h.id = t.horse_id
     JOIN trainers tr ON tr.id = t.trainer_id LEFT JOIN jockeys j ON j.id = t.jockey_id
     WHERE t.meeting_id = (SELECT id FROM m) AND lower(h.name) IN (SELECT n FROM unique_names) AND lower(tr.name) IN (SELECT n FROM unique_trainers)
       AND (j.id IS NULL OR lower(j.name) IN (SELECT n FROM unique_jockeys))
     ORDER BY t.heat_number, t.finishing_position LIMIT 6`,
  );
  expect(trials.length).toBeGreaterThanOrEqual(4);
  sectionals = await rowsAs<SectionalRow>(
    racing,
    `SELECT s.id, m.date::text AS date, c.name AS course, r.race_number, h.name AS horse, ru.tab_number, s.segment, s.time_seconds::text AS time_seconds
     FROM sectional_times s JOIN runners ru ON ru.id = s.runner_id JOIN races r ON r.id = ru.race_id JOIN meetings m ON m.id = r.meeting_id
     JOIN courses c ON c.id = m.course_id JOIN horses h ON h.id = ru.horse_id
     WHERE r.id = (SELECT ru2.race_id FROM sectional_times s2 JOIN runners ru2 ON ru2.id = s2.runner_id ORDER BY s2.id LIMIT 1)
     ORDER BY ru.tab_number, s.segment LIMIT 6`,
  );
  expect(sectionals.length).toBe(6);
  untimed =
    (
      await rowsAs<NonNullable<typeof untimed>>(
        racing,
        `SELECT m.date::text AS date, c.name AS course, r.race_number, h.name AS horse, ru.tab_number, ru.id AS runner_id
     FROM runners ru JOIN races r ON r.id = ru.race_id JOIN meetings m ON m.id = r.meeting_id JOIN courses c ON c.id = m.course_id JOIN horses h ON h.id = ru.horse_id
     WHERE NOT ru.scratched AND ru.finishing_position IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sectional_times s WHERE s.runner_id = ru.id)
       AND (SELECT count(*) FROM runners x WHERE x.race_id = r.id AND lower((SELECT name FROM horses WHERE id = x.horse_id)) = lower(h.name)) = 1
     ORDER BY ru.id LIMIT 1`,
      )
    )[0] ?? null;
  expect(untimed).toBeTruthy();
});

afterAll(async () => {
  // The shared racing database gets back what this file changed.
  await racing?.query('DELETE FROM trial_runs WHERE id > $1', [maxTrialRun]);
  await racing?.query('DELETE FROM sectional_times WHERE id > $1', [maxSectional]);
  for (const s of sectionals) await racing?.query('UPDATE sectional_times SET time_seconds = $1 WHERE id = $2', [s.time_seconds, s.id]);
  await racing?.end();
});

const trialCells = (t: TrialRow): SheetCell[] => [
  t.date,
  t.course,
  t.heat_number,
  t.distance,
  t.horse,
  t.jockey,
  t.trainer,
  t.barrier,
  t.finishing_position,
  Number(t.margin),
  Number(t.time_seconds),
];

/** POSTs a multipart form with a file (and the page's anti-forgery token). */
function upload(
  client: Client,
  path: string,
  file: { name: string; bytes: Uint8Array | string; type?: string } | null,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  form.append('__RequestVerificationToken', client.csrf);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('excelFile', new File([file.bytes], file.name, { type: file.type ?? 'application/octet-stream' }));
  return client.fetch(path, { method: 'POST', body: form });
}

const tempPathIn = (html: string) => /name="tempPath" value="([^"]+)"/.exec(html)?.[1];
const errorOf = (res: Response) => new URL(res.headers.get('location')!, 'https://x').searchParams.get('error') ?? '';

async function progress(client: Client, prefix: string, jobId: string): Promise<ImportProgress> {
  const res = await client.get(`${prefix}/progress/${jobId}`);
  expect(res.status).toBe(200);
  return res.json<ImportProgress>();
}

async function untilFinished(client: Client, prefix: string, jobId: string): Promise<ImportProgress> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const p = await progress(client, prefix, jobId);
    if (FINAL.includes(p.state)) return p;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still ${p.state}: ${JSON.stringify(p.log.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Preview then Start with the preview's tempPath: the finished job. */
async function importSheet(
  client: Client,
  area: string,
  prefix: string,
  file: { name: string; bytes: Uint8Array | string },
  fields: Record<string, string> = {},
) {
  const preview = await upload(client, `/${area}/Preview`, file, fields);
  const html = await preview.text();
  expect(preview.status, preview.headers.get('location') ?? html.slice(0, 300)).toBe(200);
  const tempPath = tempPathIn(html)!;
  const start = await client.post(`/${area}/Start`, { tempPath, ...fields });
  expect(start.status).toBe(302);
  const location = start.headers.get('location')!;
  expect(location).toMatch(new RegExp(`^/${area}/Progress\\?jobId=[0-9a-f-]{36}$`));
  const jobId = new URL(location, 'https://x').searchParams.get('jobId')!;
  return { html, jobId, done: await untilFinished(client, prefix, jobId) };
}

describe('barrier trials', () => {
  it('previews every row with its problems, then imports only the valid ones; the same sheet again changes nothing', async () => {
    const [first, second, ...rest] = trials as [TrialRow, TrialRow, ...TrialRow[]];
    const rows: SheetCell[][] = [
      trialCells(first),
      // A changed time: updated.
      [...trialCells(second).slice(0, 10), Number(second.time_seconds) + 1],
      ...rest.map(trialCells),
      // A new run in a heat this meeting does not have: inserted.
      [first.date, first.course, 29, 1000, second.horse, null, second.trainer, 3, 1, 0, '1:01.50'],
      // Problems, one each: unknown horse, unknown meeting, bad time, duplicate, bad date.
      [first.date, first.course, first.heat_number, first.distance, 'No Such Horse Anywhere', null, first.trainer, 1, 1, 0, 60.1],
      [first.date, 'Nowhere Downs', first.heat_number, first.distance, first.horse, null, first.trainer, 1, 1, 0, 60.1],
      [first.date, first.course, 28, first.distance, first.horse, null, first.trainer, 1, 1, 0, 'fast'],
      trialCells(first),
      ['31/02/2026', first.course, 27, first.distance, first.horse, null, first.trainer, 1, 1, 0, 60.1],
    ];
    const bytes = writeXlsx(TRIAL_HEADER, rows);
    const { html, done } = await importSheet(operator, 'BarrierTrials', '/api/barriertrials', { name: 'trials.xlsx', bytes });
    // The preview: counts and each bad row's problem.
    expect(html).toContain(`data-valid="true">${rest.length + 3}<`);
    expect(html).toContain('data-invalid="true">5<');
    for (const kind of ['unknown horse', 'unknown meeting', 'bad time', 'duplicate', 'bad date'])
      expect(html).toContain(`data-problem-kind="${kind}"`);
    expect(html).toContain('There is no horse named &quot;No Such Horse Anywhere&quot;');

    expect(done.state).toBe('completed');
    expect({ inserted: done.inserted, updated: done.updated, unchanged: done.unchanged, skipped: done.skipped }).toEqual({
      inserted: 1,
      updated: 1,
      unchanged: rest.length + 1,
      skipped: 5,
    });
    expect(done.summary.problems.map((p) => p.kind).sort()).toEqual([
      'bad date',
      'bad time',
      'duplicate',
      'unknown horse',
      'unknown meeting',
    ]);
    const [inserted] = await rowsAs<{ n: number }>(racing, 'SELECT count(*)::int AS n FROM trial_runs WHERE id > $1 AND heat_number = 29', [
      maxTrialRun,
    ]);
    expect(inserted!.n).toBe(1);

    // Re-importing the same sheet (as CSV this time) writes nothing.
    const csv = writeCsv(TRIAL_HEADER, rows);
    const again = await importSheet(operator, 'BarrierTrials', '/api/barriertrials', { name: 'trials.csv', bytes: csv });
    expect({
      inserted: again.done.inserted,
      updated: again.done.updated,
      unchanged: again.done.unchanged,
      skipped: again.done.skipped,
    }).toEqual({ inserted: 0, updated: 0, unchanged: rest.length + 3, skipped: 5 });
  });

  it('applies the filter and the foreign-key choices of Start', async () => {
    const [first] = trials as [TrialRow];
    const [ids] = await rowsAs<{ horse: number; trainer: number }>(
      racing,
      'SELECT (SELECT id FROM horses WHERE name = $1)::int AS horse, (SELECT id FROM trainers WHERE name = $2)::int AS trainer',
      [first.horse, first.trainer],
    );
    const rows: SheetCell[][] = [
      [first.date, first.course, 26, 900, String(ids!.horse), null, String(ids!.trainer), 2, 2, 1.5, 55.25],
      [first.date, first.course, 25, 900, String(ids!.horse), null, String(ids!.trainer), 2, 2, 1.5, 55.25],
    ];
    const fields = { 'fk.horse': 'id', 'fk.trainer': 'id', 'fk.jockey': 'ignore', filter: 'heat = 26' };
    const { done } = await importSheet(
      operator,
      'BarrierTrials',
      '/api/barriertrials',
      { name: 'ids.csv', bytes: writeCsv(TRIAL_HEADER, rows) },
      fields,
    );
    expect(done.state).toBe('completed');
    expect(done.inserted).toBe(1);
    expect(done.summary.filteredOut).toBe(1);
    expect(done.summary.foreignKeys).toEqual({ horse: 'id', trainer: 'id', jockey: 'ignore' });
    // By name, the ids are unknown horses.
    const byName = await upload(operator, '/BarrierTrials/Preview', { name: 'ids.csv', bytes: writeCsv(TRIAL_HEADER, rows) });
    expect(await byName.text()).toContain('data-problem-kind="unknown horse"');
  });

  it('refuses unusable sheets on the page with a clear message and stores nothing', async () => {
    const cases: [string, { name: string; bytes: Uint8Array | string } | null, RegExp][] = [
      ['no file', null, /Choose a spreadsheet/],
      ['empty', { name: 'empty.csv', bytes: '' }, /empty/i],
      ['wrong columns', { name: 'cols.csv', bytes: 'Name,Colour\nA,B\n' }, /no "Date", "Course"/],
      ['header only', { name: 'head.csv', bytes: `${TRIAL_HEADER.join(',')}\n` }, /no data rows/],
      [
        'a PNG',
        { name: 'x.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) },
        /not an \.xlsx or \.csv/,
      ],
      ['a formula', { name: 'f.csv', bytes: `${TRIAL_HEADER.join(',')}\n2026-01-01,X,1,1000,=HYPERLINK("x"),,T,1,1,0,60\n` }, /formula/i],
    ];
    const [{ n: before }] = (await env.DB.prepare('SELECT count(*) AS n FROM import_uploads').all<{ n: number }>()).results as [
      { n: number },
    ];
    for (const [label, file, message] of cases) {
      const res = await upload(operator, '/BarrierTrials/Preview', file);
      expect(res.status, label).toBe(302);
      expect(res.headers.get('location'), label).toMatch(/^\/BarrierTrials\?error=/);
      expect(errorOf(res), label).toMatch(message);
    }
    const [{ n: after }] = (await env.DB.prepare('SELECT count(*) AS n FROM import_uploads').all<{ n: number }>()).results as [
      { n: number },
    ];
    expect(after).toBe(before);
    // The message shows on the page the redirect leads to.
    const res = await upload(operator, '/BarrierTrials/Preview', { name: 'head.csv', bytes: `${TRIAL_HEADER.join(',')}\n` });
    const page = await operator.page(res.headers.get('location')!);
    expect(page.html).toContain('data-error');
    expect(page.html).toContain('no data rows');
  });

  it('refuses a file past the size limit before reading it, with the message on the page', async () => {
    const big = new Uint8Array(21 * 1024 * 1024).fill(0x41);
    const res = await upload(operator, '/BarrierTrials/Preview', { name: 'big.csv', bytes: big });
    expect(res.status).toBe(302);
    expect(errorOf(res)).toMatch(/larger than 20 MB/);
  });

  it('refuses a Start with an unknown tempPath or a bad filter, starting nothing', async () => {
    const unknown = await operator.post('/BarrierTrials/Start', { tempPath: `tmp/BarrierTrials/${crypto.randomUUID()}/x.csv` });
    expect(unknown.status).toBe(302);
    expect(errorOf(unknown)).toMatch(/unknown or expired/);
    const other = await operator.post('/BarrierTrials/Start', { tempPath: '../../etc/passwd' });
    expect(errorOf(other)).toMatch(/unknown or expired/);
    const preview = await upload(operator, '/BarrierTrials/Preview', {
      name: 't.csv',
      bytes: writeCsv(TRIAL_HEADER, [trialCells(trials[0]!)]),
    });
    const tempPath = tempPathIn(await preview.text())!;
    const bad = await operator.post('/BarrierTrials/Start', { tempPath, filter: 'heat = ' });
    expect(errorOf(bad)).toMatch(/filter/);
    // A Sectional Start cannot take a BarrierTrials upload.
    const cross = await operator.post('/Sectional/Start', { tempPath });
    expect(errorOf(cross)).toMatch(/unknown or expired/);
  });

  it('answers livecounts and testfilter', async () => {
    const counts = await viewer.get('/api/barriertrials/livecounts');
    expect(counts.status).toBe(200);
    const body = await counts.json<{
      sourceRowCount: number;
      destinationCounts: Record<string, number>;
      fkMappingCounts: Record<string, number>;
    }>();
    expect(body.sourceRowCount).toBeGreaterThan(0);
    expect(body.destinationCounts.trial_runs).toBeGreaterThan(0);
    expect(Object.keys(body.fkMappingCounts)).toEqual(expect.arrayContaining(['meeting', 'horse', 'trainer']));
    const ok = await viewer.get(`/api/barriertrials/testfilter?filter=${encodeURIComponent('heat >= 1')}`);
    expect(await ok.json()).toEqual({ success: true, count: expect.any(Number) });
    const bad = await viewer.get(`/api/barriertrials/testfilter?filter=${encodeURIComponent('colour = 1')}`);
    expect(await bad.json()).toEqual({ success: false, error: expect.stringMatching(/colour/) });
  });
});

describe('sectional times', () => {
  it('imports new and changed times, skips bad rows and is idempotent', async () => {
    const [a, b, ...rest] = sectionals as [SectionalRow, SectionalRow, ...SectionalRow[]];
    const u = untimed!;
    const row = (s: SectionalRow, time = Number(s.time_seconds)): SheetCell[] => [
      s.date,
      s.course,
      s.race_number,
      s.horse,
      s.tab_number,
      s.segment,
      time,
    ];
    const rows: SheetCell[][] = [
      row(a),
      row(b, Number(b.time_seconds) + 0.5),
      ...rest.map((s) => row(s)),
      [u.date, u.course, u.race_number, u.horse, u.tab_number, 'L600', 35.1],
      [u.date, u.course, u.race_number, u.horse, u.tab_number, '400', 23.02],
      [u.date, u.course, 29, u.horse, u.tab_number, 'L200', 11.5],
      [u.date, u.course, u.race_number, 'Not In This Race', u.tab_number, 'L200', 11.5],
      [u.date, u.course, u.race_number, u.horse, u.tab_number, 'L200', 3],
      [u.date, u.course, u.race_number, u.horse, u.tab_number, 'L900', 11.5],
    ];
    const { done } = await importSheet(operator, 'Sectional', '/api/sectional', {
      name: 'sectionals.xlsx',
      bytes: writeXlsx(SECTIONAL_HEADER, rows),
    });
    expect(done.state).toBe('completed');
    expect({ inserted: done.inserted, updated: done.updated, unchanged: done.unchanged, skipped: done.skipped }).toEqual({
      inserted: 2,
      updated: 1,
      unchanged: rest.length + 1,
      skipped: 4,
    });
    expect(done.summary.problems.map((p) => p.kind).sort()).toEqual(['bad segment', 'bad time', 'unknown horse', 'unknown race']);
    const times = await rowsAs<{ segment: string; t: string }>(
      racing,
      'SELECT segment, time_seconds::text AS t FROM sectional_times WHERE runner_id = $1 ORDER BY segment',
      [u.runner_id],
    );
    expect(times).toEqual([
      { segment: 'L400', t: '23.02' },
      { segment: 'L600', t: '35.10' },
    ]);
    const again = await importSheet(operator, 'Sectional', '/api/sectional', {
      name: 'sectionals.xlsx',
      bytes: writeXlsx(SECTIONAL_HEADER, rows),
    });
    expect({ inserted: again.done.inserted, updated: again.done.updated, unchanged: again.done.unchanged }).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: rest.length + 4,
    });
  });

  it('matches runners by tab number when asked', async () => {
    const u = untimed!;
    const rows: SheetCell[][] = [[u.date, u.course, u.race_number, u.tab_number, 'L200', 11.62]];
    const { done } = await importSheet(
      operator,
      'Sectional',
      '/api/sectional',
      { name: 'tabs.csv', bytes: writeCsv(['Date', 'Course', 'Race', 'Tab', 'Segment', 'Time'], rows) },
      { 'fk.runner': 'tab' },
    );
    expect(done.inserted).toBe(1);
  });
});

describe('cancel, progress and roles', () => {
  it('answers 404 for an unknown job, and 400 for a job id that is not a GUID', async () => {
    expect((await viewer.get(`/api/sectional/progress/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await viewer.get('/api/sectional/progress/nope')).status).toBe(400);
    expect((await viewer.get(`/Sectional/Progress?jobId=${crypto.randomUUID()}`)).status).toBe(404);
    expect((await viewer.get('/Sectional/Progress')).status).toBe(400);
  });

  it('keeps a job of one area out of the other', async () => {
    const { jobId } = await importSheet(operator, 'Sectional', '/api/sectional', {
      name: 's.csv',
      bytes: writeCsv(SECTIONAL_HEADER, [
        [
          sectionals[0]!.date,
          sectionals[0]!.course,
          sectionals[0]!.race_number,
          sectionals[0]!.horse,
          null,
          sectionals[0]!.segment,
          Number(sectionals[0]!.time_seconds),
        ],
      ]),
    });
    expect((await viewer.get(`/api/barriertrials/progress/${jobId}`)).status).toBe(404);
    const page = await viewer.page(`/Sectional/Progress?jobId=${jobId}`);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('data-import-state="true">completed<');
    // Cancelling a finished job changes nothing.
    const cancel = await operator.post('/Sectional/Cancel', { jobId });
    expect(cancel.status).toBe(302);
    expect((await progress(viewer, '/api/sectional', jobId)).state).toBe('completed');
  });

  it('lets a Viewer read but not upload, start, cancel, clear or change the auto-sync', async () => {
    expect((await viewer.get('/BarrierTrials')).status).toBe(200);
    expect((await upload(viewer, '/BarrierTrials/Preview', { name: 'a.csv', bytes: 'a' })).status).toBe(403);
    expect((await viewer.post('/BarrierTrials/Start', { tempPath: 'x' })).status).toBe(403);
    expect((await viewer.post('/BarrierTrials/Cancel', { jobId: crypto.randomUUID() })).status).toBe(403);
    expect((await viewer.post('/BarrierTrials/ClearData')).status).toBe(403);
    expect((await operator.post('/BarrierTrials/ClearData')).status).toBe(403);
    expect((await viewer.get('/BarrierTrials/AutoSync')).status).toBe(403);
    expect((await viewer.postJson('/api/barriertrials/autosync/toggle', {})).status).toBe(403);
    expect((await viewer.postJson('/api/sectional/autosync/run-now', {})).status).toBe(403);
  });

  it('checks anti-forgery on every POST, the JSON ones included', async () => {
    expect((await operator.post('/BarrierTrials/Start', { tempPath: 'x' }, { csrf: false })).status).toBe(403);
    expect((await operator.postJson('/api/barriertrials/autosync/toggle', {}, { csrf: false })).status).toBe(403);
    expect((await operator.postJson('/api/barriertrials/autosync/run-now', {}, { csrf: false })).status).toBe(403);
    expect((await admin.post('/Sectional/ClearData', {}, { csrf: false })).status).toBe(403);
  });
});

describe('auto-sync', () => {
  const services = () => servicesOf(env);

  it('saves settings with a sheet, toggles, runs now and on the schedule, never overlapping', async () => {
    const [first] = trials as [TrialRow];
    const sheet = writeCsv(TRIAL_HEADER, [trialCells(first)]);
    const saved = await upload(
      operator,
      '/BarrierTrials/SaveAutoSync',
      { name: 'auto.csv', bytes: sheet },
      { enabled: 'true', intervalMinutes: '15', 'fk.horse': 'name', 'fk.trainer': 'name', 'fk.jockey': 'name', filter: '' },
    );
    expect(saved.status).toBe(302);
    expect(saved.headers.get('location')).toBe('/BarrierTrials/AutoSync?saved=1');
    const page = await operator.page('/BarrierTrials/AutoSync');
    expect(page.html).toContain('data-enabled="true">yes<');
    expect(page.html).toContain('1 rows: 1 to import');
    const row = await env.DB.prepare("SELECT * FROM import_auto_syncs WHERE area = 'BarrierTrials'").first<{
      next_run_at: number;
      interval_minutes: number;
    }>();
    expect(row!.interval_minutes).toBe(15);

    const off = await operator.postJson('/api/barriertrials/autosync/toggle', {});
    expect(await off.json()).toEqual({ enabled: false, nextRunAt: null });
    const on = await operator.postJson('/api/barriertrials/autosync/toggle', {});
    const onBody = await on.json<{ enabled: boolean; nextRunAt: number }>();
    expect(onBody.enabled).toBe(true);
    expect(onBody.nextRunAt).toBeGreaterThan(Date.now() + 14 * 60_000);

    // Not due yet: nothing starts.
    expect((await runAutoSyncSchedule(services(), onBody.nextRunAt - 1)).started).toEqual([]);
    // Due: the Cron Trigger's handler starts it; the job is recorded on the auto-sync.
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: onBody.nextRunAt, cron: '* * * * *' }), env, ctx);
    const started = await env.DB.prepare("SELECT * FROM import_auto_syncs WHERE area = 'BarrierTrials'").first<{
      last_job_id: string;
      next_run_at: number;
      last_run_at: number;
    }>();
    expect(started!.last_job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(started!.last_run_at).toBe(onBody.nextRunAt);
    expect(started!.next_run_at).toBe(onBody.nextRunAt + 15 * 60_000);
    const done = await untilFinished(viewer, '/api/barriertrials', started!.last_job_id);
    expect(done.summary.trigger).toBe('auto-sync');
    expect(done.unchanged).toBe(1);

    // Run now: a job; while it is marked running, neither run-now nor the schedule starts another.
    const now = await operator.postJson('/api/barriertrials/autosync/run-now', {});
    expect(now.status).toBe(200);
    const { message, jobId } = await now.json<{ message: string; jobId: string }>();
    expect(message).toContain(jobId);
    await untilFinished(viewer, '/api/barriertrials', jobId);
    // Two at once: one job starts, the other is refused naming it.
    const pair = await Promise.all([
      operator.postJson('/api/barriertrials/autosync/run-now', {}),
      operator.postJson('/api/barriertrials/autosync/run-now', {}),
    ]);
    expect(pair.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = await pair.find((r) => r.status === 200)!.json<{ jobId: string }>();
    const refused = await pair.find((r) => r.status === 409)!.json<{ error: string; message: string; jobId: string }>();
    expect(refused).toMatchObject({ error: 'already_running', jobId: winner.jobId });
    expect(refused.message).toContain(winner.jobId);
    await untilFinished(viewer, '/api/barriertrials', winner.jobId);
    await env.DB.prepare("UPDATE import_auto_syncs SET last_status = 'running', last_job_id = ? WHERE area = 'BarrierTrials'")
      .bind(crypto.randomUUID())
      .run();
    expect((await operator.postJson('/api/barriertrials/autosync/run-now', {})).status).toBe(409);
    const later = started!.next_run_at + 60_000;
    expect((await runAutoSyncSchedule(services(), later)).skipped).toEqual(['BarrierTrials']);
    await env.DB.prepare("UPDATE import_auto_syncs SET last_status = 'completed' WHERE area = 'BarrierTrials'").run();
  });

  it('records a failing fetch as a visible error and keeps the schedule', async () => {
    const saved = await upload(operator, '/Sectional/SaveAutoSync', null, {
      enabled: 'true',
      intervalMinutes: '5',
      sourceUrl: 'https://sheets.invalid/sectionals.csv',
      'fk.runner': 'horse',
    });
    expect(saved.status).toBe(302);
    const row = await env.DB.prepare("SELECT next_run_at FROM import_auto_syncs WHERE area = 'Sectional'").first<{ next_run_at: number }>();
    const report = await runAutoSyncSchedule(services(), row!.next_run_at);
    expect(report.started).toEqual(['Sectional']);
    const jobId = (await env.DB.prepare("SELECT last_job_id FROM import_auto_syncs WHERE area = 'Sectional'").first<{
      last_job_id: string;
    }>())!.last_job_id;
    const done = await untilFinished(viewer, '/api/sectional', jobId);
    expect(done.state).toBe('failed');
    expect(done.log.map((l) => l.message).join('\n')).toContain('Fetching https://sheets.invalid/sectionals.csv failed');
    const page = await operator.page('/Sectional/AutoSync');
    expect(page.html).toContain('data-last-error');
    expect(page.html).toContain('sheets.invalid');
    const after = await env.DB.prepare("SELECT enabled, next_run_at FROM import_auto_syncs WHERE area = 'Sectional'").first<{
      enabled: number;
      next_run_at: number;
    }>();
    expect(after!.enabled).toBe(1);
    expect(after!.next_run_at).toBe(row!.next_run_at + 5 * 60_000);
    // Switch it off again for the other files.
    await operator.postJson('/api/sectional/autosync/toggle', {});
  });

  it('refuses bad settings without saving them', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ intervalMinutes: '1' }, /interval/],
      [{ intervalMinutes: 'x' }, /interval/],
      [{ sourceUrl: 'http://plain.example/x.csv' }, /https/],
      [{ sourceUrl: 'https://sheets.example/x\u0000.csv' }, /https/],
      [{ 'fk.runner': 'guess' }, /foreign-key/],
      [{ filter: 'segment in (' }, /filter/],
    ];
    for (const [fields, message] of cases) {
      const res = await upload(operator, '/Sectional/SaveAutoSync', null, { intervalMinutes: '30', ...fields });
      expect(res.status).toBe(302);
      expect(errorOf(res), JSON.stringify(fields)).toMatch(message);
    }
    const res = await operator.postJson('/api/sectional/autosync/run-now', {});
    expect([200, 409]).toContain(res.status);
    // The job it started (or the one running) ends before the next test starts one of its own.
    await untilFinished(viewer, '/api/sectional', (await res.json<{ jobId: string }>()).jobId);
  });

  it('holds a sheet address to MIGRATE_SHEET_HOSTS: refused on save, never fetched by a run; an allowed one is fetched and imported', async () => {
    const row = () =>
      env.DB.prepare("SELECT source_url FROM import_auto_syncs WHERE area = 'Sectional'").first<{ source_url: string | null }>();
    const before = (await row())!.source_url;
    const refused = await upload(operator, '/Sectional/SaveAutoSync', null, {
      intervalMinutes: '30',
      sourceUrl: 'https://elsewhere.example/sectionals.csv',
      'fk.runner': 'horse',
    });
    expect(refused.status).toBe(302);
    expect(errorOf(refused)).toMatch(
      /The host elsewhere\.example is not on this service's sheet hosts \(MIGRATE_SHEET_HOSTS: sheets\.invalid, \*\.sheets\.invalid\).*Nothing was saved\./,
    );
    expect((await row())!.source_url).toBe(before);
    expect((await operator.page('/Sectional/AutoSync')).html).toContain('Addresses on these hosts only: sheets.invalid, *.sheets.invalid.');

    const s = sectionals[0]!;
    const requested: string[] = [];
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      const { hostname } = new URL(request.url);
      if (hostname === 'elsewhere.example' || hostname.endsWith('sheets.invalid')) {
        requested.push(request.url);
        return new Response(
          writeCsv(SECTIONAL_HEADER, [[s.date, s.course, s.race_number, s.horse, null, s.segment, Number(s.time_seconds)]]),
        );
      }
      return realFetch(request);
    });
    try {
      // Saved before its host was taken off the list: the run fails with the reason and fetches nothing.
      await env.DB.prepare(
        "UPDATE import_auto_syncs SET source_url = 'https://elsewhere.example/sectionals.csv', enabled = 0, next_run_at = NULL WHERE area = 'Sectional'",
      ).run();
      const started = await operator.postJson('/api/sectional/autosync/run-now', {});
      expect(started.status).toBe(200);
      const failed = await untilFinished(viewer, '/api/sectional', (await started.json<{ jobId: string }>()).jobId);
      expect(failed.state).toBe('failed');
      expect(failed.log.map((l) => l.message).join('\n')).toContain("The host elsewhere.example is not on this service's sheet hosts");
      expect(requested).toEqual([]);

      const saved = await upload(operator, '/Sectional/SaveAutoSync', null, {
        intervalMinutes: '30',
        sourceUrl: 'https://sheets.invalid/today.csv',
        'fk.runner': 'horse',
      });
      expect(saved.headers.get('location')).toBe('/Sectional/AutoSync?saved=1');
      const run = await operator.postJson('/api/sectional/autosync/run-now', {});
      const done = await untilFinished(viewer, '/api/sectional', (await run.json<{ jobId: string }>()).jobId);
      expect(done.state, JSON.stringify(done.log.slice(-3))).toBe('completed');
      expect(done.inserted + done.updated + done.unchanged).toBe(1);
      expect(requested).toContain('https://sheets.invalid/today.csv');
    } finally {
      vi.restoreAllMocks();
      await env.DB.prepare("UPDATE import_auto_syncs SET source_url = ?, enabled = 0, next_run_at = NULL WHERE area = 'Sectional'")
        .bind(before)
        .run();
    }
  });
});

describe('ClearData', () => {
  it('asks on the page, truncates the table for an Admin and records who did it', async () => {
    const page = await admin.page('/Sectional');
    expect(page.html).toContain('data-clear-form');
    expect(page.html).toContain('data-confirm=');
    // The backup lives outside the public schema, where the engine's tests list the racing tables
    // (the other worker slot may be counting them meanwhile).
    await racing.query('CREATE SCHEMA IF NOT EXISTS import_test');
    await racing.query('DROP TABLE IF EXISTS import_test.sectional_backup');
    await racing.query('CREATE TABLE import_test.sectional_backup AS SELECT * FROM sectional_times');
    try {
      const res = await admin.post('/Sectional/ClearData');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/Sectional');
      const [left] = await rowsAs<{ n: number }>(racing, 'SELECT count(*)::int AS n FROM sectional_times');
      expect(left!.n).toBe(0);
      const after = await admin.page('/Sectional');
      expect(after.html).toMatch(/import-admin@example\.com: ClearData \(sectional_times truncated: \d+ rows removed\)/);
    } finally {
      await racing.query('INSERT INTO sectional_times SELECT * FROM import_test.sectional_backup');
      await racing.query('DROP TABLE import_test.sectional_backup');
    }
  });
});
