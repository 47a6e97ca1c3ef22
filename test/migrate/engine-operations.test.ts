import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { findNaturalKeyMatches, saveIdMappings } from '../../workers/migrate/src/engine/key-matches';
import {
  backfillBooleanColumns,
  clearHistory,
  patchForeignKey,
  syncIdMappingsToDestination,
  testConnection,
} from '../../workers/migrate/src/engine/operations';
import { PlanError } from '../../workers/migrate/src/engine/prepare';
import {
  type TestDestination,
  copyAll,
  count,
  createDestination,
  engineEnv,
  freshConfigId,
  legacyConnection,
  legacyPlans,
  one,
  openLegacy,
  openRacing,
  runPlan,
} from './engine-support';
import { countMappings } from '../../workers/migrate/src/engine/mappings';
import { rowsAs } from './rows-as';

// The wizard's one-shot operations against the legacy source and this file's destination tables.

let source: Sql;
let dest: Sql;
let target: TestDestination;

beforeAll(async () => {
  source = openLegacy();
  dest = openRacing();
  target = await createDestination(dest, 'ops', { withRacingRows: true, tables: ['courses', 'meetings', 'trainers', 'jockeys'] });
}, 60_000);
afterAll(async () => {
  await target.drop();
  await dest.query('DELETE FROM config_id_mappings WHERE table_name LIKE $1', [`${target.prefix}\\_%`]);
  await Promise.all([source.end(), dest.end()]);
});

describe('testConnection', () => {
  it('connects to an allowed source and names the server', async () => {
    expect(await testConnection(engineEnv, legacyConnection())).toEqual({
      success: true,
      message: expect.stringMatching(/^Connected to .*PostgreSQL/),
    });
  });

  it("reports a wrong password as a failure in the app's words, with no secret", async () => {
    const wrong = 'not-the-legacy-password-8e2c';
    const result = await testConnection(engineEnv, { ...legacyConnection(), password: wrong });
    expect(result).toEqual({
      success: false,
      message: expect.stringMatching(
        /^Connection failed for user "postgres": the server refused the password \(SQLSTATE 28P01, invalid authorization\)$/,
      ),
    });
    expect(result.message).not.toContain(wrong);
    expect(result.message).not.toContain(legacyConnection().password);
  });

  it('reports a wrong port or database as a failure, never a throw', async () => {
    const result = await testConnection(
      { ...engineEnv, MIGRATE_ALLOWED_HOSTS: `${legacyConnection().host}` },
      { ...legacyConnection(), port: 1 },
    );
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/^Connection failed/);
  });
});

describe('natural-key matches and manual mappings', () => {
  it('proposes existing rows for source rows with the same natural key, and counts the rest', async () => {
    const [courses] = await legacyPlans(dest, target, ['venue']);
    const configId = freshConfigId();
    const result = await findNaturalKeyMatches(engineEnv, legacyConnection(), configId, courses!, 5);
    const venues = (await one(rowsAs<{ n: number }>(source, 'SELECT count(*)::int AS n FROM venue'))).n;
    expect(result.matches).toHaveLength(5);
    expect(result.alreadyMapped).toBe(0);
    expect(result.unmatched).toBe(0);
    const first = result.matches[0]!;
    const venue = await one(
      rowsAs<{ venue_name: string }>(source, 'SELECT venue_name FROM venue WHERE venue_id = $1', [Number(first.sourceId)]),
    );
    const course = await one(
      rowsAs<{ name: string }>(dest, `SELECT name FROM "${target.name('courses')}" WHERE id = $1`, [Number(first.destId)]),
    );
    expect(course.name).toBe(venue.venue_name);
    expect(first.key).toEqual({ name: venue.venue_name });

    // Confirmed pairs become id mappings; a second look counts them as mapped.
    expect(
      await saveIdMappings(
        engineEnv,
        configId,
        'venue',
        target.name('courses'),
        result.matches.map(({ sourceId, destId }) => ({ sourceId, destId })),
      ),
    ).toBe(5);
    const again = await findNaturalKeyMatches(engineEnv, legacyConnection(), configId, courses!, 1_000);
    expect(again.alreadyMapped).toBe(5);
    expect(again.matches).toHaveLength(venues - 5);
  });

  it('needs a natural key made of mapped columns', async () => {
    const [courses] = await legacyPlans(dest, target, ['venue']);
    await expect(findNaturalKeyMatches(engineEnv, legacyConnection(), 1, { ...courses!, naturalKey: [] })).rejects.toBeInstanceOf(
      PlanError,
    );
    await expect(
      findNaturalKeyMatches(engineEnv, legacyConnection(), 1, { ...courses!, naturalKey: ['category', 'nope'] }),
    ).rejects.toThrow(/nope/);
  });
});

describe('history, sync, boolean backfill and FkPatch', () => {
  it('clears, publishes and repairs what a run left', async () => {
    const plans = await legacyPlans(dest, target, ['venue', 'race_meeting', 'jockey']);
    const plan = runPlan(plans);
    await copyAll(source, dest, plan);
    const mapped = (await one(rowsAs<{ n: number }>(dest, `SELECT ${countMappings('$t.config_id = $1')} AS n`, [plan.configId]))).n;
    expect(mapped).toBeGreaterThan(await count(source, 'race_meeting'));

    // Publish to config_id_mappings, twice: the second is an upsert of the same rows.
    expect(await syncIdMappingsToDestination(engineEnv, plan.configId)).toEqual({ synced: mapped });
    expect(await syncIdMappingsToDestination(engineEnv, plan.configId)).toEqual({ synced: mapped });
    expect(
      (await one(rowsAs<{ n: number }>(dest, 'SELECT count(*)::int AS n FROM config_id_mappings WHERE config_id = $1', [plan.configId]))).n,
    ).toBe(mapped);

    // FkPatch: a meeting's course set wrong is put back from the source through the mappings.
    const meeting = await one(
      rowsAs<{ id: number; course_id: number }>(dest, `SELECT id, course_id FROM "${target.name('meetings')}" ORDER BY id DESC LIMIT 1`),
    );
    const other = await one(
      rowsAs<{ id: number }>(dest, `SELECT id FROM "${target.name('courses')}" WHERE id <> $1 LIMIT 1`, [meeting.course_id]),
    );
    await dest.query(`UPDATE "${target.name('meetings')}" SET course_id = $1 WHERE id = $2`, [other.id, meeting.id]);
    const patched = await patchForeignKey(engineEnv, legacyConnection(), {
      configId: plan.configId,
      childSourceTable: 'race_meeting',
      fkSourceColumn: 'venue_id',
      parentSourceTable: 'venue',
    });
    expect(patched).toEqual({
      childDestTable: target.name('meetings'),
      destColumn: 'course_id',
      parentDestTable: target.name('courses'),
      updated: 1,
      unresolved: 0,
    });
    expect(
      (await one(rowsAs<{ course_id: number }>(dest, `SELECT course_id FROM "${target.name('meetings')}" WHERE id = $1`, [meeting.id])))
        .course_id,
    ).toBe(meeting.course_id);
    await expect(
      patchForeignKey(engineEnv, legacyConnection(), {
        configId: plan.configId,
        childSourceTable: 'race_event',
        fkSourceColumn: 'meeting_id',
        parentSourceTable: 'race_meeting',
      }),
    ).rejects.toThrow(/No rows of race_event/);

    // Boolean columns left empty on copied rows get their default.
    await dest.query(`ALTER TABLE "${target.name('jockeys')}" ALTER COLUMN apprentice DROP NOT NULL`);
    await dest.query(
      `UPDATE "${target.name('jockeys')}" SET apprentice = NULL WHERE id IN (SELECT id FROM "${target.name('jockeys')}" ORDER BY id LIMIT 3)`,
    );
    const booleans = await backfillBooleanColumns(engineEnv, plan);
    expect(booleans).toContainEqual({ table: target.name('jockeys'), column: 'apprentice', updated: 3 });
    expect(await count(dest, target.name('jockeys'), 'apprentice IS NULL')).toBe(0);

    // Clearing one table's history, then the rest.
    const meetings = await clearHistory(engineEnv, plan.configId, ['race_meeting']);
    expect(meetings.deleted).toBeGreaterThan(0);
    const rest = await clearHistory(engineEnv, plan.configId);
    expect(meetings.deleted + rest.deleted).toBe(mapped);
    expect(await syncIdMappingsToDestination(engineEnv, plan.configId)).toEqual({ synced: 0 });
    expect(
      (await one(rowsAs<{ n: number }>(dest, 'SELECT count(*)::int AS n FROM config_id_mappings WHERE config_id = $1', [plan.configId]))).n,
    ).toBe(0);
  }, 60_000);
});
