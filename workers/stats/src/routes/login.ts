import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { addressThrottle, clientAddress } from '#shared/throttle.ts';
import { secretsEqual } from '#shared/crypto.ts';
import { anonymous } from '#shared/guard.ts';
import { statsConfig, type StatsEnv } from '../context.ts';
import { detailError, detailSchema, statsRouter, validationError, validationErrorSchema, type ValidationIssue } from '../errors.ts';
import { loginPage } from '../views/login.tsx';
import { json, limitBody } from './common.ts';
import { text } from '#shared/text.ts';

const credentialsSchema = z.object({ username: text().min(1).max(200), password: text().min(1).max(200) }).openapi('Credentials');
const tokenSchema = z.object({ access_token: z.string(), token_type: z.literal('bearer') }).openapi('LoginToken');
const logoutSchema = z.object({ sessionId: text().min(1).max(512) }).openapi('Logout');

const BODY_LIMIT = 16 * 1024;

/** A JSON or form body (FastAPI's OAuth2 password form sends username/password form-encoded), checked against `schema`. */
async function readBody<S extends z.ZodType>(c: Context<StatsEnv>, schema: S): Promise<z.infer<S>> {
  const type = c.req.header('content-type') ?? '';
  let body: unknown;
  if (/application\/x-www-form-urlencoded|multipart\/form-data/i.test(type)) {
    body = Object.fromEntries(Object.entries(await c.req.parseBody()).filter(([, v]) => typeof v === 'string'));
  } else {
    const text = await c.req.text();
    try {
      body = JSON.parse(text);
    } catch {
      throw validationError([{ type: 'json_invalid', loc: ['body'], msg: 'Body must be JSON or a form' }]);
    }
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw validationError(
      parsed.error.issues.map(
        (issue): ValidationIssue => ({
          type: issue.code,
          loc: ['body', ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
          msg: issue.message,
        }),
      ),
    );
  }
  return parsed.data;
}

/** 429 {detail} with Retry-After: too many failed logins from this address. */
function tooManyAttempts(c: Context<StatsEnv>, retryAfterSeconds: number) {
  c.header('Retry-After', String(retryAfterSeconds));
  return detailError(429, 'Too many failed logins from this address. Try again later.');
}

export const login = statsRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/login',
      summary: 'Exchange the built-in credential pair for the static token',
      middleware: [anonymous, limitBody(BODY_LIMIT)] as const,
      request: {
        body: {
          content: {
            'application/json': { schema: credentialsSchema },
            'application/x-www-form-urlencoded': { schema: credentialsSchema },
          },
        },
      },
      responses: {
        200: json(tokenSchema, 'The static token'),
        401: json(detailSchema, 'Wrong username or password'),
        413: json(detailSchema, 'Body larger than 16 KB'),
        422: json(validationErrorSchema, 'Missing or malformed fields'),
        429: json(detailSchema, 'Too many failed logins from this address; see Retry-After'),
      },
    }),
    async (c) => {
      const { username, password } = await readBody(c, credentialsSchema);
      const config = statsConfig(c);
      const throttle = addressThrottle(c.env.LOGIN_GUARD, 'stats-login', clientAddress(c));
      const locked = await throttle.lockedFor();
      if (locked !== undefined) throw tooManyAttempts(c, locked);
      const [userOk, passwordOk] = await Promise.all([
        secretsEqual(username, config.ADMIN_USERNAME),
        secretsEqual(password, config.ADMIN_PASSWORD),
      ]);
      if (!(userOk && passwordOk)) {
        const lockedNow = await throttle.failed();
        throw lockedNow === undefined ? detailError(401, 'Incorrect username or password') : tooManyAttempts(c, lockedNow);
      }
      c.header('Cache-Control', 'no-store');
      return c.json({ access_token: config.STATIC_API_TOKEN, token_type: 'bearer' as const }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/login',
      summary: 'The login page, or a redirect to the single-sign-on portal for visitors coming from it',
      middleware: [anonymous] as const,
      request: { query: z.object({ direct: z.string().max(10).optional() }) },
      responses: {
        200: { content: { 'text/html': { schema: z.string() } }, description: 'Login page' },
        302: { description: 'To the single-sign-on portal' },
        422: json(validationErrorSchema, '`direct` longer than 10 characters'),
      },
    }),
    async (c) => {
      const portal = statsConfig(c).SSO_PORTAL_URL;
      const referer = c.req.header('referer') ?? '';
      if (portal && c.req.query('direct') === undefined && referer.includes(new URL(portal).host)) {
        return c.redirect(portal, 302);
      }
      return c.html(loginPage(), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/api/logout',
      summary: 'Forward a logout ({sessionId}) to the external authentication service',
      middleware: [anonymous, limitBody(BODY_LIMIT)] as const,
      request: { body: { content: { 'application/json': { schema: logoutSchema } } } },
      responses: {
        200: json(z.object({ status: z.literal('success') }), 'The authentication service accepted the logout'),
        413: json(detailSchema, 'Body larger than 16 KB'),
        422: json(validationErrorSchema, 'sessionId missing'),
        502: json(detailSchema, 'The authentication service failed or did not answer in time'),
        503: json(detailSchema, 'No authentication service is configured'),
      },
    }),
    async (c) => {
      const { sessionId } = await readBody(c, logoutSchema);
      const config = statsConfig(c);
      if (!config.AUTH_LOGOUT_URL) throw detailError(503, 'Logout is not available: no authentication service is configured');
      let res: Response;
      try {
        res = await fetch(config.AUTH_LOGOUT_URL, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ sessionId }),
          signal: AbortSignal.timeout(config.AUTH_LOGOUT_TIMEOUT_MS),
        });
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        throw detailError(
          502,
          timedOut
            ? `The authentication service did not answer within ${config.AUTH_LOGOUT_TIMEOUT_MS} ms`
            : 'The authentication service could not be reached',
        );
      }
      await res.body?.cancel();
      if (!res.ok) throw detailError(502, `The authentication service answered ${res.status}`);
      return c.json({ status: 'success' as const }, 200);
    },
  );
