import { drizzle } from 'drizzle-orm/d1';
import type { ErrorHandler } from 'hono';
import * as schema from '#d1/auth/schema.ts';
import { createApp } from '#shared/app.ts';
import { limitBody } from '#shared/body.ts';
import { errorHandler, notFound } from '#shared/errors.ts';
import { INLINE_STYLE_PAGE_CSP, securityHeaders } from '#shared/security-headers.ts';
import { clientAddress } from '#shared/throttle.ts';
import { authConfig } from './config.ts';
import type { AuthEnv } from './context.ts';
import { dashboard } from './routes/dashboard/index.ts';
import { docs } from './routes/docs.ts';
import { loginHandler, loginRoute, verifyHandler, verifyRoute } from './routes/login.ts';
import { refreshHandler, refreshRoute, revokeHandler, revokeRoute } from './routes/tokens.ts';
import { whoamiHandler, whoamiRoute } from './routes/whoami.ts';
import { fail, Failure } from './schemas.ts';

export const MAX_BODY_BYTES = 16 * 1024;

/** The spec's failure body for everything, including bad input: never a 500 for what a client sent. */
const onError: ErrorHandler<AuthEnv> = errorHandler<AuthEnv>(
  (c, error) => {
    if (error.kind === 'unexpected') return c.json(fail('An unexpected error occurred.'), 500);
    if (error.kind === 'framework') return c.json(fail(error.message), error.status);
    return c.json(fail(error.message, { code: error.code }), error.status);
  },
  { service: 'auth' },
);

export function createAuthApp() {
  // The spec's error shape ({success: false, message}) for invalid input and errors.
  const app = createApp<AuthEnv>('auth', {
    invalid: ({ target, error }, c) => {
      const issues = error.issues.map((issue) => ({ field: [target, ...issue.path.map(String)].join('.'), message: issue.message }));
      return c.json(fail(`Invalid ${issues.map((i) => i.field).join(', ')}`, { issues }), 400);
    },
    onError,
    notFound,
    errorSchema: Failure,
  });
  // Tokens, codes and the enrolment page's secret: nothing here may be stored by a browser or a cache.
  app.use(securityHeaders({ csp: INLINE_STYLE_PAGE_CSP, noStore: true }));
  app.use(async (c, next) => {
    c.set('config', authConfig(c.env));
    c.set('db', drizzle(c.env.DB, { schema }));
    c.set('ip', clientAddress(c));
    await next();
  });
  app.use(
    '/api/*',
    limitBody<AuthEnv>(MAX_BODY_BYTES, (c) => c.json(fail(`The request body is larger than ${MAX_BODY_BYTES} bytes.`), 413)),
  );
  // Each route names its guard in its definition: the client secret (client-secret.ts) on all
  // but whoami, the docs' and the dashboard's own.
  app.openapi(loginRoute, loginHandler);
  app.openapi(verifyRoute, verifyHandler);
  app.openapi(refreshRoute, refreshHandler);
  app.openapi(revokeRoute, revokeHandler);
  app.openapi(whoamiRoute, whoamiHandler);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'access token' });
  app.route('/', docs);
  app.route('/', dashboard);
  return app;
}

/** The OpenAPI description generated from the routes; test/auth keeps `workers/auth/openapi.json` equal to it. */
export function describeApi(app: ReturnType<typeof createAuthApp>) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Authentication service',
      version: '1.0.0',
      description:
        'Two-step login (password, then TOTP code), rotating refresh tokens, token check. Every endpoint but whoami needs the X-Auth-Client-Secret header.',
    },
  });
}
