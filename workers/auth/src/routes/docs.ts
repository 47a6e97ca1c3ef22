import { Hono } from 'hono';
import { basePath } from '#shared/base-path.ts';
import { anonymous } from '#shared/guard.ts';
import { swaggerUiPage } from '#shared/swagger-ui.ts';
import openapi from '../../openapi.json' with { type: 'json' };
import type { AuthEnv } from '../context.ts';

/** Swagger UI over the checked-in OpenAPI file; the UI's files come from swagger-ui-dist (static assets). */
export const docs = new Hono<AuthEnv>();

const page = swaggerUiPage('Authentication service API', '', 'swagger-init.js');

docs.get('/api/docs', anonymous, (c) => c.redirect('/api/docs/', 301));
docs.get('/api/docs/', anonymous, (c) => c.html(page));
// Under a path prefix "Try it out" must call the API under it too; at the root the file is served as it is.
docs.get('/api/docs/openapi.json', anonymous, (c) => {
  const base = basePath(c);
  return c.json(base ? { ...openapi, servers: [{ url: base }] } : openapi);
});
// A file rather than an inline script, so the page's policy allows scripts from this origin only.
docs.get('/api/docs/swagger-init.js', anonymous, (c) =>
  c.body("window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui' });", 200, {
    'Content-Type': 'text/javascript; charset=utf-8',
  }),
);
for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
  docs.get(`/api/docs/${file}`, anonymous, (c) => c.env.ASSETS.fetch(new URL(`/${file}`, c.req.url)));
}
