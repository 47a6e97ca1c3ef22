import { z } from '@hono/zod-openapi';
import { text } from '#shared/text.ts';

/** Every failure of the JSON API: the spec's `{success: false, error}`. */
export const Failure = z
  .object({
    success: z.literal(false),
    error: z.string(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi('Failure');

/** A body of that shape; `extra` adds fields such as `issues`. */
export const fail = <E extends object = {}>(error: string, extra?: E) => ({ success: false as const, error, ...extra });

export const User = z
  .object({
    id: z.number().int(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    role: z.enum(['admin', 'developer', 'user']),
  })
  .openapi('User');

export const TokenPair = z.object({
  success: z.literal(true),
  access_token: z.string(),
  refresh_token: z.string(),
  refresh_token_expires_at: z.string().openapi({ description: 'ISO 8601 in UTC, without zone', example: '2026-12-23T11:00:00' }),
  expires_in: z.number().int().openapi({ description: 'seconds until the access token expires' }),
});

export const RefreshTokenBody = z.object({ refresh_token: text().min(1).max(4096) });

export const failure = (description: string) => ({ description, content: { 'application/json': { schema: Failure } } });

export const clientSecretHeader = z.object({
  'x-auth-client-secret': z.string().optional().openapi({ description: 'the shared client secret (AUTH_SSO_SHARED_SECRET)' }),
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const clientIpHeader = {
  'x-auth-client-ip': z.string().max(100).optional().openapi({
    description: 'the end user’s IP address, from a consuming application calling server to server (used for per-IP rate limits)',
  }),
};
