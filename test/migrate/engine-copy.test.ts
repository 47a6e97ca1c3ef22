import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyAll,
  count,
  createDestination,
  legacyPlans,
  openLegacy,
  openRacing,
  runPlan,
  type TestDestination,
  one,
} from './engine-support';
import { validateTable } from '../../workers/migrate/src/engine/validation';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { orderTables } from '../../workers/migrate/src/engine/order';
import { allMappings } from '../../workers/migrate/src/engine/mappings';
import { rowsAs } from './rows-as';

// The chunked copy, legacy source → destination tables of this file: FK translation through id
// mappings, natural-key matching against existing rows, patch mode, re-runs, validation.

let source: Sql;
let dest: Sql;
const destinations: TestDestination[] = [];

beforeAll(() => {
  source = openLegacy();
  dest = openRacing();
});
afterAll(async () => {
  for (const d of destinations) await d.drop();
  await Promise.all([source.end(), dest.end()]);
});

async function destination(label: string, withRacingRows = false) {
  const created = await createDestination(dest, label, { withRacingRows });
  destinations.push(created);
  return created;
}

describe('copy into empty tables', () => {
  it('copies every table in FK order with foreign keys translated, and validates', async () => {
    const target = await destination('empty');
    const plans = await legacyPlans(dest, target);
    const { order, deferred } = orderTables(
      plans.map((p) => p.destTable),
      plans.flatMap((p) => p.foreignKeys),
    );
    expect(deferred).toEqual([]);
    const ordered = order.map((t) => plans.find((p) => p.destTable === t)!);
    const plan = runPlan(ordered);
    const { tables, cursors, chunks } = await copyAll(source, dest, plan);
    expect(chunks).toBeGreaterThan(ordered.length);

    for (const [legacy, racing] of [
      ['race_entry', 'runners'],
      ['horse', 'horses'],
      ['race_meeting', 'meetings'],
      ['sectional_split', 'sectional_times'],
    ] as const) {
      const { n } = await one(rowsAs<{ n: number }>(source, `SELECT count(*)::int AS n FROM ${legacy}`));
      expect(await count(dest, target.name(racing)), racing).toBe(n);
      const cursor = cursors.find((c) => c.dest_table === target.name(racing))!;
      expect(cursor).toMatchObject({ done: n, inserted: n, updated: 0, skipped: 0, finished: true });
    }
    // Foreign keys point at the translated parents: a runner's horse is the same horse by name.
    const [entry] = await rowsAs<{ entry_id: number; horse_name: string; venue_name: string; meeting_date: string }>(
      source,
      `SELECT e.entry_id, h.horse_name, v.venue_name, m.meeting_date FROM race_entry e JOIN horse h USING (horse_id)
       JOIN race_event r USING (race_id) JOIN race_meeting m ON m.meeting_id = r.meeting_id JOIN venue v USING (venue_id)
       ORDER BY e.entry_id DESC LIMIT 1`,
    );
    const [copied] = await rowsAs<{ horse: string; course: string; date: string }>(
      dest,
      `SELECT h.name AS horse, c.name AS course, to_char(m.date, 'DD/MM/YYYY') AS date
       FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2')} map
       JOIN "${target.name('runners')}" ru ON ru.id = map.dest_id::int
       JOIN "${target.name('horses')}" h ON h.id = ru.horse_id
       JOIN "${target.name('races')}" r ON r.id = ru.race_id
       JOIN "${target.name('meetings')}" m ON m.id = r.meeting_id
       JOIN "${target.name('courses')}" c ON c.id = m.course_id
       WHERE map.config_id = $1 AND map.dest_table = $2 AND map.source_id = $3`,
      [plan.configId, target.name('runners'), String(entry!.entry_id)],
    );
    expect(copied).toEqual({ horse: entry!.horse_name, course: entry!.venue_name, date: entry!.meeting_date });
    // Codes and flags decoded.
    const types = await rowsAs<{ race_type: string }>(dest, `SELECT DISTINCT race_type FROM "${target.name('races')}" ORDER BY 1`);
    expect(types.map((t) => t.race_type).every((t) => ['Flat', 'Hurdle', 'Steeplechase'].includes(t))).toBe(true);

    for (const table of tables) {
      const validation = await validateTable(source, dest, plan.configId, table);
      expect(validation, table.plan.destTable).toMatchObject({ ok: true });
      expect(validation.sourceCount).toBeGreaterThan(0);
    }
  }, 120_000);

  it('a second run of the same configuration inserts nothing: every row is already mapped', async () => {
    const target = await destination('rerun');
    const plans = await legacyPlans(dest, target, ['venue', 'horse', 'trainer']);
    const first = runPlan(plans);
    await copyAll(source, dest, first);
    const before = await count(dest, target.name('horses'));
    const second = runPlan(plans, { configId: first.configId });
    const { cursors } = await copyAll(source, dest, second);
    expect(await count(dest, target.name('horses'))).toBe(before);
    for (const cursor of cursors) expect(cursor, cursor.dest_table).toMatchObject({ inserted: 0, updated: 0, skipped: cursor.done });
  }, 60_000);
});

describe('natural keys and patch mode', () => {
  it('matches existing rows by natural key, maps their ids, and inserts only the rows the destination lacks', async () => {
    const target = await destination('natural', true);
    const plans = await legacyPlans(dest, target, ['venue', 'race_meeting']);
    const racingMeetings = await count(dest, 'meetings');
    const { n: legacyMeetings } = await one(rowsAs<{ n: number }>(source, 'SELECT count(*)::int AS n FROM race_meeting'));
    expect(legacyMeetings).toBeGreaterThan(racingMeetings);
    const plan = runPlan(plans);
    const { cursors } = await copyAll(source, dest, plan);
    const courses = cursors.find((c) => c.dest_table === target.name('courses'))!;
    expect(courses.inserted).toBe(0);
    expect(await count(dest, target.name('courses'))).toBe(await count(dest, 'courses'));
    const meetings = cursors.find((c) => c.dest_table === target.name('meetings'))!;
    // Every legacy meeting the racing database has was matched; the newer ones were inserted.
    const {
      n: matchedByKey,
      history,
      historyMapped,
    } = await one(
      rowsAs<{ n: number; history: number; historyMapped: number }>(
        dest,
        `SELECT count(*)::int AS n,
              (SELECT count(*)::int FROM meetings WHERE date < (SELECT today FROM racing_dataset LIMIT 1)) AS history,
              count(*) FILTER (WHERE d.date < (SELECT today FROM racing_dataset LIMIT 1))::int AS "historyMapped"
       FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2')} m JOIN "${target.name('meetings')}" d ON d.id = m.dest_id::int
       WHERE m.config_id = $1 AND m.dest_table = $2 AND d.id <= (SELECT max(id) FROM meetings)`,
        [plan.configId, target.name('meetings')],
      ),
    );
    // The whole history matched; of the acceptance days, those the old system has the same.
    expect(historyMapped).toBe(history);
    expect(matchedByKey).toBeGreaterThan(history);
    expect(matchedByKey).toBeLessThanOrEqual(racingMeetings);
    expect(meetings.inserted).toBe(legacyMeetings - matchedByKey);
    expect(meetings.done).toBe(legacyMeetings);
    expect(await count(dest, target.name('meetings'))).toBe(racingMeetings + meetings.inserted);
  }, 60_000);

  it('patch mode updates matched rows that differ; without it they are skipped', async () => {
    const target = await destination('patch', true);
    // The racing database has today's fields without results; the old system has them run.
    const tables = ['venue', 'trainer', 'jockey', 'horse', 'race_meeting', 'race_event', 'race_entry'];
    const plans = await legacyPlans(dest, target, tables);
    const withoutResults = await count(dest, target.name('runners'), 'finishing_position IS NULL AND NOT scratched');
    expect(withoutResults).toBeGreaterThan(0);

    const skip = runPlan(plans);
    const skipped = await copyAll(source, dest, skip);
    const skipRunners = skipped.cursors.find((c) => c.dest_table === target.name('runners'))!;
    expect(skipRunners.updated).toBe(0);
    const stillEmpty = await count(dest, target.name('runners'), 'finishing_position IS NULL AND NOT scratched');
    const runnersTable = skipped.tables.find((t) => t.plan.destTable === target.name('runners'))!;
    const before = await validateTable(source, dest, skip.configId, runnersTable);
    expect(before.ok).toBe(false);
    expect(before.sourceCount).toBe(before.destCount);

    const patch = runPlan(plans, { configId: skip.configId, patchMode: true });
    const patched = await copyAll(source, dest, patch);
    const patchRunners = patched.cursors.find((c) => c.dest_table === target.name('runners'))!;
    expect(patchRunners.updated).toBeGreaterThan(0);
    expect(patchRunners.inserted).toBe(0);
    expect(await count(dest, target.name('runners'), 'finishing_position IS NULL AND NOT scratched')).toBeLessThan(stillEmpty);
    const after = await validateTable(source, dest, patch.configId, runnersTable);
    expect(after).toMatchObject({ ok: true });
  }, 120_000);
});

describe('validation', () => {
  it('catches a corrupted row and a missing row', async () => {
    const target = await destination('corrupt');
    const plans = await legacyPlans(dest, target, ['venue', 'horse']);
    const plan = runPlan(plans);
    const { tables } = await copyAll(source, dest, plan);
    const horses = tables.find((t) => t.plan.destTable === target.name('horses'))!;
    const courses = tables.find((t) => t.plan.destTable === target.name('courses'))!;
    expect((await validateTable(source, dest, plan.configId, horses)).ok).toBe(true);

    await dest.query(
      `UPDATE "${target.name('horses')}" SET dam = dam || ' (corrupted)' WHERE id = (SELECT min(id) FROM "${target.name('horses')}")`,
    );
    const corrupted = await validateTable(source, dest, plan.configId, horses);
    expect(corrupted.ok).toBe(false);
    expect(corrupted.sourceCount).toBe(corrupted.destCount);
    expect(corrupted.sourceChecksum).not.toBe(corrupted.destChecksum);

    await dest.query(`DELETE FROM "${target.name('courses')}" WHERE id = (SELECT max(id) FROM "${target.name('courses')}")`);
    const missing = await validateTable(source, dest, plan.configId, courses);
    expect(missing).toMatchObject({ ok: false, destCount: missing.sourceCount - 1 });
  }, 60_000);
});
