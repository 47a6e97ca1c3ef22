import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_MAPPING } from '../../scripts/racing/legacy-mapping';
import type { Sql } from '../../workers/migrate/src/engine/db';
import { createDestination, destCount, openLegacyDirect, openRacing, type TestDestination } from './engine-support';
import { type Client, type FormFields, signIn } from './helpers';
import { ownLegacyConfiguration, uploadSchema, waitForRun } from './wizard-flow';
import { rowsAs } from './rows-as';

// The wizard as one path, taken the way a browser takes it: each page's own form posted with the
// values the page put in it (HTMLRewriter reads them), on legacy tables whose rows are all in the
// racing database already. The step bar of every page, the disabled steps and their reasons, the
// Run page's summary, and a run of every default leaving the destination's row counts as they were.

const CONFIG_ID = 90_103;
const ORDER = [
  'TableSelection',
  'SchemaImport',
  'ReviewMappings',
  'FilterConfig',
  'RelationshipConfig',
  'RunConfig',
  'Progress',
  'Results',
];

let operator: Client;
let racing: Sql;
let target: TestDestination;

beforeAll(async () => {
  operator = await signIn('pathOperator');
  await ownLegacyConfiguration(operator, CONFIG_ID);
  racing = openRacing();
  target = await createDestination(racing, 'path', { tables: ['courses'] });
}, 60_000);

afterAll(async () => {
  await target?.drop();
  await racing?.end();
});

const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * What a browser would send for the form posting to `action` as the page rendered it: named inputs
 * (checkboxes and radios only when checked), each select's selected option (else its first), and
 * textareas. The anti-forgery field is left to the client, which adds its own.
 */
async function formFields(html: string, action: string): Promise<FormFields> {
  const scope = `form[action="${action}"]`;
  const fields: Record<string, string[]> = {};
  const add = (name: string, value: string) => {
    if (name !== '__RequestVerificationToken') (fields[name] ??= []).push(decode(value));
  };
  const selects: { name: string; first?: string; chosen?: string }[] = [];
  const areas: { name: string; text: string }[] = [];
  let found = false;
  await new HTMLRewriter()
    .on(scope, {
      element() {
        found = true;
      },
    })
    .on(`${scope} input`, {
      element(el) {
        const name = el.getAttribute('name');
        const type = (el.getAttribute('type') ?? 'text').toLowerCase();
        if (!name || el.hasAttribute('disabled') || ['submit', 'button', 'file', 'reset'].includes(type)) return;
        if ((type === 'checkbox' || type === 'radio') && !el.hasAttribute('checked')) return;
        add(name, el.getAttribute('value') ?? (type === 'checkbox' ? 'on' : ''));
      },
    })
    .on(`${scope} select`, {
      element(el) {
        selects.push({ name: el.getAttribute('name') ?? '' });
      },
    })
    .on(`${scope} select option`, {
      element(el) {
        const select = selects.at(-1)!;
        const value = el.getAttribute('value') ?? '';
        select.first ??= value;
        if (el.hasAttribute('selected')) select.chosen = value;
      },
    })
    .on(`${scope} textarea`, {
      element(el) {
        areas.push({ name: el.getAttribute('name') ?? '', text: '' });
      },
      text(chunk) {
        areas.at(-1)!.text += chunk.text;
      },
    })
    .transform(new Response(html))
    .text();
  expect(found, `a form posting to ${action}`).toBe(true);
  for (const s of selects) if (s.name) add(s.name, s.chosen ?? s.first ?? '');
  for (const a of areas) if (a.name) add(a.name, a.text);
  return fields;
}

type BarStep = { step: string; current: boolean; disabled: string | null };

/** The page's step bar: each step in its order, whether it is the current one, and why it is disabled. */
function stepBar(html: string): BarStep[] {
  const nav = /<nav aria-label="Wizard steps">([\s\S]*?)<\/nav>/.exec(html);
  expect(nav, 'the page has the step bar').not.toBeNull();
  return [...nav![1]!.matchAll(/<li( aria-current="step")? data-step="(\w+)"( data-disabled="true")?>([\s\S]*?)<\/li>/g)].map((m) => ({
    step: m[2]!,
    current: m[1] !== undefined,
    disabled: m[3] ? (/<small class="reason">\(([^)]*)\)<\/small>/.exec(m[4]!)?.[1] ?? '(no reason)') : null,
  }));
}

/** The bar expected on `current`'s page: every step in the one order, each later one disabled for `reasons[step]`. */
function expectedBar(current: string, reasons: Record<string, string> = {}): BarStep[] {
  return ORDER.map((step) => ({ step, current: step === current, disabled: reasons[step] ?? null }));
}

const NO_SCHEMA = {
  ReviewMappings: 'import the schema first',
  FilterConfig: 'import the schema first',
  RelationshipConfig: 'import the schema first',
  RunConfig: 'import the schema first',
};
const NO_RUN = { Progress: 'no run yet', Results: 'no run yet' };

/** Posts the page's form as it stands (plus `extra`) and returns where it leads. */
async function next(html: string, action: string, extra: FormFields = {}): Promise<string> {
  const res = await operator.post(action, { ...(await formFields(html, action)), ...extra });
  expect(res.status, `${action}: ${res.status}`).toBe(302);
  return res.headers.get('location') ?? '';
}

async function legacyCount(text: string): Promise<number> {
  const sql = openLegacyDirect();
  try {
    return Number((await rowsAs<{ n: string }>(sql, text))[0]!.n);
  } finally {
    await sql.end();
  }
}

describe('one path through the wizard', () => {
  it('shows the steps in one order on every page, disables the unreachable ones with the reason, and each Next leads to the following step', async () => {
    const tables = await operator.page('/Migration/TableSelection');
    expect(stepBar(tables.html)).toEqual(
      expectedBar('TableSelection', Object.fromEntries(ORDER.slice(1).map((s) => [s, 'select tables first']))),
    );
    const toSchema = await next(tables.html, '/Migration/TableSelection', { selectedTables: ['trainer', 'jockey'] });
    const sessionId = /^\/Migration\/SchemaImport\?sessionId=([0-9a-f-]{36})$/.exec(toSchema)?.[1];
    expect(sessionId, toSchema).toBeDefined();
    const at = (step: string) => `/Migration/${step}?sessionId=${sessionId}`;

    const schema = await operator.page(at('SchemaImport'));
    expect(stepBar(schema.html)).toEqual(expectedBar('SchemaImport', { ...NO_SCHEMA, ...NO_RUN }));
    // The table step of a session links back to it with its id.
    expect(schema.html).toContain(`href="/Migration/TableSelection?sessionId=${sessionId}"`);
    expect(await next(schema.html, '/Migration/SchemaImportUseSaved')).toBe(at('ReviewMappings'));

    const review = await operator.page(at('ReviewMappings'));
    expect(stepBar(review.html)).toEqual(expectedBar('ReviewMappings', NO_RUN));
    // The pairs operators had to pick by hand, suggested with their reason (jockey and trainer alike).
    for (const table of ['trainer', 'jockey']) {
      for (const [source, dest, reason] of [
        ['full_name', 'name', 'without the prefix full_'],
        ['home_state', 'state', 'without the prefix home_'],
      ]) {
        expect(review.html, `${table}.${source}`).toMatch(
          new RegExp(`<tr data-column="${source}">[\\s\\S]*?<td data-suggestion="${dest}">[\\s\\S]*?${reason}`),
        );
        expect(review.html).toMatch(
          new RegExp(
            `<select name="[^"]+" aria-label="Destination column for ${table}\\.${source}">[\\s\\S]*?<option value="${dest}" selected=""`,
          ),
        );
      }
    }
    expect(await next(review.html, '/Migration/ReviewMappings')).toBe(at('FilterConfig'));

    const filters = await operator.page(at('FilterConfig'));
    expect(stepBar(filters.html)).toEqual(expectedBar('FilterConfig', NO_RUN));
    expect(filters.html).toContain('Row filter for trainer');
    expect(await next(filters.html, '/Migration/FilterConfig')).toBe(at('RelationshipConfig'));

    const relations = await operator.page(at('RelationshipConfig'));
    expect(stepBar(relations.html)).toEqual(expectedBar('RelationshipConfig', NO_RUN));
    for (const table of ['trainer', 'jockey']) {
      expect(relations.html, table).toMatch(
        new RegExp(
          `data-natural-key="${table}"[\\s\\S]*?data-key-proposal="name">Proposed: name — full_name is unique in \\d+ sampled source rows`,
        ),
      );
    }
    expect(await next(relations.html, '/Migration/RelationshipConfig')).toBe(at('RunConfig'));

    const run = await operator.page(at('RunConfig'));
    expect(stepBar(run.html)).toEqual(expectedBar('RunConfig', NO_RUN));
    expect(run.html).not.toContain('data-duplicate-risk');
    for (const dest of ['trainers', 'jockeys'])
      expect(run.html).toMatch(new RegExp(`<tr data-table="${dest}">[\\s\\S]*?data-natural-key="name"`));

    const counts = { trainers: await destCount('trainers'), jockeys: await destCount('jockeys') };
    expect(await next(run.html, '/Migration/RunConfig')).toBe(at('Progress'));
    const done = await waitForRun(operator, sessionId!);
    expect(done.state, done.errors.join('; ')).toBe('completed');
    expect(done.validation?.map((v) => [v.table, v.ok]).sort()).toEqual([
      ['jockeys', true],
      ['trainers', true],
    ]);
    // Every default taken: nothing inserted again.
    expect({ trainers: await destCount('trainers'), jockeys: await destCount('jockeys') }).toEqual(counts);
    expect(done.tables.reduce((n, t) => n + t.inserted, 0)).toBe(0);

    const progress = await operator.page(at('Progress'));
    expect(stepBar(progress.html)).toEqual(expectedBar('Progress'));
    expect(progress.html).not.toContain('data-no-run');
    const results = await operator.page(at('Results'));
    expect(stepBar(results.html)).toEqual(expectedBar('Results'));
    expect(results.html).toContain('data-validated="all"');

    expect((await operator.postJson(`/Migration/ClearHistoryAjax?sessionId=${sessionId}`, ['trainers', 'jockeys'])).status).toBe(200);
  }, 150_000);
});

describe('the Run page as a summary', () => {
  it('lists the tables in run order with their rows after the row filter, mapped and unmapped columns, keys, foreign keys and patch mode', async () => {
    const tables = await operator.page('/Migration/TableSelection');
    const toSchema = await next(tables.html, '/Migration/TableSelection', { selectedTables: ['race_meeting', 'venue'] });
    const sessionId = /sessionId=([0-9a-f-]{36})$/.exec(toSchema)![1]!;
    const at = (step: string) => `/Migration/${step}?sessionId=${sessionId}`;
    expect(await next((await operator.page(at('SchemaImport'))).html, '/Migration/SchemaImportUseSaved')).toBe(at('ReviewMappings'));
    const filters = await operator.page(at('FilterConfig'));
    const fields = await formFields(filters.html, '/Migration/FilterConfig');
    // The row filter of venue, in the field the page gives it.
    const index = Object.entries(fields).find(([k, v]) => /^filters\[\d+\]\.TableName$/.test(k) && v[0] === 'venue')?.[0];
    expect(index, 'a row filter field for venue').toBeDefined();
    const filterField = index!.replace('TableName', 'Filter');
    const res = await operator.post('/Migration/FilterConfig', { ...fields, [filterField]: 'venue_id <= 60' });
    expect(res.headers.get('location')).toBe(at('RelationshipConfig'));

    const run = await operator.page(at('RunConfig'));
    const summary = /<h2>Tables in run order[\s\S]*?<\/table>/.exec(run.html)?.[0] ?? run.html;
    const order = [...(/<ol data-run-order[^>]*>([\s\S]*?)<\/ol>/.exec(run.html)?.[1] ?? '').matchAll(/<li>(\w+)<\/li>/g)].map((m) => m[1]);
    expect(order, summary).toEqual(['courses', 'meetings']);
    const rows = Object.fromEntries(
      [...run.html.matchAll(/<tr data-table="(\w+)">([\s\S]*?)<\/tr>/g)].map((m) => [
        m[1],
        [...m[2]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()),
      ]),
    );
    // Source → destination, rows after the filter, mapped, not copied, natural key, foreign keys.
    expect(rows.courses?.[0], summary).toBe('venue → courses');
    expect(rows.courses?.[1]).toBe(`${await legacyCount('SELECT count(*) AS n FROM venue WHERE venue_id <= 60')} (filtered)`);
    expect(rows.courses?.[2]).toContain('venue_name → name');
    expect(rows.courses?.[2]).toContain('country_code → country');
    expect(rows.courses?.[3]).toBe('venue_code');
    expect(rows.courses?.[4]).toBe('name');
    expect(rows.courses?.[5]).toBe('none');
    expect(rows.meetings?.[0], summary).toBe('race_meeting → meetings');
    expect(rows.meetings?.[1]).toBe(String(await legacyCount('SELECT count(*) AS n FROM race_meeting')));
    expect(rows.meetings?.[5]).toContain('course_id → courses');
    // The row filters are labelled as such, and patch mode is offered (off by default).
    expect(run.html).toContain('<h2>Row filters</h2>');
    expect(run.html).toContain('Row filter for venue');
    expect(run.html).toMatch(/<input type="checkbox" name="patchMode" value="true"\/?> Patch mode/);
  }, 60_000);
});

describe('the duplicate warning', () => {
  it('estimates the rows a start would insert again, and a confirmed start inserts exactly those', async () => {
    // A copy of courses of this file's own, already holding three courses the legacy venues name.
    const courses = target.name('courses');
    await racing.query(`INSERT INTO "${courses}" OVERRIDING SYSTEM VALUE SELECT * FROM courses ORDER BY id LIMIT 3`);
    await racing.query(`SELECT setval(pg_get_serial_sequence('"${courses}"', 'id'), (SELECT max(id) + 1 FROM courses), false)`);
    const held = Number((await rowsAs<{ n: string }>(racing, `SELECT count(*)::bigint AS n FROM "${courses}"`))[0]!.n);
    expect(held).toBe(3);

    const venue = LEGACY_MAPPING.tables.find((t) => t.sourceTable === 'venue')!;
    const tables = await operator.page('/Migration/TableSelection');
    const toSchema = await next(tables.html, '/Migration/TableSelection', { selectedTables: ['venue'] });
    const sessionId = /sessionId=([0-9a-f-]{36})$/.exec(toSchema)![1]!;
    const at = (step: string) => `/Migration/${step}?sessionId=${sessionId}`;
    expect(
      (await uploadSchema(operator, sessionId, { version: 1, tables: [{ ...venue, destTable: courses, naturalKey: [] }] })).status,
    ).toBe(302);
    // The first 20 venues, by a row filter.
    const legacy = openLegacyDirect();
    const [twentieth] = await rowsAs<{ id: string }>(
      legacy,
      'SELECT venue_id::text AS id FROM venue ORDER BY venue_id OFFSET 19 LIMIT 1',
    ).finally(() => legacy.end());
    const filter = `venue_id <= ${twentieth!.id}`;
    const filters = await operator.page(at('FilterConfig'));
    expect(await next(filters.html, '/Migration/FilterConfig', { 'filters[0].TableName': 'venue', 'filters[0].Filter': filter })).toBe(
      at('RelationshipConfig'),
    );
    // The proposed key comes ticked; the operator unticks it, leaving the table without a key.
    const relations = await operator.page(at('RelationshipConfig'));
    const fields = await formFields(relations.html, '/Migration/RelationshipConfig');
    expect(fields['columnConfigs[0].NaturalKey']).toEqual(['', 'name']);
    expect(await next(relations.html, '/Migration/RelationshipConfig', { 'columnConfigs[0].NaturalKey': [''] })).toBe(at('RunConfig'));

    const sourceRows = await legacyCount(`SELECT count(*) AS n FROM venue WHERE ${filter}`);
    expect(sourceRows).toBe(20);
    const run = await operator.page(at('RunConfig'));
    expect(run.html).toContain('data-duplicate-risk');
    // Nothing of this table is in the id mappings yet: every filtered source row is at risk.
    expect(run.html).toContain(`data-risk-table="${courses}" data-rows-at-risk="${sourceRows}"`);
    expect(run.html).toContain(`already holds ${held} rows`);
    expect(run.html).toMatch(/<input type="checkbox" name="confirmDuplicates" value="true" form="start-form"\/?>/);

    // The page's form as it stands (the box not ticked) starts nothing.
    const refused = await operator.post('/Migration/RunConfig', await formFields(run.html, '/Migration/RunConfig'));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('data-duplicate-risk');
    expect(await env.DB.prepare('select run_id from migration_sessions where id = ?').bind(sessionId).first('run_id')).toBeNull();

    // Ticked: the run starts and inserts the estimated rows.
    expect(await next(run.html, '/Migration/RunConfig', { confirmDuplicates: 'true' })).toBe(at('Progress'));
    const done = await waitForRun(operator, sessionId);
    expect(done.state, done.errors.join('; ')).toBe('completed');
    const after = Number((await rowsAs<{ n: string }>(racing, `SELECT count(*)::bigint AS n FROM "${courses}"`))[0]!.n);
    expect(after).toBe(held + sourceRows);
  }, 120_000);
});
