import { OpenAPIHono, z } from '@hono/zod-openapi';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createSelectSchema } from 'drizzle-zod';
import { describe, expect, it } from 'vitest';
import { plainIntegers } from '#shared/table-schemas.ts';

// Response schemas derived from tables (drizzle-zod) document the same as the hand-written ones
// they replace: plain integers, nullable where the column is, the fields in the order given.

const things = sqliteTable('things', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  size: integer('size'),
  kind: text('kind', { enum: ['a', 'b'] }).notNull(),
  shown: integer('shown', { mode: 'boolean' }).notNull(),
  ownerId: integer('owner_id').notNull(),
});

/** The OpenAPI document's component for a schema. */
function documented(schema: z.ZodType) {
  const app = new OpenAPIHono();
  app.openAPIRegistry.register('Thing', schema);
  return app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'test', version: '1' } }).components?.schemas?.Thing;
}

describe('a schema from a table', () => {
  it('drizzle-zod alone bounds every integer, which would change the documents', () => {
    const component = JSON.stringify(documented(createSelectSchema(things)));
    expect(component).toContain('"maximum":9007199254740991');
  });

  it('documents as the hand-written schema: plain integers, nullable columns, enums and booleans, in the picked order', () => {
    const derived = plainIntegers(
      createSelectSchema(things).pick({ id: true, ownerId: true, name: true, size: true, kind: true, shown: true }),
    );
    const written = z.object({
      id: z.number().int(),
      ownerId: z.number().int(),
      name: z.string(),
      size: z.number().int().nullable(),
      kind: z.enum(['a', 'b']),
      shown: z.boolean(),
    });
    expect(JSON.stringify(documented(derived))).toBe(JSON.stringify(documented(written)));
  });

  it('still checks integers and nulls', () => {
    const derived = plainIntegers(createSelectSchema(things).pick({ id: true, size: true }));
    expect(derived.parse({ id: 3, size: null })).toEqual({ id: 3, size: null });
    expect(derived.safeParse({ id: 1.5, size: null }).success).toBe(false);
    expect(derived.safeParse({ id: 1, size: 'x' }).success).toBe(false);
    expect(derived.safeParse({ id: null, size: 2 }).success).toBe(false);
  });
});
