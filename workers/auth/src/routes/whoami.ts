import { createRoute, z, type RouteHandler } from '@hono/zod-openapi';
import { anonymous } from '#shared/guard.ts';
import type { AuthEnv } from '../context.ts';
import { fail, failure } from '../schemas.ts';
import { openAccessToken } from '../tokens.ts';

export const whoamiRoute = createRoute({
  method: 'get',
  path: '/api/whoami/',
  summary: 'Who an access token belongs to (checked in the Worker, no database read)',
  security: [{ bearer: [] }],
  // Open to any caller, without the client secret: the answer is the token's own check.
  middleware: [anonymous] as const,
  responses: {
    200: {
      description: 'the token is valid',
      content: {
        'application/json': {
          schema: z.object({
            user_name: z.string().openapi({ description: 'the account e-mail' }),
            user_permissions: z
              .string()
              .openapi({ description: 'the role in upper case; the site’s own role string on a site with a vocabulary' }),
          }),
        },
      },
    },
    401: failure('token missing, invalid or expired'),
  },
});

export const whoamiHandler: RouteHandler<typeof whoamiRoute, AuthEnv> = async (c) => {
  const header = c.req.header('authorization') ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const claims = match ? await openAccessToken(match[1]!, c.var.config.AUTH_TOKEN_SECRET) : null;
  if (!claims) {
    c.header('WWW-Authenticate', 'Bearer');
    return c.json(fail('The access token is missing, invalid or expired.'), 401);
  }
  return c.json({ user_name: claims.name, user_permissions: claims.perm }, 200);
};
