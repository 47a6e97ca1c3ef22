// What the import routes share: reading their forms, the uploaded or example sheet, the filter.

import { z } from '@hono/zod-openapi';
import type { MigrateContext } from '../../context.ts';
import type { ImportArea, ImportAreaDef } from '../../imports/areas.ts';
import { compileSheetFilter, SheetFilterError } from '../../imports/filter.ts';
import { SheetError } from '../../imports/sheet/index.ts';
import { EXAMPLES_PREFIX, SheetUnavailableError } from '../../imports/storage.ts';
import { type FormBody, sessionId } from '../../input.ts';
import type { jsonRoutes } from '../json.ts';

export type ImportRoutes = ReturnType<typeof jsonRoutes>;

export const last = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);
export const one = (body: FormBody, name: string): string => {
  const v = last(body[name]);
  return typeof v === 'string' ? v : '';
};
export const fkOf = (def: ImportAreaDef, body: FormBody) =>
  Object.fromEntries(def.fk.map((f) => [f.key, one(body, `fk.${f.key}`) || def.defaultFk[f.key]!]));
export const withError = (path: string, message: string) => `${path}?error=${encodeURIComponent(message.slice(0, 600))}`;

/** A file field of the form: its bytes and name, or null when none was chosen. */
export async function fileField(body: FormBody, name: string): Promise<{ bytes: Uint8Array; name: string } | null> {
  const v = last(body[name]);
  if (!(v instanceof File) || (v.size === 0 && !v.name)) return null;
  return { bytes: new Uint8Array(await v.arrayBuffer()), name: v.name || 'sheet' };
}

/** An example sheet kept in R2 under `examples/<area>/` (the dev runner puts some there), as an upload. */
export async function exampleSheet(c: MigrateContext, area: ImportArea, name: string): Promise<{ bytes: Uint8Array; name: string } | null> {
  if (!/^[A-Za-z0-9._ -]{1,100}$/.test(name) || name.startsWith('.')) return null;
  const object = await c.env.SHEETS.get(`${EXAMPLES_PREFIX}${area}/${name}`);
  return object ? { bytes: new Uint8Array(await object.arrayBuffer()), name } : null;
}

/** The filter as typed (''), or a SheetFilterError's message. */
export function checkedFilter(def: ImportAreaDef, text: string): { filter: string } | { error: string } {
  const filter = text.trim();
  if (!filter) return { filter: '' };
  try {
    compileSheetFilter(
      filter,
      def.columns.map((c) => c.key),
    );
    return { filter };
  } catch (error) {
    return { error: error instanceof SheetFilterError ? error.message : String(error) };
  }
}

/** What a user can do about a sheet the import cannot use; other errors propagate. */
export function sheetProblem(error: unknown): string | null {
  if (error instanceof SheetError || error instanceof SheetFilterError || error instanceof SheetUnavailableError) return error.message;
  return null;
}

export const JobQuery = z.object({ jobId: z.preprocess(last, sessionId) });
