import type { ErrorHandler, NotFoundHandler } from 'hono';
import { createApp, serveApiDocument } from '#shared/app.ts';
import { basePath } from '#shared/base-path.ts';
import { errorHandler, renderJson } from '#shared/errors.ts';
import { limitUrlLength, MAX_URL_LENGTH, securityHeaders } from '#shared/security-headers.ts';
import { type MailEnv, mailServices } from './context.ts';
import { api } from './routes/api.ts';
import { assistantApi } from './routes/assistant.ts';
import { assistantPages } from './routes/assistant-pages.ts';
import { connect } from './routes/connect.ts';
import { dashboardApi } from './routes/dashboard.ts';
import { draftsApi } from './routes/drafts.ts';
import { llm } from './routes/llm.ts';
import { login } from './routes/login.ts';
import { pages } from './routes/pages.ts';
import { rulesApi } from './routes/rules.ts';
import { rulesPages } from './routes/rules-pages.ts';
import { sendersApi } from './routes/senders.ts';
import { settingsFollowUp } from './routes/settings-follow-up.ts';
import { settingsPages } from './routes/settings.ts';
import { status } from './routes/status.ts';
import { tools } from './routes/tools.ts';
import { webhook } from './routes/webhook.ts';
import { errorPage } from './views/layout.tsx';

const isJson = (path: string) => path.startsWith('/api/') || path === '/openapi.json' || path.startsWith('/graph/');

/** The page policy; the identity platform is a form target (the connect redirect). */
function mailCsp(env: Env): string {
  let identity = '';
  try {
    identity = ` ${new URL(env.IDENTITY_BASE_URL).origin}`;
  } catch {
    // A malformed setting is reported by the config check; the header just omits it.
  }
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; child-src 'self'; frame-ancestors 'none'; form-action 'self'${identity}; base-uri 'none'`;
}

const mailNotFound: NotFoundHandler<MailEnv> = (c) => {
  const path = new URL(c.req.url).pathname;
  // The address as the client asked for it, prefix included.
  const asked = `${basePath(c)}${path}`;
  if (isJson(path))
    return c.json({ error: 'not_found', message: `No route for ${c.req.method} ${asked}`, request_id: c.var.requestId }, 404);
  return c.html(errorPage('Page not found', `There is no page at ${asked}.`), 404);
};

// The shared handler decides status and wording; JSON routes get the platform's body, pages a page.
const mailOnError: ErrorHandler<MailEnv> = errorHandler<MailEnv>(
  (c, error) => {
    if (isJson(new URL(c.req.url).pathname)) return renderJson(c, error);
    const title = error.status === 502 ? 'The mail service failed' : error.status >= 500 ? 'Something went wrong' : 'Request not accepted';
    return c.html(errorPage(title, error.message), error.status);
  },
  { service: 'mail' },
);

export function createMailApp() {
  const app = createApp<MailEnv>('mail', {
    notFound: mailNotFound,
    onError: mailOnError,
    everyRoute: { 414: { description: `The address is longer than ${MAX_URL_LENGTH} characters` } },
  });
  // A file answer keeps the sandbox policy its route set (workers/shared/downloads.ts). Everything
  // here is per-session or carries a credential: never stored by a browser or cache.
  app.use('*', securityHeaders({ csp: (c) => mailCsp(c.env), noStore: true }), limitUrlLength(MAX_URL_LENGTH), mailServices());
  // In this order: a path two groups both answer goes to the first.
  for (const routes of [
    login,
    status,
    connect,
    pages,
    assistantPages,
    settingsPages,
    sendersApi,
    settingsFollowUp,
    rulesPages,
    api,
    llm,
    assistantApi,
    draftsApi,
    dashboardApi,
    rulesApi,
    tools,
    webhook,
  ])
    app.route('/', routes);

  app.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'mail_session' });
  serveApiDocument(app, (c) => ({
    title: 'Mail assistant',
    version: '1.0.0',
    description: `A mailbox over Microsoft Graph. Sign in at ${basePath(c)}/login; state-changing calls need the session’s X-CSRF-Token (the csrf-token meta tag of every page).`,
  }));

  return app;
}
