import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import type { MigrateContext } from './context.ts';

/** Text that PostgreSQL and D1 can hold: no NUL, at most `max` characters. */
export const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !v.includes('\u0000'), 'must not contain NUL characters');

/** A SQL identifier as the source and destination schemas name tables and columns. */
export const identifier = text(128).regex(/^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/, 'must be a table or column name');

export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const sessionId = z.string().regex(GUID, 'must be a GUID');

/** A positive integer id from a form or path. */
export const intId = z.coerce.number().int().positive().max(2_147_483_647);

/** A form checkbox: present ("true", "on", "1") or absent. */
export const checkbox = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => {
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    return last === 'true' || last === 'on' || last === '1';
  });

/** Always an array: a form field sent once, many times, or not at all. */
export const many = <T extends z.ZodType>(item: T) =>
  z
    .union([item, z.array(item)])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]) as z.output<T>[]);

export function invalid(error: z.ZodError, target: string): HttpError {
  const issues = error.issues.map((issue) => ({ field: [target, ...issue.path.map(String)].join('.'), message: issue.message }));
  return new HttpError(400, 'invalid_request', `Invalid ${issues.map((i) => `${i.field} (${i.message})`).join(', ')}`, { issues });
}

export function parsed<S extends z.ZodType>(schema: S, value: unknown, target: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(result.error, target);
  return result.data;
}

export type FormBody = Record<string, string | File | (string | File)[]>;

/** The posted form (urlencoded or multipart), every field kept (repeated ones as arrays). */
export async function formBody(c: MigrateContext): Promise<FormBody> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data')) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the form as application/x-www-form-urlencoded or multipart/form-data.');
  }
  return (await c.req.parseBody({ all: true })) as FormBody;
}

export async function form<S extends z.ZodType>(c: MigrateContext, schema: S): Promise<z.output<S>> {
  return parsed(schema, await formBody(c), 'form');
}

export function query<S extends z.ZodType>(c: MigrateContext, schema: S): z.output<S> {
  return parsed(schema, c.req.queries(), 'query');
}

/**
 * Indexed form fields as ASP.NET model binding posts them (`Mappings[0].Columns[1].Dest`) → nested
 * arrays and objects. Other fields are ignored.
 */
export function indexedList(body: FormBody, name: string): unknown[] {
  const root: unknown[] = [];
  for (const [key, raw] of Object.entries(body)) {
    if (!key.startsWith(`${name}[`)) continue;
    const path = [...key.slice(name.length).matchAll(/\[(\d{1,4})\]|\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) =>
      m[1] !== undefined ? Number(m[1]) : m[2]!,
    );
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (typeof value !== 'string' || path.length === 0) continue;
    if (path.some((step) => step === '__proto__' || step === 'constructor' || step === 'prototype')) continue;
    let node: Record<string | number, unknown> = root as unknown as Record<string | number, unknown>;
    for (let i = 0; i < path.length; i++) {
      const step = path[i]!;
      if (i === path.length - 1) {
        node[step] = value;
      } else {
        const nextIsIndex = typeof path[i + 1] === 'number';
        node[step] ??= nextIsIndex ? [] : {};
        node = node[step] as Record<string | number, unknown>;
      }
    }
  }
  // Holes (a skipped index) are dropped.
  const compact = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.filter((x) => x !== undefined).map(compact)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, compact(x)]))
        : v;
  return compact(root) as unknown[];
}
