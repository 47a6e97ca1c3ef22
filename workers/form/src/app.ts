import type { ErrorHandler, NotFoundHandler } from 'hono';
import { createApp } from '#shared/app.ts';
import { errorBody, errorHandler, renderJson } from '#shared/errors.ts';
import { racingReads } from '#shared/pg.ts';
import { limitUrlLength, MAX_URL_LENGTH, securityHeaders, STRICT_PAGE_CSP } from '#shared/security-headers.ts';
import { DataCache } from './cache.ts';
import { formConfig } from './config.ts';
import type { FormEnv } from './context.ts';
import { api } from './routes/api.ts';
import { signedIn } from './guards.ts';
import { apiDocument, OPENAPI_PATH } from './openapi.ts';
import { guide } from './routes/guide.ts';
import { login } from './routes/login.ts';
import { personRoutes } from './routes/people.ts';
import { runnerRoutes } from './routes/runner.ts';
import { search } from './routes/search.ts';
import type { SalesSql } from './runner-page.ts';
import { readSession, sessionSettings } from './session.ts';
import { errorPage } from './views/render.tsx';
import { defaultCache } from '#shared/workers-runtime.ts';

const isApi = (path: string) => path.startsWith('/form/api/');

export interface FormAppOptions {
  /** The sales' SQL (a JSON array expression); replaceable so that its failure can be exercised. */
  salesSql?: SalesSql;
}

const formNotFound: NotFoundHandler<FormEnv> = (c) => {
  const path = new URL(c.req.url).pathname;
  // Whether a page exists is for signed-in users: anyone else goes to the login page.
  if (path.startsWith('/form/') && c.var.config && !c.var.session) return c.redirect('/form/', 302);
  if (isApi(path) || !path.startsWith('/form/')) return c.json(errorBody(c, 'not_found', `No route for ${c.req.method} ${path}`), 404);
  return errorPage(c, 404, 'Page not found', `There is no page at ${path}.`);
};

const PAGE_TITLES: Partial<Record<number, string>> = { 414: 'Address too long', 503: 'Racing data unavailable' };

// The shared handler decides status and wording; the API gets the platform's body, pages a page.
const formOnError: ErrorHandler<FormEnv> = errorHandler<FormEnv>(
  (c, error) => {
    if (isApi(new URL(c.req.url).pathname)) return renderJson(c, error);
    const title = PAGE_TITLES[error.status] ?? (error.status >= 500 ? 'Something went wrong' : 'Request not accepted');
    return errorPage(c, error.status, title, error.message, false);
  },
  { service: 'form' },
);

export function createFormApp(options: FormAppOptions = {}) {
  const app = createApp<FormEnv>('form', { notFound: formNotFound, onError: formOnError });
  app.use(securityHeaders({ csp: STRICT_PAGE_CSP }));
  app.use(limitUrlLength(MAX_URL_LENGTH));

  app.use('*', async (c, next) => {
    const url = new URL(c.req.url);
    if (url.pathname === '/' || url.pathname === '/form') return c.redirect('/form/', 301);
    // Every route ends in a slash (as the spec writes them); GETs without one are sent there.
    // (Static files are served before the Worker runs; one that is missing is a plain 404.)
    if (url.pathname.startsWith('/form/static/')) return c.text('Not found', 404);
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && url.pathname.startsWith('/form/') && !url.pathname.endsWith('/')) {
      return c.redirect(`${url.pathname}/${url.search}`, 301);
    }
    await next();
    // Pages and lookups may be session-bound: never stored by a browser or a shared cache.
    c.header('Cache-Control', 'no-store');
    if (c.var.cache?.outcomes.length) c.header('X-Form-Cache', c.var.cache.outcomes.join(', '));
  });

  app.use('/form/*', async (c, next) => {
    const config = formConfig(c.env);
    c.set('config', config);
    c.set(
      'cache',
      new DataCache(defaultCache(), { defer: (work) => c.executionCtx.waitUntil(work.catch(() => {})), origin: new URL(c.req.url).origin }),
    );
    // Read for every request; each route's own guard (guards.ts) decides whether it needs one.
    c.set('session', await readSession(c, sessionSettings(c)));
    await next();
  });
  app.use('/form/*', racingReads());

  app.route('/form/', login);
  app.route('/form/runner/', runnerRoutes({ salesSql: options.salesSql }));
  app.route('/form/jockey/', personRoutes('jockey'));
  app.route('/form/trainer/', personRoutes('trainer'));
  app.route('/form/guide/', guide);
  app.route('/form/search/', search);
  app.route('/form/api/', api);
  // The API document is for signed-in users, as its route says.
  app.get(OPENAPI_PATH, signedIn);
  app.route('/', apiDocument);

  return app;
}
