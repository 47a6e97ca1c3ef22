import { type RouteConfig, type RouteHandler, z } from '@hono/zod-openapi';
import { publicUser } from '../accounts.ts';
import { audit } from '../audit.ts';
import type { Context } from 'hono';
import type { AuthEnv } from '../context.ts';
import { THROTTLED } from '../client-secret.ts';
import { authDeps, checkCode, checkPassword } from '../login.ts';
import { startFamily } from '../refresh-families.ts';
import { clientIpHeader, clientSecretHeader, fail, failure, TokenPair, User } from '../schemas.ts';
import { clientRoute } from './client-route.ts';
import { text } from '#shared/text.ts';

const IP = /^[0-9A-Fa-f:.]{2,45}$/;

/**
 * The end user's address for rate limits. A consuming application calls server to server, so
 * CF-Connecting-IP is its own address; it may name its user's in X-Auth-Client-IP, trusted
 * because these routes already proved the caller holds the client secret.
 */
function clientIp(c: Context<AuthEnv>): string {
  const forwarded = c.req.header('x-auth-client-ip')?.trim();
  return forwarded && IP.test(forwarded) ? forwarded : c.var.ip;
}

/**
 * A step of the login: a client route that may name its end user's address (X-Auth-Client-IP),
 * whose attempts are limited per address and per account (429).
 */
function loginStep<const P extends string, B extends z.ZodType, R extends RouteConfig['responses']>(config: {
  path: P;
  summary: string;
  body: B;
  responses: R;
}) {
  return clientRoute({
    ...config,
    headers: clientSecretHeader.extend(clientIpHeader),
    responses: { ...config.responses, 429: failure('too many attempts from this address, or the account is locked for a while') },
  });
}

export const GENERIC_LOGIN_FAILURE = 'Invalid email, password or site.';
export { THROTTLED };

export const loginRoute = loginStep({
  path: '/api/login/',
  summary: 'Step one: e-mail, password and site; answers a pending token for the code step',
  body: z.object({
    email: text().min(1).max(254),
    password: text().min(1).max(1024),
    site: text()
      .max(200)
      .default('')
      .openapi({ description: 'a registered site_name (exact match); otherwise, or when absent, the siteless credential is used' }),
  }),
  responses: {
    200: {
      description: 'password correct, account enrolled in 2FA',
      content: {
        'application/json': {
          schema: z.object({ success: z.literal(true), pending_token: z.string(), enrolled: z.literal(true) }),
        },
      },
    },
    400: failure('wrong e-mail, password or site (one answer for all three), account not enrolled in 2FA, or invalid input'),
  },
});

export const loginHandler: RouteHandler<typeof loginRoute, AuthEnv> = async (c) => {
  const result = await checkPassword(authDeps(c, clientIp(c)), c.req.valid('json'));
  switch (result.kind) {
    case 'pending':
      return c.json({ success: true as const, pending_token: result.pendingToken, enrolled: true as const }, 200);
    case 'not_enrolled':
      return c.json(fail('This account is not enrolled in two-factor authentication; ask an administrator to enrol it.'), 400);
    case 'throttled':
      c.header('Retry-After', String(result.retryAfterSeconds));
      return c.json(fail(THROTTLED), 429);
    case 'invalid':
      return c.json(fail(GENERIC_LOGIN_FAILURE), 400);
  }
};

export const verifyRoute = loginStep({
  path: '/api/verify-2fa/',
  summary: 'Step two: the pending token and a 6-digit TOTP code (or a backup code); answers the tokens',
  body: z.object({
    pending_token: text().min(1).max(256),
    code: text().min(1).max(32).openapi({ description: '6-digit TOTP code, or one of the account’s backup codes' }),
  }),
  responses: {
    200: { description: 'tokens issued', content: { 'application/json': { schema: TokenPair.extend({ user: User }) } } },
    400: failure('invalid code (wrong, replayed or used backup code), expired, used or unknown pending token, or invalid input'),
  },
});

export const verifyHandler: RouteHandler<typeof verifyRoute, AuthEnv> = async (c) => {
  const body = c.req.valid('json');
  const deps = authDeps(c, clientIp(c));
  const result = await checkCode(deps, { pendingToken: body.pending_token, code: body.code });
  switch (result.kind) {
    case 'verified': {
      const tokens = await startFamily(deps, result.user, result.siteId);
      await audit(c.var.db, 'login_success', { userId: result.user.id, email: result.user.email, siteName: result.siteName, ip: deps.ip });
      return c.json({ ...tokens, user: publicUser(result.user) }, 200);
    }
    case 'invalid_token':
      return c.json(fail('The login has expired or is unknown; sign in again.'), 400);
    case 'invalid_code':
      return c.json(fail('Invalid code.'), 400);
    case 'throttled':
      c.header('Retry-After', String(result.retryAfterSeconds));
      return c.json(fail(THROTTLED), 429);
  }
};
