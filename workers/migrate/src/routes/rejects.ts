import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { engineEnv } from '../configurations.ts';
import type { MigrateEnv } from '../context.ts';
import { destinationReads } from '../engine/db.ts';
import { DEFAULT_REJECT_LIMIT, MAX_REJECT_LIMIT, type RejectRow, rejectRows } from '../engine/rejects.ts';
import { guard } from '../guards.ts';
import { identifier, parsed, text } from '../input.ts';
import { wizardSession } from '../wizard-sessions.ts';

/** Results → the rows a run set aside, as CSV (all tables, or one). */
export const rejects = new Hono<MigrateEnv>();

/** RunConfig's reject threshold: empty means the default; a whole number up to MAX_REJECT_LIMIT. */
export const rejectLimitField = text(7)
  .trim()
  .regex(/^\d*$/, 'must be a whole number')
  .optional()
  .transform((v) => (v ? Number(v) : DEFAULT_REJECT_LIMIT))
  .refine((n) => n <= MAX_REJECT_LIMIT, `must be at most ${MAX_REJECT_LIMIT}`);

const CSV_COLUMNS = ['table', 'source_table', 'source_key', 'column', 'value', 'sqlstate', 'reason', 'recorded_at'] as const;

/**
 * One CSV field: quoted when it holds a comma, quote or line break; a field a spreadsheet would read
 * as a formula (=, +, @, a tab or CR, or - before a non-number) is kept as text with a leading '.
 */
function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+@\t\r]|^-(?![\d.])/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(r: RejectRow): string {
  return [r.table, r.sourceTable, r.sourceId, r.column, r.value, r.sqlstate, r.message, r.createdAt].map(csvField).join(',');
}

rejects.get('/Migration/Rejects.csv', guard.read('any'), async (c) => {
  const { sessionId, table } = parsed(
    z.object({ sessionId: z.string(), table: z.union([identifier, z.literal('')]).optional() }),
    { sessionId: c.req.query('sessionId') ?? '', table: c.req.query('table') },
    'query',
  );
  const session = await wizardSession(c, sessionId);
  if (!session.runId) throw new HttpError(409, 'not_started', 'This session has not run yet.');
  if (table && !session.plans.some((p) => p.destTable === table))
    throw new HttpError(400, 'invalid_request', `${table} is not a destination table of this session.`);
  const rows = await rejectRows(destinationReads(engineEnv(c)), session.runId, { table: table || undefined, limit: MAX_REJECT_LIMIT });
  const body = [CSV_COLUMNS.join(','), ...rows.map(csvLine)].join('\r\n') + '\r\n';
  const name = `rejects-${session.runId}${table ? `-${table}` : ''}.csv`;
  return c.body(body, 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${name}"`,
  });
});
