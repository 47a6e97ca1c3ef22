import type { ErrorHandler, NotFoundHandler } from 'hono';
import { z } from '@hono/zod-openapi';
import { createApp, serveApiDocument } from '#shared/app.ts';
import { limitBody, refuseTooLarge } from '#shared/body.ts';
import { limitUrlLength, MAX_URL_LENGTH, securityHeaders } from '#shared/security-headers.ts';
import { basePath } from '#shared/base-path.ts';
import { errorHandler } from '#shared/errors.ts';
import { migrateServices, type MigrateEnv } from './context.ts';
import { FilterError, HostNotAllowedError, PlanError } from './engine/index.ts';
import { antiForgeryToken } from './guards.ts';
import { account } from './routes/account.ts';
import { api } from './routes/api.ts';
import { configuration } from './routes/configuration.ts';
import { disciplineRepair } from './routes/discipline-repair.ts';
import { home } from './routes/home.ts';
import { meetings } from './routes/meetings.ts';
import { migration } from './routes/migration.ts';
import { dryRunRoutes } from './routes/dry-run.ts';
import { rejects } from './routes/rejects.ts';
import { sessionRoutes } from './routes/session.ts';
import { imports } from './routes/imports.ts';
import { sync } from './routes/sync.ts';
import { wizardJson } from './routes/wizard-json.ts';
import { ErrorBody } from './routes/json.ts';
import { errorAnswer } from './views/errors.tsx';
import { SHEET_LIMITS } from './imports/sheet/index.ts';

/** Forms, JSON bodies and schema files alike are read through this limit (chunked bodies included). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The spreadsheet uploads (Preview, SaveAutoSync) and their limit: the sheet's plus the form's other fields. */
const SHEET_UPLOAD = /^\/(BarrierTrials|Sectional)\/(Preview|SaveAutoSync)$/;
const MAX_SHEET_BODY_BYTES = SHEET_LIMITS.maxBytes + 64 * 1024;

/** The strict page policy, with no plugins either. */
const MIGRATE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'";

// The address as the client asked for it, prefix included.
const migrateNotFound: NotFoundHandler<MigrateEnv> = (c) =>
  errorAnswer(c, 404, 'not_found', `There is nothing at ${c.req.method} ${basePath(c)}${new URL(c.req.url).pathname}.`);

// The shared handler classifies; errorAnswer draws JSON for JSON routes and a page otherwise.
const migrateOnError: ErrorHandler<MigrateEnv> = errorHandler<MigrateEnv>(
  (c, error) => errorAnswer(c, error.status, error.code, error.message, error.details),
  {
    service: 'migrate',
    // The engine's refusals of what the operator asked for: a plan that does not fit the schemas,
    // a filter that is not one read-only condition, a host off the allowed list.
    known: (err) =>
      err instanceof PlanError || err instanceof FilterError || err instanceof HostNotAllowedError
        ? {
            status: 400,
            code: err instanceof FilterError ? 'invalid_filter' : err instanceof HostNotAllowedError ? 'host_not_allowed' : 'invalid_plan',
            message: err.message,
          }
        : undefined,
  },
);

const errorContent = { 'application/json': { schema: ErrorBody }, 'text/html': { schema: z.string() } };

export function createMigrateApp() {
  const app = createApp<MigrateEnv>('migrate', {
    notFound: migrateNotFound,
    onError: migrateOnError,
    // JSON under /api/ (and for clients asking for it), an error page elsewhere.
    everyRoute: {
      413: { description: `The body is larger than ${MAX_BODY_BYTES} bytes`, methods: ['POST', 'PUT', 'DELETE'], content: errorContent },
      414: { description: `The address is longer than ${MAX_URL_LENGTH} characters`, content: errorContent },
    },
  });

  // Every answer is per user (or carries a form token): never stored by a browser or a shared cache.
  app.use('*', securityHeaders({ csp: MIGRATE_CSP, noStore: true }));
  app.use('*', async (c, next) => {
    c.set('answerJson', false);
    await next();
  });
  app.use('*', limitUrlLength(MAX_URL_LENGTH));
  app.use('*', migrateServices(), antiForgeryToken());
  const formLimit = limitBody<MigrateEnv>(MAX_BODY_BYTES, refuseTooLarge(MAX_BODY_BYTES));
  // A spreadsheet upload may be larger; past its limit the page says so (nothing is stored).
  const sheetLimit = limitBody<MigrateEnv>(MAX_SHEET_BODY_BYTES, (c) => {
    const [, area, action] = SHEET_UPLOAD.exec(c.req.path) ?? [];
    const back = action === 'SaveAutoSync' ? `/${area}/AutoSync` : `/${area}`;
    const message = `The file is larger than ${SHEET_LIMITS.maxBytes / (1024 * 1024)} MB: split the sheet, or keep only the rows to import. Nothing was stored.`;
    return c.redirect(`${back}?error=${encodeURIComponent(message)}`, 302);
  });
  app.use('*', (c, next) => (c.req.method === 'POST' && SHEET_UPLOAD.test(c.req.path) ? sheetLimit(c, next) : formLimit(c, next)));

  // In this order: a path two groups both answer goes to the first.
  for (const routes of [
    account,
    home,
    configuration,
    migration,
    rejects,
    dryRunRoutes,
    meetings,
    sessionRoutes,
    wizardJson,
    api,
    sync,
    disciplineRepair,
    imports,
  ])
    app.route('/', routes);

  app.openAPIRegistry.registerComponent('securitySchemes', 'authToken', { type: 'apiKey', in: 'cookie', name: 'AuthToken' });
  serveApiDocument(app, (c) => ({
    title: 'Migration web app: JSON routes',
    version: '1.0.0',
    description: `The JSON routes of the migration wizard and its API controllers. Sign in through ${basePath(c)}/Account/Login; the AuthToken cookie then goes with every request, and every POST carries the RequestVerificationToken header from the page.`,
  }));

  return app;
}
