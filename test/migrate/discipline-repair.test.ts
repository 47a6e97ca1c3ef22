import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepairProgress } from '../../workers/migrate/src/discipline-repair';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { LEGACY_VALUES } from '../../workers/migrate/src/meetings';
import { openLegacyDirect, openRacing } from './engine-support';
import { Client, signIn, legacyConfigurationForm } from './helpers';
import { rowsAs } from './rows-as';

const LEGACY = legacyConfigurationForm('Legacy for discipline repair');
/** Id mappings in the shared racing database are kept per configuration id: one no other file uses. */
const CONFIG_ID = 90_401;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const FINAL = ['completed', 'failed', 'cancelled'];
const OTHER: Record<string, string> = { Flat: 'Hurdle', Hurdle: 'Steeplechase', Steeplechase: 'Flat' };

type Seeded = { raceId: number; right: string; wrong: string };

let admin: Client;
let operator: Client;
let viewer: Client;
let racing: Sql;
let legacy: Sql;
/** Destination races with a source counterpart, set to a wrong discipline by this file. */
let seeded: Seeded[] = [];
/** A destination race this file adds (race number 99), which no source race pairs with. */
let orphan: { raceId: number; raceType: string } | null = null;

const iso = (text: string) => `${text.slice(6, 10)}-${text.slice(3, 5)}-${text.slice(0, 2)}`;

beforeAll(async () => {
  [admin, operator, viewer] = await Promise.all([signIn('repairAdmin'), signIn('repairOperator'), signIn('repairViewer')]);
  await operator.page('/Configuration/Create');
  expect((await operator.post('/Configuration/Create', LEGACY)).status).toBe(302);
  await env.DB.prepare('UPDATE configurations SET id = ? WHERE is_active = 1').bind(CONFIG_ID).run();
  await Promise.all([operator.page('/DisciplineRepair'), viewer.page('/DisciplineRepair'), admin.page('/DisciplineRepair')]);

  racing = openRacing();
  legacy = openLegacyDirect();
  // The earliest source meetings (outside the other files' recent windows), each race paired by
  // date, course and race number: three of them get a wrong discipline in the destination.
  const races = await rowsAs<{ d: string; venue: string; race_no: number; code: string }>(
    legacy,
    `SELECT m.meeting_date AS d, v.venue_name AS venue, e.race_no, e.discipline_code AS code
     FROM race_meeting m JOIN venue v ON v.venue_id = m.venue_id JOIN race_event e ON e.meeting_id = m.meeting_id
     WHERE m.trial_flag = 'N' ORDER BY substr(m.meeting_date, 7, 4), substr(m.meeting_date, 4, 2), substr(m.meeting_date, 1, 2), m.meeting_id, e.race_no LIMIT 60`,
  );
  const picked = new Set<string>();
  for (const race of races) {
    if (seeded.length === 3) break;
    if (picked.has(`${race.d}|${race.venue}`)) continue;
    const right = LEGACY_VALUES.discipline[race.code as keyof typeof LEGACY_VALUES.discipline];
    const dest = await rowsAs<{ id: number; race_type: string }>(
      racing,
      'SELECT r.id, r.race_type FROM races r JOIN meetings m ON m.id = r.meeting_id JOIN courses c ON c.id = m.course_id WHERE m.date = $1 AND lower(c.name) = lower($2) AND r.race_number = $3',
      [iso(race.d), race.venue, race.race_no],
    );
    if (dest.length !== 1 || dest[0]!.race_type !== right) continue;
    picked.add(`${race.d}|${race.venue}`);
    seeded.push({ raceId: dest[0]!.id, right, wrong: OTHER[right]! });
  }
  expect(seeded).toHaveLength(3);
});

afterAll(async () => {
  // The shared racing database gets its values back, whatever happened above.
  for (const s of seeded) await racing?.query('UPDATE races SET race_type = $1 WHERE id = $2', [s.right, s.raceId]);
  if (orphan) await racing?.query('DELETE FROM races WHERE id = $1', [orphan.raceId]);
  await Promise.all([racing?.end(), legacy?.end()]);
});

async function start(client: Client): Promise<string> {
  const res = await client.post('/DisciplineRepair/Start');
  expect(res.status, await res.clone().text()).toBe(302);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/DisciplineRepair\/Progress\?jobId=[0-9a-f-]{36}$/);
  return new URL(location, 'https://x').searchParams.get('jobId')!;
}

async function progress(client: Client, jobId: string): Promise<RepairProgress> {
  const res = await client.get(`/api/discipline-repair/progress/${jobId}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.json<RepairProgress>();
}

async function untilFinished(client: Client, jobId: string): Promise<RepairProgress> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const p = await progress(client, jobId);
    if (FINAL.includes(p.state)) return p;
    if (Date.now() > deadline) throw new Error(`repair ${jobId} still ${p.state}: ${JSON.stringify(p.log.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the repair (happy path)', () => {
  it('repairs exactly the races set wrong, reports them, and leaves a race without a counterpart alone', async () => {
    // Before: the destination agrees with the source on these races (nothing of this file to change).
    const before = await admin.page('/DisciplineRepair');
    expect(before.res.status).toBe(200);
    for (const s of seeded) expect(before.html).not.toContain(`data-preview-race="${s.raceId}"`);

    for (const s of seeded) await racing.query('UPDATE races SET race_type = $1 WHERE id = $2', [s.wrong, s.raceId]);
    // A destination race no source race pairs with (race number 99 at the first seeded race's meeting).
    const [added] = await rowsAs<{ id: number }>(
      racing,
      `INSERT INTO races (meeting_id, race_number, name, distance, class, race_type, track_condition)
       SELECT meeting_id, 99, 'Repair test race', 1200, 'Maiden', 'Steeplechase', track_condition FROM races WHERE id = $1 RETURNING id`,
      [seeded[0]!.raceId],
    );
    orphan = { raceId: added!.id, raceType: 'Steeplechase' };

    // The page previews them.
    const page = await admin.page('/DisciplineRepair');
    expect(page.html).toContain('Start repair');
    expect(page.html).toContain(`data-preview-count="${seeded.length}"`);
    for (const s of seeded) expect(page.html).toContain(`data-preview-race="${s.raceId}"`);
    expect(page.html).not.toContain(`data-preview-race="${orphan.raceId}"`);

    const jobId = await start(operator);
    const done = await untilFinished(viewer, jobId);
    expect(done.state, JSON.stringify(done.log.slice(-5))).toBe('completed');
    expect(done.jobId).toBe(jobId);
    expect(done.total).toBeGreaterThan(0);
    expect(done.checked).toBe(done.total);
    expect(done.changed).toBe(seeded.length);
    expect(done.summary.changes.map((c) => c.raceId).sort((a, b) => a - b)).toEqual(seeded.map((s) => s.raceId).sort((a, b) => a - b));
    for (const s of seeded) {
      expect(done.summary.changes.find((c) => c.raceId === s.raceId)).toMatchObject({
        from: s.wrong,
        to: s.right,
        raceNumber: expect.any(Number),
        meeting: expect.any(String),
      });
    }
    expect(done.summary.destinationRacesWithoutCounterpart).toBeGreaterThanOrEqual(1);
    expect(done.log.length).toBeGreaterThan(0);
    expect(done.log[0]).toMatchObject({ level: expect.any(String), message: expect.any(String), timestamp: expect.any(String) });
    expect(done.log.some((l) => l.message.includes(`Race ${seeded[0]!.raceId} `))).toBe(true);

    const after = await rowsAs<{ id: number; race_type: string }>(racing, 'SELECT id, race_type FROM races WHERE id = ANY($1::int[])', [
      [...seeded.map((s) => s.raceId), orphan.raceId],
    ]);
    for (const s of seeded) expect(after.find((r) => r.id === s.raceId)?.race_type).toBe(s.right);
    expect(after.find((r) => r.id === orphan!.raceId)?.race_type).toBe('Steeplechase');

    // The progress page and the jobs list show it.
    const view = await viewer.page(`/DisciplineRepair/Progress?jobId=${jobId}`);
    expect(view.res.status).toBe(200);
    expect(view.html).toContain('/static/discipline-repair.js');
    expect(view.html).toContain('data-state="completed"');
    const list = await viewer.page('/DisciplineRepair');
    expect(list.html).toContain(`data-repair-job="${jobId}"`);
    expect(list.html).toContain('repair-operator@example.com');
    const row = await env.DB.prepare('SELECT state, changed, started_by FROM discipline_repair_jobs WHERE job_id = ?').bind(jobId).first();
    expect(row).toMatchObject({ state: 'completed', changed: seeded.length, started_by: 'repair-operator@example.com' });

    // Running it again changes nothing.
    const again = await untilFinished(admin, await start(admin));
    expect(again.state).toBe('completed');
    expect(again.changed).toBe(0);
    expect(again.summary.changes).toEqual([]);
  });

  it('stops a job that is cancelled before its next batch', async () => {
    // Asked at once: the job reads the source a few racing days per batch, so many batches are left.
    const jobId = await start(operator);
    const res = await operator.post('/DisciplineRepair/Cancel', { jobId });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/DisciplineRepair/Progress?jobId=${jobId}`);
    const done = await untilFinished(operator, jobId);
    expect(done.state).toBe('cancelled');
    expect(done.checked).toBeLessThan(done.total);
    expect(done.log.some((l) => l.message.includes('Cancellation requested'))).toBe(true);
    // Cancelling again says so and changes nothing.
    expect((await operator.post('/DisciplineRepair/Cancel', { jobId })).status).toBe(302);
    expect((await progress(operator, jobId)).state).toBe('cancelled');
  });
});

describe('roles and anti-forgery (security)', () => {
  it('lets a Viewer look but not start or cancel', async () => {
    const page = await viewer.page('/DisciplineRepair');
    expect(page.res.status).toBe(200);
    expect(page.html).not.toContain('Start repair');
    expect((await viewer.post('/DisciplineRepair/Start')).status).toBe(403);
    const jobId = await start(admin);
    expect((await viewer.post('/DisciplineRepair/Cancel', { jobId })).status).toBe(403);
    const p = await untilFinished(viewer, jobId);
    expect(p.state).toBe('completed');
  });

  it('refuses a start or cancel without the anti-forgery token, or from another origin', async () => {
    expect((await operator.post('/DisciplineRepair/Start', {}, { csrf: false })).status).toBe(403);
    expect((await operator.post('/DisciplineRepair/Start', {}, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await operator.post('/DisciplineRepair/Cancel', { jobId: UNKNOWN }, { csrf: false })).status).toBe(403);
    const count = await env.DB.prepare(
      "SELECT count(*) AS n FROM discipline_repair_jobs WHERE started_by = 'repair-operator@example.com'",
    ).first<{ n: number }>();
    expect((await operator.post('/DisciplineRepair/Start', {}, { csrf: false })).status).toBe(403);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM discipline_repair_jobs WHERE started_by = 'repair-operator@example.com'").first<{
        n: number;
      }>(),
    ).toEqual(count);
  });

  it('sends a signed-out visitor to the login page, JSON route included', async () => {
    const anonymous = new Client();
    for (const path of ['/DisciplineRepair', `/DisciplineRepair/Progress?jobId=${UNKNOWN}`, `/api/discipline-repair/progress/${UNKNOWN}`]) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe('/Account/Login');
    }
  });
});

describe('bad input (error cases)', () => {
  it('answers 400 for a malformed job id and 404 for an unknown one', async () => {
    expect((await viewer.get('/DisciplineRepair/Progress?jobId=not-a-guid')).status).toBe(400);
    expect((await viewer.get('/DisciplineRepair/Progress')).status).toBe(400);
    expect((await viewer.get(`/DisciplineRepair/Progress?jobId=${UNKNOWN}`)).status).toBe(404);
    const bad = await viewer.get('/api/discipline-repair/progress/xyz');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
    const unknown = await viewer.get(`/api/discipline-repair/progress/${UNKNOWN}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    expect((await operator.post('/DisciplineRepair/Cancel', { jobId: 'x' })).status).toBe(400);
    expect((await operator.post('/DisciplineRepair/Cancel', { jobId: UNKNOWN })).status).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  it('describes the progress route', async () => {
    const doc = await (await viewer.get('/openapi.json')).json<{ paths: Record<string, { get?: unknown }> }>();
    expect(doc.paths['/api/discipline-repair/progress/{jobId}']?.get).toBeDefined();
  });
});

describe('a source that refuses the login (error cases)', () => {
  it('fails the job at once with the reason in its log, changing nothing', async () => {
    await operator.page('/Configuration/Create');
    expect(
      (await operator.post('/Configuration/Create', { ...LEGACY, Name: 'Legacy, wrong password', Password: 'not-the-password' })).status,
    ).toBe(302);
    await env.DB.batch([
      env.DB.prepare('UPDATE configurations SET is_active = 0'),
      env.DB.prepare("UPDATE configurations SET is_active = 1 WHERE name = 'Legacy, wrong password'"),
    ]);
    try {
      await operator.page('/DisciplineRepair');
      const done = await untilFinished(operator, await start(operator));
      expect(done.state).toBe('failed');
      expect(done.changed).toBe(0);
      expect(done.log.some((l) => l.level === 'Error' && l.message.startsWith('Failed:'))).toBe(true);
      expect(done.summary.errors.length).toBeGreaterThan(0);
    } finally {
      await env.DB.batch([
        env.DB.prepare('UPDATE configurations SET is_active = 0'),
        env.DB.prepare('UPDATE configurations SET is_active = 1 WHERE id = ?').bind(CONFIG_ID),
      ]);
    }
  });
});
