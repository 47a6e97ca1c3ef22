import { Hono } from 'hono';
import { basePath } from '#shared/base-path.ts';
import { anonymous } from '#shared/guard.ts';
import { contentHash } from '#shared/views/assets.ts';
import { ASSETS } from '../assets.ts';
import { racingToday, type StatsEnv } from '../context.ts';
import { apiDocsPage } from '../views/api-docs.tsx';
import { apiTestPage } from '../views/api-test.tsx';
import { dashboardPage } from '../views/dashboard.tsx';
import { redocPage, swaggerUiPage } from '../views/openapi-viewers.tsx';

// The documentation viewers load nothing from elsewhere (ReDoc would fetch its vendor's logo).
const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; worker-src 'self' blob:; connect-src 'self'";

const OWN_SCRIPT_HASHES: Readonly<Record<string, string>> = Object.fromEntries(
  ['/assets/dashboard.js', '/assets/login.js', '/assets/api-test.js'].map((path) => [path, contentHash(ASSETS[path]?.body ?? '')]),
);

// Open pages (no token: the browser code sends the one stored at login) and their assets.
export const pages = new Hono<StatsEnv>()
  .get('/', anonymous, (c) => {
    // The page works without config; the date box starts on today's racing day.
    const timeZone = typeof c.env.RACING_TIMEZONE === 'string' && c.env.RACING_TIMEZONE ? c.env.RACING_TIMEZONE : 'Australia/Sydney';
    let today: string;
    try {
      today = racingToday(timeZone);
    } catch {
      today = racingToday('Australia/Sydney');
    }
    return c.html(dashboardPage(today));
  })
  .get('/api-test', anonymous, (c) => c.html(apiTestPage()))
  .get('/api-docs', anonymous, (c) => c.html(apiDocsPage()))
  .get('/docs', anonymous, (c) => c.html(swaggerUiPage(basePath(c)), 200, { 'Content-Security-Policy': DOCS_CSP }))
  .get('/redoc', anonymous, (c) => c.html(redocPage(basePath(c)), 200, { 'Content-Security-Policy': DOCS_CSP }))
  .get('/assets/:file', anonymous, (c) => {
    const asset = ASSETS[new URL(c.req.url).pathname];
    if (!asset) return c.notFound();
    // The package files carry their version in the URL; the service's own scripts carry the hash of
    // their content (`?v=`, views/layout.tsx scriptUrl) when a page links them, and only a URL with
    // the current hash may be kept for long.
    const own = OWN_SCRIPT_HASHES[c.req.path];
    const immutable = own === undefined || c.req.query('v') === own;
    return c.body(asset.body, 200, {
      'Content-Type': asset.type,
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    });
  });
