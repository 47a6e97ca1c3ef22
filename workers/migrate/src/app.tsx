import type { ErrorHandler, NotFoundHandler } from 'hono';
import { z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { createApp, serveApiDocument } from '#shared/app.ts';
import { basePath } from '#shared/base-path.ts';
import { logError } from '#shared/errors.ts';
import { HttpError } from '#shared/http-error.ts';
import { asDatabaseUnavailable } from '#shared/pg-errors.ts';
import { ConfigError } from '#shared/config.ts';
import { migrateServices, type MigrateEnv } from './context.ts';
import { FilterError, HostNotAllowedError, PlanError } from './engine/index.ts';
import { antiForgeryToken } from './guard.ts';
import { account } from './routes/account.tsx';
import { api } from './routes/api.ts';
import { configuration } from './routes/configuration.tsx';
import { disciplineRepair } from './routes/discipline-repair.tsx';
import { home } from './routes/home.tsx';
import { meetings } from './routes/meetings.tsx';
import { migration } from './routes/migration.tsx';
import { sessionRoutes } from './routes/session.tsx';
import { imports } from './routes/imports.tsx';
import { sync } from './routes/sync.tsx';
import { wizardJson } from './routes/wizard-json.ts';
import { ErrorBody } from './routes/json.ts';
import { errorAnswer } from './views/errors.tsx';
import { SHEET_LIMITS } from './imports/sheet.ts';

/** Forms, JSON bodies and schema files alike are read through this limit (chunked bodies included). */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_URL_LENGTH = 4096;
/** The spreadsheet uploads (Preview, SaveAutoSync) and their limit: the sheet's plus the form's other fields. */
const SHEET_UPLOAD = /^\/(BarrierTrials|Sectional)\/(Preview|SaveAutoSync)$/;
const MAX_SHEET_BODY_BYTES = SHEET_LIMITS.maxBytes + 64 * 1024;

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

// The address as the client asked for it, prefix included.
const migrateNotFound: NotFoundHandler<MigrateEnv> = (c) => errorAnswer(c, 404, 'not_found', `There is nothing at ${c.req.method} ${basePath(c)}${new URL(c.req.url).pathname}.`);

const migrateOnError: ErrorHandler<MigrateEnv> = (err, c) => {
  if (err instanceof HttpError) {
    if (err.status >= 500 && !(err instanceof ConfigError)) logError(c, err, 'migrate');
    if (err instanceof ConfigError) logError(c, err, 'migrate');
    return errorAnswer(c, err.status, err.code, err.message, err.details);
  }
  // The engine's refusals of what the operator asked for: a plan that does not fit the schemas,
  // a filter that is not one read-only condition, a host off the allowed list.
  if (err instanceof PlanError || err instanceof FilterError || err instanceof HostNotAllowedError) {
    return errorAnswer(c, 400, err instanceof FilterError ? 'invalid_filter' : err instanceof HostNotAllowedError ? 'host_not_allowed' : 'invalid_plan', err.message);
  }
  const unavailable = asDatabaseUnavailable(err);
  if (unavailable) {
    logError(c, err, 'migrate');
    return errorAnswer(c, unavailable.status, unavailable.code, unavailable.message);
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    return errorAnswer(c, status, status === 413 ? 'payload_too_large' : 'bad_request', err.message || 'The request could not be processed.');
  }
  logError(c, err, 'migrate');
  return errorAnswer(c, 500, 'internal_error', 'An unexpected error occurred.');
};

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

  app.use('*', async (c, next) => {
    c.set('answerJson', false);
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    // Every answer is per user (or carries a form token): never stored by a browser or a shared cache.
    c.header('Cache-Control', 'no-store');
  });
  app.use('*', async (c, next) => {
    if (c.req.url.length > MAX_URL_LENGTH) throw new HttpError(414, 'uri_too_long', `The address is longer than ${MAX_URL_LENGTH} characters.`);
    await next();
  });
  app.use('*', migrateServices(), antiForgeryToken());
  const formLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HttpError(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    },
  });
  // A spreadsheet upload may be larger; past its limit the page says so (nothing is stored).
  const sheetLimit = bodyLimit({
    maxSize: MAX_SHEET_BODY_BYTES,
    onError: (c) => {
      const [, area, action] = SHEET_UPLOAD.exec(c.req.path) ?? [];
      const back = action === 'SaveAutoSync' ? `/${area}/AutoSync` : `/${area}`;
      const message = `The file is larger than ${SHEET_LIMITS.maxBytes / (1024 * 1024)} MB: split the sheet, or keep only the rows to import. Nothing was stored.`;
      return c.redirect(`${back}?error=${encodeURIComponent(message)}`, 302);
    },
  });
  app.use('*', (c, next) => (c.req.method === 'POST' && SHEET_UPLOAD.test(c.req.path) ? sheetLimit(c, next) : formLimit(c, next)));

  app.route('/', account);
  app.route('/', home);
  app.route('/', configuration);
  app.route('/', migration);
  app.route('/', meetings);
  app.route('/', sessionRoutes);
  app.route('/', wizardJson);
  app.route('/', api);
  app.route('/', sync);
  app.route('/', disciplineRepair);
  app.route('/', imports);

  app.openAPIRegistry.registerComponent('securitySchemes', 'authToken', { type: 'apiKey', in: 'cookie', name: 'AuthToken' });
  serveApiDocument(app, (c) => ({
    title: 'Migration web app: JSON routes',
    version: '1.0.0',
    description: `The JSON routes of the migration wizard and its API controllers. Sign in through ${basePath(c)}/Account/Login; the AuthToken cookie then goes with every request, and every POST carries the RequestVerificationToken header from the page.`,
  }));

  return app;
}
