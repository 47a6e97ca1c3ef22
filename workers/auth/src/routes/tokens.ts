import { z, type RouteHandler } from '@hono/zod-openapi';
import type { AuthEnv } from '../context.ts';
import { authDeps } from '../login.ts';
import { revoke, rotate } from '../refresh-families.ts';
import { fail, failure, RefreshTokenBody, TokenPair } from '../schemas.ts';
import { clientRoute } from './client-route.ts';

export const refreshRoute = clientRoute({
  path: '/api/token/refresh/',
  summary: 'Rotates a refresh token: answers a new access token and a new refresh token that replaces the one sent',
  body: RefreshTokenBody,
  responses: {
    200: { description: 'rotated', content: { 'application/json': { schema: TokenPair } } },
    400: failure('invalid input'),
    401: failure(
      'refresh token invalid, expired, revoked or already rotated (a rotated token also revokes its family); or X-Auth-Client-Secret missing or wrong',
    ),
    403: failure('the account is deactivated; the token is left as it was'),
    429: failure('too many wrong client secrets from this address'),
  },
});

export const refreshHandler: RouteHandler<typeof refreshRoute, AuthEnv> = async (c) => {
  const result = await rotate(authDeps(c), c.req.valid('json').refresh_token);
  switch (result.kind) {
    case 'rotated':
      return c.json(result.tokens, 200);
    case 'deactivated':
      return c.json(fail('This account is deactivated.'), 403);
    case 'invalid':
      return c.json(fail('The refresh token is invalid, expired or already used.'), 401);
  }
};

export const revokeRoute = clientRoute({
  path: '/api/token/revoke/',
  summary: 'Revokes a refresh token and its family (logout)',
  body: RefreshTokenBody,
  responses: {
    200: {
      description: 'success true when the token was live and is now dead; false when it was already dead',
      content: { 'application/json': { schema: z.object({ success: z.boolean() }) } },
    },
    400: failure('invalid input'),
    429: failure('too many wrong client secrets from this address'),
  },
});

export const revokeHandler: RouteHandler<typeof revokeRoute, AuthEnv> = async (c) => {
  const success = await revoke(authDeps(c), c.req.valid('json').refresh_token);
  return c.json({ success }, 200);
};
