import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { createApp } from '#shared/app.ts';
import { parseConfig } from '#shared/config.ts';
import {
  openRacingReads,
  parseOne,
  parseRows,
  pgCount,
  pgDate,
  pgInt,
  pgNumeric,
  racingDbConfigSchema,
  readBatch,
  readRows,
  RowShapeError,
  selectOne,
  selectRows,
  typedSql,
} from '#shared/pg.ts';

// The typed read helpers: rows are parsed through the schema their statement declares; a row that
// does not match is a RowShapeError, which a service answers as its 500.

const reads = () => openRacingReads(parseConfig(racingDbConfigSchema, env));

describe('parseRows', () => {
  const row = z.object({ id: pgInt, weight: pgNumeric, runs: pgCount, date: pgDate, jockey: z.string().nullable() });

  it('turns driver text of numeric and int8 columns into numbers, and drops columns the schema does not name', () => {
    expect(parseRows('a test', row, [{ id: 1, weight: '57.5', runs: '12', date: '2026-01-02', jockey: null, extra: true }])).toEqual([
      { id: 1, weight: 57.5, runs: 12, date: '2026-01-02', jockey: null },
    ]);
    expect(parseRows('a test', row, [{ id: 1, weight: 57.5, runs: 12, date: '2026-01-02', jockey: 'J' }])[0]?.weight).toBe(57.5);
  });

  it('refuses the first row off the schema, naming the statement, the row and the field', () => {
    const good = { id: 1, weight: '57.5', runs: '1', date: '2026-01-02', jockey: null };
    const bad = { ...good, weight: 'heavy' };
    let error: unknown;
    try {
      parseRows('the weights', row, [good, bad]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RowShapeError);
    expect((error as RowShapeError).statement).toBe('the weights');
    expect((error as RowShapeError).rowIndex).toBe(1);
    expect((error as Error).message).toMatch(/^Row 1 of the weights does not match its schema: weight: /);
    for (const off of [
      { ...good, id: '1' },
      { ...good, id: 1.5 },
      { ...good, date: '2/1/2026' },
      { ...good, jockey: undefined },
      { ...good, runs: '1e3' },
      null,
    ]) {
      expect(() => parseRows('the weights', row, [off])).toThrow(RowShapeError);
    }
  });

  it('parseOne wants exactly one row', () => {
    expect(parseOne('one', z.object({ n: pgInt }), [{ n: 1 }])).toEqual({ n: 1 });
    expect(() => parseOne('one', z.object({ n: pgInt }), [])).toThrow(
      /Row 0 of one does not match its schema: row: expected one row, got 0/,
    );
    expect(() => parseOne('one', z.object({ n: pgInt }), [{ n: 1 }, { n: 2 }])).toThrow(RowShapeError);
  });
});

describe('against the racing database', () => {
  it('selectRows and selectOne parse what the server answers; their types are the schema output', async () => {
    const db = reads();
    const rows = await selectRows(
      db,
      typedSql(
        'two numbers',
        z.object({ n: pgInt, w: pgNumeric, c: pgCount }),
        sql`select 1 as n, 57.5::numeric(4,1) as w, count(*) as c from (values (1), (2)) v`,
      ),
    );
    expect(rows).toEqual([{ n: 1, w: 57.5, c: 2 }]);
    expectTypeOf(rows).toEqualTypeOf<{ n: number; w: number; c: number }[]>();
    const one = await selectOne(db, typedSql('a date', z.object({ d: pgDate }), sql`select ${'2026-03-04'}::date::text as d`));
    expect(one).toEqual({ d: '2026-03-04' });
  });

  it('a row the server answers off the declared schema is a RowShapeError', async () => {
    const db = reads();
    await expect(selectRows(db, typedSql('a name', z.object({ name: z.string() }), sql`select 42 as name`))).rejects.toThrow(RowShapeError);
    await expect(
      readRows(db, { name: 'a count', text: 'select count(*) as n from (values (1)) v', row: z.object({ n: z.boolean() }) }),
    ).rejects.toThrow(/Row 0 of a count does not match its schema: n: /);
  });

  it('readBatch parses each statement of the round trip with its own schema', async () => {
    const db = reads();
    const [a, b] = await readBatch(db, [
      { name: 'first', text: 'select $1::int as n', params: [7], row: z.object({ n: pgInt }) },
      { name: 'second', text: "select 'x' as s", row: z.object({ s: z.string() }) },
    ]);
    expect(a).toEqual([{ n: 7 }]);
    expect(b).toEqual([{ s: 'x' }]);
    expectTypeOf(a).toEqualTypeOf<{ n: number }[]>();
    expectTypeOf(b).toEqualTypeOf<{ s: string }[]>();
    await expect(
      readBatch(db, [
        { name: 'first', text: 'select 1 as n', row: z.object({ n: pgInt }) },
        { name: 'second', text: "select 'x' as s", row: z.object({ s: pgInt }) },
      ]),
    ).rejects.toThrow(/Row 0 of second does not match its schema: s: /);
  });

  it("a service answers a row off its schema with its error handler's 500, not the row", async () => {
    const app = createApp('platform-test');
    app.get('/typed', async (c) =>
      c.json(await selectRows(reads(), typedSql('a name', z.object({ name: z.string() }), sql`select 42 as name`))),
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const ctx = createExecutionContext();
      const res = await app.request('/typed', {}, env, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: 'internal_error' });
      expect(logged.mock.calls.some((args) => String(args[0]).includes('Row 0 of a name does not match its schema: name'))).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });
});
