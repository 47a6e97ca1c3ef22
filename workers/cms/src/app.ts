import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { createApp } from '../../shared/app.ts';
import { basePath } from '../../shared/base-path.ts';
import { limitBody } from '../../shared/body.ts';
import { INLINE_STYLE_PAGE_CSP, securityHeaders } from '../../shared/security-headers.ts';
import { HttpError } from '../../shared/http-error.ts';
import { cmsServices, editorOrigins, type CmsEnv } from './context.ts';
import { auth } from './routes/auth.ts';
import { docs } from './routes/docs.ts';
import { health } from './routes/health.ts';
import { lookups } from './routes/lookups.ts';
import { media, MEDIA_ANONYMOUS_PREFIX } from './routes/media.ts';
import { stories } from './routes/stories.ts';
import { requireEditor, requireSession } from './session.ts';

/** JSON bodies (stories with their content) are capped here; media bytes go straight to R2. */
const MAX_JSON_BYTES = 1024 * 1024;

/** The two login steps are the only /api routes without a session (plus signed media uploads). */
const ANONYMOUS = new Set(['/api/v1/auth/login', '/api/v1/auth/totp-verify']);
const isAnonymous = (path: string) => ANONYMOUS.has(path) || path.startsWith(MEDIA_ANONYMOUS_PREFIX);

/**
 * Cookie-authenticated writes must come from this service's own origin or a configured editor
 * origin, and never from a request the browser marks `Sec-Fetch-Site: cross-site`, whatever its
 * Origin says. SameSite=Lax already keeps other sites' form posts from carrying the cookie; this
 * also covers sibling hosts of the same site and the login steps (login CSRF).
 */
const sameOriginWrites: MiddlewareHandler<CmsEnv> = async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.method !== 'OPTIONS') {
    const origin = c.req.header('origin');
    const own = new URL(c.req.url).origin;
    if (origin && origin !== own && !c.var.config.CMS_EDITOR_ORIGINS.includes(origin)) {
      throw new HttpError(403, 'forbidden_origin', `Requests from ${origin} may not change anything here.`);
    }
    if (c.req.header('sec-fetch-site') === 'cross-site') {
      throw new HttpError(403, 'forbidden_origin', 'Cross-site requests may not change anything here.');
    }
  }
  await next();
};

const app = createApp<CmsEnv>('cms');
app.use(securityHeaders({ csp: INLINE_STYLE_PAGE_CSP }));

// CORS first, so that preflights and error answers carry it too. It reads only the editor
// origins from config (the rest is validated once, below).
app.use(
  '/api/*',
  cors({
    origin: (origin, c) => {
      const origins = editorOrigins.safeParse(c.env.CMS_EDITOR_ORIGINS);
      return origins.success && origins.data.includes(origin) ? origin : null;
    },
    credentials: true,
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'X-Request-Id'],
    exposeHeaders: ['X-Request-Id', 'Retry-After'],
    maxAge: 600,
  }),
);

app.route('/', health);
app.route('/', docs);

app.use('/api/*', cmsServices(), sameOriginWrites);
const jsonLimit = limitBody<CmsEnv>(MAX_JSON_BYTES, () => {
  throw new HttpError(413, 'payload_too_large', `The request body is larger than ${MAX_JSON_BYTES} bytes.`);
});
// Signed uploads carry file bytes and enforce their own, per-gallery limit.
app.use('/api/*', (c, next) => (c.req.path.startsWith(MEDIA_ANONYMOUS_PREFIX) ? next() : jsonLimit(c, next)));
const session = requireSession();
const editor = requireEditor();
app.use('/api/v1/*', (c, next) => (isAnonymous(c.req.path) ? next() : session(c, next)));
app.on(['POST', 'PUT', 'DELETE'], ['/api/v1/story', '/api/v1/story/*', '/api/v1/media', '/api/v1/media/*'], (c, next) =>
  isAnonymous(c.req.path) ? next() : editor(c, next),
);

app.route('/api/v1/auth', auth);
app.route('/api/v1/story', stories);
app.route('/api/v1/media', media);
app.route('/api/v1/lookup', lookups);

app.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'app_session' });
// Under a path prefix the document's server is the prefix, so "Try it out" calls the API under it.
app.doc31('/openapi.json', (c) => ({
  openapi: '3.1.0',
  info: {
    title: 'Content management API',
    version: '1.0.0',
    description:
      'Stories, the media library (photos and videos, uploaded straight to object storage) and lookup lists for the editing forms. Sign in with the two auth steps; the session cookie then goes with every request.',
  },
  ...(basePath(c) ? { servers: [{ url: basePath(c) }] } : {}),
}));

export default app;
