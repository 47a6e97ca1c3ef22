import { createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { activeConfiguration, activeConnection, engineEnv } from '../configurations.ts';
import type { MigrateContext } from '../context.ts';
import {
  disciplineRepairJob,
  findRepairJob,
  previewRepair,
  recentRepairJobs,
  recordRepairJob,
  updateRepairJob,
  type RepairPreview,
  type RepairProgress,
} from '../discipline-repair.ts';
import { destinationReads, sourceReads } from '../engine/db.ts';
import { guard } from '../guards.ts';
import { formBody, parsed, query, sessionId } from '../input.ts';
import { sourceQuery } from '../meetings.ts';
import { DisciplineRepairIndexPage, DisciplineRepairProgressPage } from '../views/discipline-repair.tsx';
import { ErrorBody, guardedResponses, JobIdParam, json, jsonRoutes, security } from './json.ts';

/** Discipline repair: set destination races' discipline from the source (spec 002 A, Discipline repair). */
export const disciplineRepair = jsonRoutes();

const progressUrl = (jobId: string) => `/DisciplineRepair/Progress?jobId=${jobId}`;
const last = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);
const JobQuery = z.object({ jobId: z.preprocess(last, sessionId) });

/** The job's progress from its Durable Object; 404 when no such job was started. */
async function jobProgress(c: MigrateContext, jobId: string): Promise<RepairProgress> {
  const row = await findRepairJob(c.var.db, jobId.toLowerCase());
  const progress = row ? await disciplineRepairJob(c, row.jobId).progress() : null;
  if (!row || !progress) throw new HttpError(404, 'not_found', `There is no discipline repair job ${jobId}.`);
  if (progress.state !== row.state || progress.changed !== row.changed)
    await updateRepairJob(c.var.db, row.jobId, progress.state, progress.changed, Date.now());
  return progress;
}

disciplineRepair.get('/DisciplineRepair', guard.read('any'), async (c) => {
  const [config, jobs] = await Promise.all([activeConfiguration(c.var.db), recentRepairJobs(c)]);
  let preview: RepairPreview | null = null;
  let previewError: string | undefined;
  if (config) {
    try {
      const { conn } = await activeConnection(c);
      const env = engineEnv(c);
      // Look-ups only: each statement one round trip over the HTTP read path.
      const dest = destinationReads(env);
      preview = await previewRepair({
        source: sourceQuery(sourceReads(env, conn), config),
        dest: (t, v) => dest.query(t, v),
        configId: config.id,
      });
    } catch (err) {
      previewError = `The preview could not be made: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
    }
  }
  return c.html(
    DisciplineRepairIndexPage({ csrf: c.var.csrfToken, user: c.var.user, configuration: config ?? null, preview, previewError, jobs }),
  );
});

disciplineRepair.post('/DisciplineRepair/Start', guard.write('operator'), async (c) => {
  const { config, conn } = await activeConnection(c);
  const jobId = crypto.randomUUID();
  await recordRepairJob(c.var.db, { jobId, configId: config.id, startedBy: c.var.user.email }, Date.now());
  await disciplineRepairJob(c, jobId).start({
    jobId,
    configId: config.id,
    configName: config.name,
    source: conn,
    startedBy: c.var.user.email,
  });
  return c.redirect(progressUrl(jobId), 302);
});

disciplineRepair.get('/DisciplineRepair/Progress', guard.read('any'), async (c) => {
  const { jobId } = query(c, JobQuery);
  const progress = await jobProgress(c, jobId);
  const row = await findRepairJob(c.var.db, progress.jobId);
  return c.html(DisciplineRepairProgressPage({ csrf: c.var.csrfToken, user: c.var.user, progress, startedBy: row?.startedBy ?? '' }));
});

disciplineRepair.post('/DisciplineRepair/Cancel', guard.write('operator'), async (c) => {
  const { jobId } = parsed(z.object({ jobId: z.preprocess(last, sessionId) }), await formBody(c), 'form');
  const progress = await jobProgress(c, jobId);
  await disciplineRepairJob(c, progress.jobId).cancel();
  return c.redirect(progressUrl(progress.jobId), 302);
});

// ---- JSON ----

const LogEntry = z
  .object({ level: z.enum(['Information', 'Warning', 'Error']), message: z.string(), timestamp: z.string() })
  .openapi('RepairLogEntry');
const Change = z
  .object({
    raceId: z.number().describe('The destination race (races.id)'),
    sourceRaceId: z.number().describe('Its source counterpart (race_event.race_id)'),
    meeting: z.string().describe('The source meeting: date and venue'),
    raceNumber: z.number(),
    from: z.string().describe('race_type before'),
    to: z.string().describe('race_type after: the source discipline'),
    pairedBy: z.enum(['id mapping', 'race number']),
    changedAt: z.string(),
  })
  .openapi('RepairChange');
const RepairProgressBody = z
  .object({
    jobId: z.string(),
    state: z.enum(['queued', 'running', 'cancelling', 'cancelled', 'completed', 'failed']),
    checked: z.number().describe('Source races checked so far'),
    changed: z.number().describe('Destination races changed so far'),
    total: z.number().describe('Source races to check (0 until counted)'),
    log: z.array(LogEntry),
    summary: z.object({
      changes: z.array(Change).describe('The changes made, oldest first (at most 1,000 listed)'),
      configuration: z.string(),
      meetingsScanned: z.number(),
      daysScanned: z.number(),
      totalDays: z.number(),
      pairedRaces: z.number(),
      sourceRacesWithoutCounterpart: z.number(),
      destinationRacesWithoutCounterpart: z.number().describe('Destination races not paired with a source race (so far): left alone'),
      unknownCodes: z.number().describe('Paired races whose source discipline code is not F, H or S: left alone'),
      alreadyRepaired: z.number().describe('Races found wrong whose value had changed before their update ran'),
      startedAt: z.string().nullable(),
      finishedAt: z.string().nullable(),
      errors: z.array(z.string()),
    }),
  })
  .openapi('DisciplineRepairProgress');

disciplineRepair.openapi(
  createRoute({
    method: 'get',
    path: '/api/discipline-repair/progress/{jobId}',
    summary: "A discipline repair job's progress, log and summary",
    security,
    middleware: [guard.read('any', { json: true })],
    request: { params: JobIdParam },
    responses: { 200: json(RepairProgressBody, 'Progress'), 404: json(ErrorBody, 'No such job'), ...guardedResponses },
  }),
  async (c) => c.json(await jobProgress(c, c.req.valid('param').jobId), 200),
);
