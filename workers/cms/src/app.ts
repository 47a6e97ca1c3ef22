import { cors } from 'hono/cors';
import { createApp, serveApiDocument } from '#shared/app.ts';
import { INLINE_STYLE_PAGE_CSP, securityHeaders } from '#shared/security-headers.ts';
import { cmsServices, editorOrigins, type CmsEnv } from './context.ts';
import { auth } from './routes/auth.ts';
import { docs } from './routes/docs.ts';
import { health } from './routes/health.ts';
import { lookups } from './routes/lookups.ts';
import { media } from './routes/media.ts';
import { stories } from './routes/stories.ts';

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

// The services (database, config) for every /api request. Who may call a route, the same-origin
// rule for writes and the JSON body cap are the route's own guard (guards.ts).
app.use('/api/*', cmsServices());

app.route('/api/v1/auth', auth);
app.route('/api/v1/story', stories);
app.route('/api/v1/media', media);
app.route('/api/v1/lookup', lookups);

app.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'app_session' });
serveApiDocument(app, () => ({
  title: 'Content management API',
  version: '1.0.0',
  description:
    'Stories, the media library (photos and videos, uploaded straight to object storage) and lookup lists for the editing forms. Sign in with the two auth steps; the session cookie then goes with every request.',
}));

export default app;
