import { createRoute, z } from '@hono/zod-openapi';
import { createApp, serveApiDocument } from '#shared/app.ts';
import { basePath } from '#shared/base-path.ts';
import { anonymous } from '#shared/guard.ts';
import { INLINE_STYLE_PAGE_CSP, securityHeaders } from '#shared/security-headers.ts';
import type { StatsEnv } from './context.ts';
import { detailSchema, fastApiInvalid, onDetailError, onNotFound } from './errors.ts';
import { localStats } from './routes/local-stats.ts';
import { login } from './routes/login.ts';
import { meetingStats } from './routes/meeting-stats.ts';
import { meetings } from './routes/meetings.ts';
import { pages } from './routes/pages.ts';
import { savedStats } from './routes/saved-stats.ts';
import { userContext } from './routes/user-context.ts';

// The meeting statistics API (spec 000 B). Errors are FastAPI-shaped ({detail}) because its
// existing clients were written against a FastAPI service; see errors.ts and the README.
const app = createApp<StatsEnv>('stats', {
  invalid: fastApiInvalid,
  onError: onDetailError,
  notFound: onNotFound,
  errorSchema: detailSchema,
});
app.use(securityHeaders({ csp: INLINE_STYLE_PAGE_CSP }));

app.openapi(
  createRoute({
    method: 'get',
    path: '/health',
    summary: 'Liveness',
    middleware: [anonymous] as const,
    responses: { 200: { content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } }, description: 'Alive' } },
  }),
  (c) => c.json({ status: 'ok' as const }, 200),
);
app.route('/', pages);
app.route('/', login);
app.route('/', meetings);
app.route('/', localStats);
app.route('/', meetingStats);
app.route('/', userContext);
app.route('/', savedStats);

app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
app.openAPIRegistry.registerComponent('securitySchemes', 'tokenQuery', { type: 'apiKey', in: 'query', name: 'token' });
app.openAPIRegistry.registerComponent('securitySchemes', 'ssoTokenQuery', { type: 'apiKey', in: 'query', name: 'sso_token' });
serveApiDocument(app, (c) => ({
  title: 'Meeting statistics API',
  version: '2.0.0',
  description: `Trainer and jockey statistics of a race meeting. Calculation rules: ${basePath(c)}/api-docs#rules.`,
}));

export default app;
