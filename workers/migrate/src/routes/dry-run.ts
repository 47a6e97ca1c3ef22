import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '#shared/http-error.ts';
import { engineEnv } from '../configurations.ts';
import type { MigrateEnv } from '../context.ts';
import { DEFAULT_DRY_RUN_ROWS, MAX_DRY_RUN_ROWS, dryRun } from '../engine/dry-run.ts';
import { guard } from '../guards.ts';
import { formBody, parsed, text } from '../input.ts';
import { runPlanOf } from '../runs.ts';
import { DryRunPage } from '../views/wizard/dry-run.tsx';
import { wizardSession } from '../wizard-sessions.ts';

/** RunConfig → Dry run: the session's plan on the first N rows of each table, rolled back, and its report. */
export const dryRunRoutes = new Hono<MigrateEnv>();

const rowsField = text(5)
  .trim()
  .regex(/^\d*$/, 'must be a whole number')
  .optional()
  .transform((v) => (v ? Number(v) : DEFAULT_DRY_RUN_ROWS))
  .refine((n) => n >= 1 && n <= MAX_DRY_RUN_ROWS, `must be from 1 to ${MAX_DRY_RUN_ROWS}`);

dryRunRoutes.post('/Migration/DryRun', guard.write('operator'), async (c) => {
  const body = await formBody(c);
  const { rows } = parsed(z.object({ rows: rowsField }), body, 'form');
  const session = await wizardSession(c, body.sessionId);
  // A fresh run id: the dry run's cursors and mappings exist only inside its rolled-back transaction.
  const { plan } = await runPlanOf(c, session, crypto.randomUUID());
  if (plan.tables.length === 0) throw new HttpError(400, 'nothing_to_copy', 'No selected table is mapped to a destination table.');
  // A plan that does not fit the schemas or a refused filter: PlanError or FilterError, a 400 with the reasons.
  const report = await dryRun(engineEnv(c), plan, rows);
  return c.html(DryRunPage({ csrf: c.var.csrfToken, user: c.var.user, session, report }));
});
