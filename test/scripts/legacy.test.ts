import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectRacing } from '../../scripts/racing/generate';
import {
  LEGACY_CODES,
  LEGACY_ID_OFFSETS,
  LEGACY_TABLE_NAMES,
  type LegacyRow,
  type LegacyTableName,
  generateLegacy,
  legacyDate,
  legacyWorldOptions,
} from '../../scripts/racing/legacy';
import { legacyDatasetInfo, loadLegacy } from '../../scripts/racing/legacy-load';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';

const TODAY = '2026-11-23';

function collectLegacy(today: string): Record<LegacyTableName, LegacyRow[]> {
  const all = Object.fromEntries(LEGACY_TABLE_NAMES.map((t) => [t, [] as LegacyRow[]])) as Record<LegacyTableName, LegacyRow[]>;
  for (const batch of generateLegacy({ size: 'tiny', today })) all[batch.table].push(...batch.rows);
  return all;
}

describe('legacy source generator', () => {
  const legacy = collectLegacy(TODAY);
  const racing = collectRacing({ size: 'tiny', today: TODAY });

  it('is deterministic for the same seed and today', () => {
    expect(collectLegacy(TODAY)).toEqual(legacy);
  });

  it('holds the racing history under its own ids, codes and text dates', () => {
    const history = racing.meetings.filter((m) => m.date < TODAY);
    expect(history.length).toBeGreaterThan(10);
    const byId = new Map(legacy.race_meeting.map((m) => [m.meeting_id, m]));
    for (const meeting of history) {
      const old = byId.get(LEGACY_ID_OFFSETS.race_meeting + meeting.id);
      expect(old, `meeting ${meeting.id}`).toEqual({
        meeting_id: LEGACY_ID_OFFSETS.race_meeting + meeting.id,
        meeting_date: legacyDate(meeting.date),
        venue_id: LEGACY_ID_OFFSETS.venue + meeting.courseId,
        going: meeting.trackCondition,
        going_rating: meeting.trackRating,
        trial_flag: meeting.isTrial ? 'Y' : 'N',
      });
    }
    const historyRaces = new Set(racing.races.filter((r) => history.some((m) => m.id === r.meetingId)).map((r) => r.id));
    const entries = new Map(legacy.race_entry.map((e) => [e.entry_id, e]));
    for (const runner of racing.runners.filter((r) => historyRaces.has(r.raceId))) {
      const entry = entries.get(LEGACY_ID_OFFSETS.race_entry + runner.id);
      expect(entry?.horse_id).toBe(LEGACY_ID_OFFSETS.horse + runner.horseId);
      expect(entry?.placing).toBe(runner.finishingPosition);
      expect(entry?.scratched_flag).toBe(runner.scratched ? 'Y' : 'N');
    }
    const horse = legacy.horse[0]!;
    expect(Object.values(LEGACY_CODES.sex)).toContain(horse.sex_code);
    expect(legacy.venue.every((v) => /^[A-Z]{3}[A-Z0-9]$/.test(String(v.venue_code)))).toBe(true);
    expect(new Set(legacy.venue.map((v) => v.venue_code)).size).toBe(legacy.venue.length);
    expect(legacy.race_event.every((r) => ['F', 'H', 'S'].includes(String(r.discipline_code)))).toBe(true);
  });

  it('runs days ahead of the racing database: meetings it lacks, results for its acceptance days', () => {
    const lastRacing = racing.meetings
      .map((m) => m.date)
      .sort()
      .at(-1)!;
    const world = legacyWorldOptions({ size: 'tiny', today: TODAY });
    expect(world.today > TODAY).toBe(true);
    const isoOf = (text: unknown) => String(text).split('/').reverse().join('-');
    const newer = legacy.race_meeting.filter((m) => isoOf(m.meeting_date) > lastRacing);
    expect(newer.length).toBeGreaterThan(0);
    expect(legacy.race_meeting.length).toBeGreaterThan(racing.meetings.length);
    const todays = new Set(legacy.race_meeting.filter((m) => isoOf(m.meeting_date) === TODAY).map((m) => m.meeting_id));
    const todaysRaces = new Set(legacy.race_event.filter((r) => todays.has(r.meeting_id)).map((r) => r.race_id));
    expect(legacy.race_entry.some((e) => todaysRaces.has(e.race_id) && e.placing === 1)).toBe(true);
  });

  it('has a mapping document naming every legacy table once', () => {
    expect(LEGACY_MAPPING.tables.map((t) => t.sourceTable).sort()).toEqual([...LEGACY_TABLE_NAMES].sort());
  });
});

describe('legacy source loader', () => {
  const client = new pg.Client({ connectionString: inject('legacyDatabaseUrl') });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  it('the test database holds the legacy tiny set with keys and foreign keys', async () => {
    expect(await legacyDatasetInfo(client)).toMatchObject({ size: 'tiny', seed: 1 });
    const fks = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY' AND table_schema = 'public' AND table_name = ANY($1)",
      [LEGACY_TABLE_NAMES],
    );
    expect(fks.rows[0]?.n).toBe(12);
    const runners = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM race_entry');
    expect(runners.rows[0]!.n).toBeGreaterThan(1000);
  });

  it('reloads into a fresh database with the generated counts', async () => {
    const { startEmbeddedPostgres } = await import('../../scripts/embedded-postgres');
    const db = await startEmbeddedPostgres();
    try {
      const report = await loadLegacy(db.url, { size: 'tiny', today: TODAY });
      const expected = collectLegacy(TODAY);
      for (const table of LEGACY_TABLE_NAMES) expect(report.rows[table], table).toBe(expected[table].length);
      expect(await legacyDatasetInfo(db.url)).toMatchObject({ size: 'tiny', today: TODAY });
    } finally {
      await db.close();
    }
  }, 60_000);
});
