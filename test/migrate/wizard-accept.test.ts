import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import { LEGACY_CODES } from '../../scripts/racing/legacy';
import { openUrl } from '../../workers/migrate/src/engine/db';
import { allMappings } from '../../workers/migrate/src/engine/mappings';
import type { ColumnMapping, TablePlan } from '../../workers/migrate/src/engine/types';
import { destCount, engineEnv, openLegacyDirect } from './engine-support';
import { type Client, signIn } from './helpers';
import { newSession, ownLegacyConfiguration, storedPlans, uploadSchema, waitForRun } from './wizard-flow';
import { rowsAs } from './rows-as';

// "Accept all suggestions" (POST /Migration/AcceptSuggestions) on real sessions: legacy venue and
// jockey rows, which all exist in the racing database already (matched by name), so a run adds
// nothing other test projects could see.

const CONFIG_ID = 90_101;

let operator: Client;

beforeAll(async () => {
  operator = await signIn('acceptOperator');
  await ownLegacyConfiguration(operator, CONFIG_ID);
});

/** A schema file that maps the tables with one column each and no transform: every plan differs from its suggestion. */
const PARTIAL_MAPPING = {
  version: 1,
  tables: LEGACY_MAPPING.tables
    .filter((t) => t.sourceTable === 'venue' || t.sourceTable === 'jockey')
    .map((t) => ({ ...t, columns: [{ source: t.columns[0]!.source, dest: t.columns[0]!.dest }] })),
};

/** The column suggestions the ReviewMappings page shows, by source table: `source → dest`. */
function shownSuggestions(html: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const fieldset of html.matchAll(/<fieldset data-table="(\w+)">([\s\S]*?)<\/fieldset>/g)) {
    const rows = fieldset[2]!.split('<tr data-column="').slice(1);
    out[fieldset[1]!] = rows.flatMap((row) => {
      const suggested = /^(\w+)">[\s\S]*?<td data-suggestion="(\w+)">/.exec(row);
      return suggested ? [`${suggested[1]} → ${suggested[2]}`] : [];
    });
  }
  return out;
}

const pairs = (plan: TablePlan | undefined) => (plan?.columns ?? []).map((c) => `${c.source} → ${c.dest}`);
const column = (plan: TablePlan | undefined, source: string): ColumnMapping | undefined => plan?.columns.find((c) => c.source === source);
const planOf = (plans: TablePlan[], table: string) => plans.find((p) => p.sourceTable === table);

describe('Accept all suggestions', () => {
  it('stores the suggested plans with their transforms and natural keys, and a run then holds the expected values', async () => {
    const sessionId = await newSession(operator, ['venue', 'jockey']);
    expect((await uploadSchema(operator, sessionId, PARTIAL_MAPPING)).status).toBe(302);
    const before = await storedPlans(sessionId);
    expect(pairs(planOf(before, 'venue'))).toEqual(['venue_name → name']);
    expect(pairs(planOf(before, 'jockey'))).toEqual(['full_name → name']);

    const review = await operator.page(`/Migration/ReviewMappings?sessionId=${sessionId}`);
    expect(review.html).toContain('data-accept-suggestions');
    const shown = shownSuggestions(review.html);
    expect(shown.venue).toEqual(
      expect.arrayContaining(['venue_name → name', 'state_code → state', 'country_code → country', 'category_code → category']),
    );
    expect(shown.jockey).toEqual(expect.arrayContaining(['full_name → name', 'home_state → state', 'apprentice_flag → apprentice']));

    const accepted = await operator.post('/Migration/AcceptSuggestions', { sessionId });
    expect(accepted.status).toBe(302);
    expect(accepted.headers.get('location')).toBe(`/Migration/ReviewMappings?sessionId=${sessionId}`);

    // The stored plans are the suggestions the page showed: the same tables and the same column pairs.
    const after = await storedPlans(sessionId);
    expect(after.map((p) => [p.sourceTable, p.destTable])).toEqual([
      ['venue', 'courses'],
      ['jockey', 'jockeys'],
    ]);
    expect(pairs(planOf(after, 'venue')).sort()).toEqual([...shown.venue!].sort());
    expect(pairs(planOf(after, 'jockey')).sort()).toEqual([...shown.jockey!].sort());
    // With the transforms the samples call for: codes to the racing database's values (as the
    // legacy system encoded them), Y/N to boolean; plain text columns none.
    const legacyValue = (codes: Record<string, string>) => Object.fromEntries(Object.entries(codes).map(([value, code]) => [code, value]));
    const country = column(planOf(after, 'venue'), 'country_code')?.transform;
    expect(country?.kind).toBe('map');
    expect(country && 'values' in country ? country.values : {}).toEqual(expect.objectContaining({ AU: 'AUS' }));
    for (const [code, value] of Object.entries(country && 'values' in country ? country.values : {}))
      expect(value).toBe(legacyValue(LEGACY_CODES.country)[code]);
    const category = column(planOf(after, 'venue'), 'category_code')?.transform;
    expect(category).toEqual({ kind: 'map', values: legacyValue(LEGACY_CODES.category) });
    expect(column(planOf(after, 'jockey'), 'apprentice_flag')?.transform).toEqual({ kind: 'map', values: { Y: 'true', N: 'false' } });
    expect(column(planOf(after, 'venue'), 'venue_name')?.transform).toBeUndefined();
    expect(column(planOf(after, 'jockey'), 'full_name')?.transform).toBeUndefined();
    // The natural key stays where its column is still mapped.
    expect(planOf(after, 'venue')?.naturalKey).toEqual(['name']);
    expect(planOf(after, 'jockey')?.naturalKey).toEqual(['name']);

    // Accepted, the page has nothing left to accept.
    expect((await operator.page(`/Migration/ReviewMappings?sessionId=${sessionId}`)).html).not.toContain('data-accept-suggestions');

    // A run with the accepted plans matches every row by name, inserts none, and validates.
    const counts = { courses: await destCount('courses'), jockeys: await destCount('jockeys') };
    await operator.page(`/Migration/RunConfig?sessionId=${sessionId}`);
    const started = await operator.post('/Migration/RunConfig', { sessionId });
    expect(started.status).toBe(302);
    const done = await waitForRun(operator, sessionId);
    expect(done.state, done.errors.join('; ')).toBe('completed');
    expect(done.validation?.map((v) => [v.table, v.ok])).toEqual(
      expect.arrayContaining([
        ['courses', true],
        ['jockeys', true],
      ]),
    );
    expect({ courses: await destCount('courses'), jockeys: await destCount('jockeys') }).toEqual(counts);

    // Each source row's id mapping points at the destination row holding its transformed values.
    const venues = await mappedRows(
      `SELECT venue_id::text AS id, venue_name, state_code, country_code, category_code FROM venue ORDER BY venue_id`,
      'venue',
      'courses',
      'name, state, country, category',
    );
    expect(venues.source.length).toBeGreaterThan(0);
    for (const v of venues.source) {
      expect(venues.dest.get(v.id), `venue ${v.id}`).toEqual({
        name: v.venue_name,
        state: v.state_code,
        country: legacyValue(LEGACY_CODES.country)[v.country_code!],
        category: legacyValue(LEGACY_CODES.category)[v.category_code!],
      });
    }
    const jockeys = await mappedRows(
      `SELECT jockey_id::text AS id, full_name, home_state, apprentice_flag FROM jockey ORDER BY jockey_id`,
      'jockey',
      'jockeys',
      'name, state, apprentice',
    );
    expect(jockeys.source.length).toBeGreaterThan(0);
    for (const j of jockeys.source) {
      expect(jockeys.dest.get(j.id), `jockey ${j.id}`).toEqual({
        name: j.full_name,
        state: j.home_state,
        apprentice: j.apprentice_flag === 'Y',
      });
    }

    expect((await operator.postJson(`/Migration/ClearHistoryAjax?sessionId=${sessionId}`, ['courses', 'jockeys'])).status).toBe(200);
  }, 150_000);

  it("applies the table suggestion to a table not copied yet, with that table's columns", async () => {
    const sessionId = await newSession(operator, ['venue']);
    expect((await uploadSchema(operator, sessionId, PARTIAL_MAPPING)).status).toBe(302);
    expect(
      (await operator.post('/Migration/ReviewMappings', { sessionId, 'Mappings[0].SourceTable': 'venue', 'Mappings[0].DestTable': '' }))
        .status,
    ).toBe(302);
    expect(planOf(await storedPlans(sessionId), 'venue')?.destTable).toBe('');
    const review = await operator.page(`/Migration/ReviewMappings?sessionId=${sessionId}`);
    expect(review.html).toContain('data-table-suggestion="courses"');
    expect(review.html).toContain('data-accept-suggestions');
    expect((await operator.post('/Migration/AcceptSuggestions', { sessionId })).status).toBe(302);
    const venue = planOf(await storedPlans(sessionId), 'venue');
    expect(venue?.destTable).toBe('courses');
    expect(pairs(venue)).toEqual(expect.arrayContaining(['venue_name → name', 'country_code → country']));
    expect(column(venue, 'country_code')?.transform?.kind).toBe('map');
    // A natural key is proposed for the table (the page's own proposal: name, unique on both sides).
    expect(venue?.naturalKey).toEqual(['name']);
  }, 60_000);

  it('keeps a destination table the operator chose, with the columns the page suggests for it', async () => {
    const sessionId = await newSession(operator, ['trainer']);
    expect((await operator.post('/Migration/SchemaImportUseSaved', { sessionId })).status).toBe(302);
    // The operator sends trainers to jockeys (the suggestion is trainers), one column mapped.
    const chosen = await operator.post('/Migration/ReviewMappings', {
      sessionId,
      'Mappings[0].SourceTable': 'trainer',
      'Mappings[0].DestTable': 'jockeys',
      'Mappings[0].Columns[0].Source': 'full_name',
      'Mappings[0].Columns[0].Dest': 'name',
    });
    expect(chosen.status).toBe(302);
    expect(pairs(planOf(await storedPlans(sessionId), 'trainer'))).toEqual(['full_name → name']);
    const review = await operator.page(`/Migration/ReviewMappings?sessionId=${sessionId}`);
    const shown = shownSuggestions(review.html).trainer!;
    expect(shown).toEqual(['full_name → name', 'home_state → state']);
    expect(review.html).toContain('data-accept-suggestions');
    expect((await operator.post('/Migration/AcceptSuggestions', { sessionId })).status).toBe(302);
    const trainer = planOf(await storedPlans(sessionId), 'trainer');
    expect(trainer?.destTable).toBe('jockeys');
    expect(pairs(trainer)).toEqual(shown);
  }, 60_000);

  it('refuses a post without the anti-forgery token, a Viewer, and a session that does not exist, storing nothing', async () => {
    const sessionId = await newSession(operator, ['venue']);
    expect((await uploadSchema(operator, sessionId, PARTIAL_MAPPING)).status).toBe(302);
    const before = await storedPlans(sessionId);

    const noToken = await operator.post('/Migration/AcceptSuggestions', { sessionId }, { csrf: false });
    expect(noToken.status).toBe(403);
    expect(await storedPlans(sessionId)).toEqual(before);
    const otherOrigin = await operator.post(
      '/Migration/AcceptSuggestions',
      { sessionId },
      { headers: { origin: 'https://elsewhere.example' } },
    );
    expect(otherOrigin.status).toBe(403);
    expect(await storedPlans(sessionId)).toEqual(before);

    // A Viewer may read the session, not change it.
    const viewer = await signIn('acceptViewer');
    expect((await viewer.page(`/Migration/ReviewMappings?sessionId=${sessionId}`)).res.status).toBe(200);
    expect((await viewer.post('/Migration/AcceptSuggestions', { sessionId })).status).toBe(403);
    expect(await storedPlans(sessionId)).toEqual(before);

    // Another session's id changes only that session; unknown and malformed ids change nothing.
    const other = await newSession(operator, ['jockey']);
    expect((await uploadSchema(operator, other, PARTIAL_MAPPING)).status).toBe(302);
    expect((await operator.post('/Migration/AcceptSuggestions', { sessionId: other })).status).toBe(302);
    expect(pairs(planOf(await storedPlans(other), 'jockey')).length).toBeGreaterThan(1);
    expect(await storedPlans(sessionId)).toEqual(before);
    const unknown = await operator.post('/Migration/AcceptSuggestions', { sessionId: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect((await operator.post('/Migration/AcceptSuggestions', { sessionId: 'not-a-guid' })).status).toBe(400);
    expect((await operator.post('/Migration/AcceptSuggestions', {})).status).toBe(400);
    expect(await storedPlans(sessionId)).toEqual(before);
  }, 60_000);
});

describe('the session list', () => {
  it('names each session by its tables and day, as the link to it', async () => {
    const sessionId = await newSession(operator, ['venue', 'jockey', 'trainer', 'horse']);
    const created = await env.DB.prepare('select created_at from migration_sessions where id = ?')
      .bind(sessionId)
      .first<{ created_at: number }>();
    const day = new Date(created!.created_at).toISOString().slice(0, 10);
    const { res, html } = await operator.page('/Session');
    expect(res.status).toBe(200);
    const row = new RegExp(`<tr data-session="${sessionId}">([\\s\\S]*?)</tr>`).exec(html)?.[1];
    expect(row).toBeDefined();
    const link = /<a href="([^"]+)" data-session-link="true">([^<]*)<\/a>/.exec(row!);
    expect(link?.[1]).toBe(`/Migration/SchemaImport?sessionId=${sessionId}`);
    expect(link?.[2]?.trim()).toBe(`venue, jockey, trainer and 1 more — ${day}`);
    // The list scrolls sideways in its own region on a narrow screen.
    expect(html).toMatch(
      /<div class="table-scroll" role="region" aria-label="Sessions" tabindex="0">\s*<table class="grid" data-sessions="true">/,
    );
  });
});

/** Source rows (`id` their key as text) and, by source id, the destination row its id mapping of this configuration names. */
async function mappedRows(sourceQuery: string, sourceTable: string, destTable: string, destColumns: string) {
  const legacy = openLegacyDirect();
  const racing = openUrl(engineEnv, env.DATABASE_URL);
  try {
    const source = await rowsAs<Record<string, string | null> & { id: string }>(legacy, sourceQuery);
    const rows = await rowsAs<Record<string, unknown> & { source_id: string }>(
      racing,
      `SELECT m.source_id, ${destColumns
        .split(', ')
        .map((c) => `d.${c}`)
        .join(', ')}
       FROM ${allMappings('$t.config_id = $1 AND $t.dest_table = $2 AND $t.source_table = $3')} m JOIN ${destTable} d ON d.id = m.dest_id::bigint`,
      [CONFIG_ID, destTable, sourceTable],
    );
    return { source, dest: new Map(rows.map(({ source_id, ...rest }) => [source_id, rest])) };
  } finally {
    await Promise.all([legacy.end(), racing.end()]);
  }
}
