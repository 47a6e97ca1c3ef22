import type { ErrorHandler, MiddlewareHandler, NotFoundHandler } from 'hono';
import { createApp, serveApiDocument } from '#shared/app.ts';
import { basePath } from '#shared/base-path.ts';
import { onError as jsonOnError } from '#shared/errors.ts';
import { HttpError } from '#shared/http-error.ts';
import { type MailEnv, mailServices } from './context.ts';
import { api } from './routes/api.ts';
import { assistantApi } from './routes/assistant.ts';
import { assistantPages } from './routes/assistant-pages.tsx';
import { connect } from './routes/connect.tsx';
import { dashboardApi } from './routes/dashboard.ts';
import { draftsApi } from './routes/drafts.ts';
import { llm } from './routes/llm.ts';
import { login } from './routes/login.tsx';
import { pages } from './routes/pages.tsx';
import { settingsPages } from './routes/settings.tsx';
import { status } from './routes/status.ts';
import { tools } from './routes/tools.ts';
import { webhook } from './routes/webhook.ts';
import { ErrorPage } from './views/layout.tsx';

const MAX_URL_LENGTH = 4096;

const isJson = (path: string) => path.startsWith('/api/') || path === '/openapi.json' || path.startsWith('/graph/');

/** Pages and answers carry these; the identity platform is a form target (the connect redirect). */
function securityHeaders(env: Env): Record<string, string> {
  let identity = '';
  try {
    identity = ` ${new URL(env.IDENTITY_BASE_URL).origin}`;
  } catch {
    // A malformed setting is reported by the config check; the header just omits it.
  }
  return {
    'Content-Security-Policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; child-src 'self'; frame-ancestors 'none'; form-action 'self'${identity}; base-uri 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
  };
}

const headers: MiddlewareHandler<MailEnv> = async (c, next) => {
  if (c.req.url.length > MAX_URL_LENGTH) throw new HttpError(414, 'uri_too_long', `The address is longer than ${MAX_URL_LENGTH} characters.`);
  await next();
  // A file answer keeps the sandbox policy its route set (workers/shared/downloads.ts).
  const own = c.res.headers.has('Content-Security-Policy');
  for (const [name, value] of Object.entries(securityHeaders(c.env))) if (!(own && name === 'Content-Security-Policy')) c.header(name, value);
  // Everything here is per-session or carries a credential: never stored by a browser or cache.
  c.header('Cache-Control', 'no-store');
};

const mailNotFound: NotFoundHandler<MailEnv> = (c) => {
  const path = new URL(c.req.url).pathname;
  // The address as the client asked for it, prefix included.
  const asked = `${basePath(c)}${path}`;
  if (isJson(path)) return c.json({ error: 'not_found', message: `No route for ${c.req.method} ${asked}`, request_id: c.var.requestId }, 404);
  return c.html(<ErrorPage title="Page not found" message={`There is no page at ${asked}.`} />, 404);
};

// The shared handler decides status and wording; pages get them as HTML.
const mailOnError: ErrorHandler<MailEnv> = async (err, c) => {
  if (err instanceof HttpError) {
    const retryAfter = err.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') c.header('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
  }
  const response = await jsonOnError(err, c);
  for (const [name, value] of Object.entries(securityHeaders(c.env))) response.headers.set(name, value);
  response.headers.set('Cache-Control', 'no-store');
  if (isJson(new URL(c.req.url).pathname)) return response;
  const body = await response
    .clone()
    .json<{ message?: string }>()
    .catch(() => ({ message: undefined }));
  const title = response.status === 502 ? 'The mail service failed' : response.status >= 500 ? 'Something went wrong' : 'Request not accepted';
  const page = await c.html(<ErrorPage title={title} message={body.message ?? 'The request could not be completed.'} />, response.status as 500);
  for (const [name, value] of response.headers) if (name !== 'content-type' && name !== 'content-length') page.headers.set(name, value);
  return page;
};

export function createMailApp() {
  const app = createApp<MailEnv>('mail', {
    notFound: mailNotFound,
    onError: mailOnError,
    everyRoute: { 414: { description: `The address is longer than ${MAX_URL_LENGTH} characters` } },
  });
  app.use('*', headers, mailServices());
  app.route('/', login);
  app.route('/', status);
  app.route('/', connect);
  app.route('/', pages);
  app.route('/', assistantPages);
  app.route('/', settingsPages);
  app.route('/', api);
  app.route('/', llm);
  app.route('/', assistantApi);
  app.route('/', draftsApi);
  app.route('/', dashboardApi);
  app.route('/', tools);
  app.route('/', webhook);

  app.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'mail_session' });
  serveApiDocument(app, (c) => ({
    title: 'Mail assistant',
    version: '1.0.0',
    description: `A mailbox over Microsoft Graph. Sign in at ${basePath(c)}/login; state-changing calls need the session’s X-CSRF-Token (the csrf-token meta tag of every page).`,
  }));

  return app;
}
