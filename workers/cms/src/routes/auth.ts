import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { basePath } from '#shared/base-path.ts';
import { HttpError } from '#shared/http-error.ts';
import { finishLogin, revokeSession, startLogin } from '#shared/auth-client.ts';
import type { CmsEnv, SessionUser } from '../context.ts';
import { reader, signIn } from '../guards.ts';
import { endSession, startSession } from '../session.ts';
import { errorResponses, jsonBody } from './openapi.ts';
import { text } from '#shared/text.ts';

/** Holds the pending login between the two steps, for browsers; API clients may send it in the body. */
const LOGIN_COOKIE = 'app_login';
const LOGIN_COOKIE_PATH = '/api/v1/auth';
const PENDING_LOGIN_SECONDS = 300;

export const SessionUserSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    role: z.string().openapi({ description: 'Role reported by the authentication service, upper-cased', example: 'ADMIN' }),
  })
  .openapi('SessionUser');

const LoginBody = z
  .object({
    email: text().trim().min(1, 'is required').max(320, 'must be at most 320 characters'),
    password: text().min(1, 'is required').max(1024, 'must be at most 1024 characters'),
  })
  .openapi('LoginRequest');

const LoginResult = z
  .object({
    totpRequired: z.boolean().openapi({ description: 'Always true: every account signs in with a TOTP code as the second step' }),
    loginToken: z.string().openapi({ description: 'The pending login; also set as the app_login cookie, so browsers need not send it' }),
    expiresIn: z.number().int().openapi({ description: 'Seconds left to send the code' }),
  })
  .openapi('LoginResult');

const TotpBody = z
  .object({
    code: text()
      .trim()
      .regex(/^(\d{6}|[a-z0-9]{4}-[a-z0-9]{4})$/i, 'must be a 6-digit code or a backup code (xxxx-xxxx)'),
    loginToken: text().min(1).max(512).optional().openapi({ description: 'From the login answer; defaults to the app_login cookie' }),
  })
  .openapi('TotpVerifyRequest');

export const auth = new OpenAPIHono<CmsEnv>();

auth.openapi(
  createRoute({
    method: 'post',
    middleware: [signIn] as const,
    path: '/login',
    tags: ['Auth'],
    summary: 'Step 1: e-mail and password',
    description:
      'Forwards the credentials to the authentication service. A correct pair starts a pending login that the TOTP step completes within 5 minutes.',
    request: { body: jsonBody(LoginBody) },
    responses: {
      200: { description: 'Password accepted; send the TOTP code next', content: { 'application/json': { schema: LoginResult } } },
      ...errorResponses(400, 403, 413, 415, 429, 502),
    },
  }),
  async (c) => {
    const { email, password } = c.req.valid('json');
    const loginToken = await startLogin(c, email, password, c.var.config.CMS_AUTH_SITE);
    setCookie(c, LOGIN_COOKIE, loginToken, {
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
      path: LOGIN_COOKIE_PATH,
      maxAge: PENDING_LOGIN_SECONDS,
    });
    return c.json({ totpRequired: true, loginToken, expiresIn: PENDING_LOGIN_SECONDS }, 200);
  },
);

auth.openapi(
  createRoute({
    method: 'post',
    middleware: [signIn] as const,
    path: '/totp-verify',
    tags: ['Auth'],
    summary: 'Step 2: the TOTP code; sets the session cookie',
    description:
      'Completes the pending login and sets `app_session` (HttpOnly, Secure, SameSite=Lax, Path=/api, 1 day). The cookie holds only a random session id: the authentication service’s tokens stay on the server, sealed.',
    request: { body: jsonBody(TotpBody) },
    responses: {
      200: { description: 'Signed in; the session user', content: { 'application/json': { schema: SessionUserSchema } } },
      ...errorResponses(400, 403, 413, 415, 429, 502),
    },
  }),
  async (c) => {
    const { code, loginToken } = c.req.valid('json');
    const pending = loginToken ?? getCookie(c, LOGIN_COOKIE);
    if (!pending)
      throw new HttpError(
        400,
        'no_pending_login',
        `No login in progress: post e-mail and password to ${basePath(c)}/api/v1/auth/login first.`,
      );
    const login = await finishLogin(c, pending, code);
    deleteCookie(c, LOGIN_COOKIE, { path: LOGIN_COOKIE_PATH, secure: true, httpOnly: true, sameSite: 'Strict' });
    let user: SessionUser;
    try {
      user = await startSession(c, login);
    } catch (err) {
      // The session could not be stored: end the refresh family it would have held.
      await revokeSession(c, login.refresh_token).catch(() => false);
      throw err;
    }
    return c.json(user, 200);
  },
);

auth.openapi(
  createRoute({
    method: 'get',
    middleware: [reader] as const,
    path: '/me',
    tags: ['Auth'],
    summary: 'The signed-in user',
    security: [{ session: [] }],
    responses: {
      200: { description: 'The session user', content: { 'application/json': { schema: SessionUserSchema } } },
      ...errorResponses(401),
    },
  }),
  (c) => c.json(c.var.user, 200),
);

auth.openapi(
  createRoute({
    method: 'post',
    middleware: [reader] as const,
    path: '/logout',
    tags: ['Auth'],
    summary: 'Ends the session here and at the authentication service',
    security: [{ session: [] }],
    responses: {
      200: {
        description: 'Signed out; the cookie is deleted',
        content: {
          'application/json': {
            schema: z.object({
              success: z.literal(true),
              revoked: z.boolean().openapi({ description: 'Whether the authentication service still had the session to revoke' }),
            }),
          },
        },
      },
      ...errorResponses(401, 403),
    },
  }),
  async (c) => {
    const refreshToken = await endSession(c);
    // The local session is gone either way; an unreachable auth service still makes this a 502 so
    // the caller knows the upstream session may live on until it expires.
    const revoked = refreshToken ? await revokeSession(c, refreshToken) : false;
    return c.json({ success: true as const, revoked }, 200);
  },
);
