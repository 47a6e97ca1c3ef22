import { Hono } from 'hono';
import { anonymous } from '#shared/guard.ts';
import { swaggerUiPage } from '#shared/swagger-ui.ts';
import type { CmsEnv } from '../context.ts';

/** Interactive API docs at the service root: Swagger UI (swagger-ui-dist, static assets) over /openapi.json. */
export const docs = new Hono<CmsEnv>();

const page = swaggerUiPage('Content management API', '/', '/docs.js');

// Sent with credentials so "Try it out" carries the session cookie once signed in. The document is
// read under the prefix the page was served under (the meta tag names it; absent at the root).
const script = `const base = document.querySelector('meta[name="base-path"]')?.content ?? '';
window.ui = SwaggerUIBundle({
  url: base + '/openapi.json',
  dom_id: '#swagger-ui',
  requestInterceptor: (request) => { request.credentials = 'same-origin'; return request; },
});`;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

docs.get('/', anonymous, (c) => {
  c.header('Content-Security-Policy', CSP);
  return c.html(page);
});
docs.get('/docs.js', anonymous, (c) =>
  c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' }),
);
for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
  docs.get(`/${file}`, anonymous, async (c) => {
    const res = await c.env.ASSETS.fetch(new URL(`/${file}`, c.req.url));
    return new Response(res.body, {
      status: res.status,
      headers: { 'content-type': res.headers.get('content-type') ?? '', 'cache-control': 'public, max-age=86400' },
    });
  });
}
