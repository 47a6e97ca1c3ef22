import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { allMappings } from '../../workers/migrate/src/engine/mappings';
import { findNaturalKeyMatches } from '../../workers/migrate/src/engine/key-matches';
import { MatchSummaries } from '../../workers/migrate/src/views/wizard/progress';
import type { MatchSummary } from '../../workers/migrate/src/wizard-sessions';
import { type TestDestination, createDestination, engineEnv, freshConfigId, legacyConnection, openRacing } from './engine-support';
import { type Client, signIn } from './helpers';
import { newSession, ownLegacyConfiguration, uploadSchema, waitForRun } from './wizard-flow';
import { rowsAs } from './rows-as';

// "Validate again" after a run whose destination changed behind its back: the Results page reports
// the count and checksum mismatch and lists the changed rows' source keys first; with the rows put
// back it reports equal. The run copies legacy venues into an empty copy of the racing courses
// table of this file's own, so the rows it changes are nobody else's.

const CONFIG_ID = 90_102;

let operator: Client;
let racing: Sql;
let target: TestDestination;

beforeAll(async () => {
  operator = await signIn('validateOperator');
  await ownLegacyConfiguration(operator, CONFIG_ID);
  racing = openRacing();
  target = await createDestination(racing, 'validate', { tables: ['courses'] });
}, 60_000);

afterAll(async () => {
  await target?.drop();
  await racing?.end();
});

type ResultRow = {
  table: string;
  ok: string;
  sourceCount: number;
  destCount: number;
  sourceChecksum: string;
  destChecksum: string;
  keys: string;
};

/** The Results page's validation rows. */
function resultRows(html: string): ResultRow[] {
  return [...html.matchAll(/<tr data-table="(\w+)" data-ok="(true|false)">([\s\S]*?)<\/tr>/g)].map((m) => {
    const cells = [...m[3]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, ''));
    return {
      table: m[1]!,
      ok: m[2]!,
      sourceCount: Number(cells[1]),
      destCount: Number(cells[2]),
      sourceChecksum: cells[3]!,
      destChecksum: cells[4]!,
      keys: /data-mismatched-keys="([^"]*)"/.exec(m[3]!)?.[1] ?? '',
    };
  });
}

describe('Validate again', () => {
  it('reports a deleted and a changed row by their source keys, and equal once they are back', async () => {
    const courses = target.name('courses');
    const venue = LEGACY_MAPPING.tables.find((t) => t.sourceTable === 'venue')!;
    const sessionId = await newSession(operator, ['venue']);
    expect((await uploadSchema(operator, sessionId, { version: 1, tables: [{ ...venue, destTable: courses }] })).status).toBe(302);

    // Before a run there is nothing to validate again.
    expect((await operator.post('/Migration/ValidateAgain', { sessionId })).status).toBe(409);

    await operator.page(`/Migration/RunConfig?sessionId=${sessionId}`);
    expect((await operator.post('/Migration/RunConfig', { sessionId })).status).toBe(302);
    const done = await waitForRun(operator, sessionId);
    expect(done.state, done.errors.join('; ')).toBe('completed');
    expect(done.validation).toEqual([expect.objectContaining({ table: courses, ok: true })]);
    const copied = done.validation![0]!.destCount;
    expect(copied).toBeGreaterThan(5);

    const results = await operator.page(`/Migration/Results?sessionId=${sessionId}`);
    expect(results.html).toContain('data-validated="all"');
    // Offered after a clean run too: the destination can change afterwards.
    expect(results.html).toContain('data-validate-again');

    // Behind the run's back: the row of the second source key deleted, the fifth one's name changed.
    const mapped = await rowsAs<{ source_id: string; dest_id: string }>(
      racing,
      `SELECT m.source_id, m.dest_id FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2')} m ORDER BY m.source_id::bigint`,
      [CONFIG_ID, courses],
    );
    expect(mapped.length).toBe(copied);
    const [deleted, changed] = [mapped[1]!, mapped[4]!];
    const [kept] = await rowsAs<{ row: unknown }>(racing, `SELECT to_jsonb(c) AS row FROM "${courses}" c WHERE id = $1`, [deleted.dest_id]);
    await racing.query(`DELETE FROM "${courses}" WHERE id = $1`, [deleted.dest_id]);
    await racing.query(`UPDATE "${courses}" SET name = name || ' (changed)' WHERE id = $1`, [changed.dest_id]);

    const again = await operator.post('/Migration/ValidateAgain', { sessionId });
    expect(again.status).toBe(200);
    const html = await again.text();
    expect(html).toContain('data-validated="differences"');
    const [row] = resultRows(html);
    expect(row).toMatchObject({ table: courses, ok: 'false', sourceCount: copied, destCount: copied - 1 });
    expect(row!.sourceChecksum).not.toBe(row!.destChecksum);
    expect(row!.keys).toBe([deleted.source_id, changed.source_id].join(','));
    expect(html).toContain('data-validate-again');

    // Put back: equal again, nothing listed.
    await racing.query(
      `INSERT INTO "${courses}" OVERRIDING SYSTEM VALUE SELECT * FROM jsonb_populate_record(null::"${courses}", $1::jsonb)`,
      [JSON.stringify(kept!.row)],
    );
    await racing.query(`UPDATE "${courses}" SET name = left(name, length(name) - length(' (changed)')) WHERE id = $1`, [changed.dest_id]);
    const equal = await operator.post('/Migration/ValidateAgain', { sessionId });
    expect(equal.status).toBe(200);
    const equalHtml = await equal.text();
    expect(equalHtml).toContain('data-validated="all"');
    const [back] = resultRows(equalHtml);
    expect(back).toMatchObject({ table: courses, ok: 'true', sourceCount: copied, destCount: copied, keys: '' });
    expect(back!.sourceChecksum).toBe(back!.destChecksum);
  }, 150_000);

  it('is refused without the anti-forgery token, and for unknown or malformed sessions', async () => {
    const sessionId = await newSession(operator, ['venue']);
    expect((await operator.post('/Migration/ValidateAgain', { sessionId }, { csrf: false })).status).toBe(403);
    expect((await operator.post('/Migration/ValidateAgain', { sessionId: crypto.randomUUID() })).status).toBe(404);
    expect((await operator.post('/Migration/ValidateAgain', { sessionId: 'nope' })).status).toBe(400);
  });
});

describe('natural-key matching caps', () => {
  it("keeps only the first matches up to the limit and counts the rest (the match cap, lowered through the engine's limit)", async () => {
    const jockey = LEGACY_MAPPING.tables.find((t) => t.sourceTable === 'jockey')!;
    const found = await findNaturalKeyMatches(engineEnv, legacyConnection(), freshConfigId(), { ...jockey, foreignKeys: [] }, 3);
    expect(found.matches.length).toBe(3);
    expect(found.matched).toBeGreaterThan(3);
    expect(found.scanCapped).toBe(false);
    expect(found.alreadyMapped + found.matched! + found.unmatched).toBe(found.scanned);
  }, 60_000);

  it('says which cap was reached in the summary', async () => {
    const base: MatchSummary = {
      sourceTable: 'race_entry',
      destTable: 'runners',
      alreadyMapped: 10,
      matched: 612,
      unmatched: 49_378,
      scanned: 50_000,
      scanLimit: 50_000,
      scanCapped: true,
      matchLimit: 500,
      matchCapped: true,
    };
    const render = async (s: MatchSummary) => String(await MatchSummaries({ summaries: [s] })!.toString());
    const both = await render(base);
    expect(both).toContain('data-scan-capped="true" data-match-capped="true"');
    expect(both).toContain('scan stopped at 50000 source rows; only the first 500 matches kept for review');
    const scanOnly = await render({ ...base, matched: 12, matchCapped: false });
    expect(scanOnly).toContain('scan stopped at 50000 source rows</td>');
    expect(scanOnly).not.toContain('matches kept');
    const neither = await render({ ...base, matched: 12, scanned: 4_000, unmatched: 3_978, scanCapped: false, matchCapped: false });
    expect(neither).toMatch(/<td>none<\/td>/);
  });
});
