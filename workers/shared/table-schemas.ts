import { z } from '@hono/zod-openapi';

/**
 * An API answer's schema derived from a table (drizzle-zod's `createSelectSchema`, picked or
 * extended by the caller) with the integer columns as the API documents declare them: drizzle-zod
 * bounds each one to the safe-integer range, which would add `minimum` and `maximum` to every id in
 * the OpenAPI documents; here they are plain `z.number().int()` again (nullable where the column is).
 * The fields keep their order, so the documents list them as before.
 */
export function plainIntegers<S extends z.ZodObject>(schema: S): S {
  const integers: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    if (isInteger(field)) integers[key] = z.number().int();
    else if (field instanceof z.ZodNullable && isInteger(field.unwrap())) integers[key] = z.number().int().nullable();
  }
  return schema.extend(integers) as unknown as S;
}

const isInteger = (field: unknown) => field instanceof z.ZodNumber && field.isInt;
