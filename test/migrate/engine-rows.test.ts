import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RowShapeError, pgCount } from '#shared/pg.ts';
import { destinationReads, parsedRows, rows } from '../../workers/migrate/src/engine/db';
import { engineEnv, openRacing } from './engine-support';

// The engine's typed reads (engine/db.ts): each row parsed through the zod schema its statement
// declares, on a connection and over HTTP, with the driver's own values (int8 and numeric as text).

const dest = openRacing();
afterAll(() => dest.end());

const TEXT = `SELECT 12::int AS i, 9007199254740::bigint AS big, 2.50::numeric AS num, 'x'::text AS t, NULL::text AS none,
  true AS yes, ARRAY['a', 'b']::text[] AS list, json_build_object('n', 3) AS doc`;
const ROW = z.object({
  i: z.number(),
  big: pgCount,
  num: z.string(),
  t: z.string(),
  none: z.string().nullable(),
  yes: z.boolean(),
  list: z.array(z.string()),
  doc: z.object({ n: z.number() }),
});
const EXPECTED = { i: 12, big: 9007199254740, num: '2.50', t: 'x', none: null, yes: true, list: ['a', 'b'], doc: { n: 3 } };

describe('engine rows read through schemas', () => {
  it('parses a row on a connection: int8 converted by its schema, numeric kept as its text', async () => {
    expect(await rows(dest, ROW, TEXT)).toEqual([EXPECTED]);
  });

  it('parses the same row over HTTP', async () => {
    expect(await rows(destinationReads(engineEnv), ROW, TEXT)).toEqual([EXPECTED]);
  });

  it('parses the rows of a batch and of a transaction', async () => {
    const [batch = []] = await destinationReads(engineEnv).batch([{ text: TEXT }]);
    expect(parsedRows(ROW, TEXT, batch)).toEqual([EXPECTED]);
    expect(await dest.transaction((tx) => rows(tx, ROW, TEXT), { readOnly: true })).toEqual([EXPECTED]);
  });

  it('a row off its schema is a RowShapeError naming the statement, row and column', async () => {
    const text = 'SELECT n::bigint AS n FROM generate_series(1, 2) AS g(n)';
    const error = await rows(dest, z.object({ n: z.number() }), text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RowShapeError);
    expect((error as RowShapeError).message).toMatch(
      /^Row 0 of SELECT n::bigint AS n FROM generate_series.* does not match its schema: n:/,
    );
    // The same rows with the column declared as int8 arrives (text) read fine.
    expect(await rows(dest, z.object({ n: pgCount }), text)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('a missing column is refused, not read as undefined', async () => {
    await expect(rows(dest, z.object({ missing: z.string() }), 'SELECT 1 AS present')).rejects.toThrow(RowShapeError);
  });
});
