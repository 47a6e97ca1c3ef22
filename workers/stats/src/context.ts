import type { Context } from 'hono';
import { z } from 'zod';
import { parseConfig } from '#shared/config.ts';
import type { RacingReadsVariables } from '#shared/pg.ts';
import { racingTimezone } from '#shared/racing-day.ts';

export { racingToday } from '#shared/racing-day.ts';

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1');
const optionalUrl = z
  .string()
  .default('')
  .transform((v) => v.trim())
  .pipe(z.union([z.literal(''), z.url({ protocol: /^https?$/ })]))
  .transform((v) => (v === '' ? undefined : v));
const timeoutMs = z.coerce.number().int().min(100).max(60_000).default(5_000);

/** The service's config: vars from wrangler.toml, secrets via `wrangler secret put`. */
export const statsConfigSchema = z
  .object({
    STATIC_API_TOKEN: z.string().min(16, 'must be at least 16 characters'),
    ADMIN_USERNAME: z.string().min(1),
    ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters'),
    RACING_TIMEZONE: racingTimezone,
    EXTERNAL_API_ENABLED: flag,
    EXTERNAL_API_BASE_URL: optionalUrl,
    EXTERNAL_API_KEY: z.string().optional(),
    EXTERNAL_API_TIMEOUT_MS: timeoutMs,
    SSO_PORTAL_URL: optionalUrl,
    AUTH_LOGOUT_URL: optionalUrl,
    AUTH_LOGOUT_TIMEOUT_MS: timeoutMs,
  })
  .superRefine((config, ctx) => {
    if (!config.EXTERNAL_API_ENABLED) return;
    if (!config.EXTERNAL_API_BASE_URL)
      ctx.addIssue({ code: 'custom', path: ['EXTERNAL_API_BASE_URL'], message: 'is required when EXTERNAL_API_ENABLED is true' });
    if (!config.EXTERNAL_API_KEY)
      ctx.addIssue({ code: 'custom', path: ['EXTERNAL_API_KEY'], message: 'is required when EXTERNAL_API_ENABLED is true' });
  });
export type StatsConfig = z.output<typeof statsConfigSchema>;

export type StatsEnv = {
  Bindings: Env & { EXTERNAL_API_KEY?: string };
  Variables: RacingReadsVariables & { requestId: string; config?: StatsConfig };
};

/** The validated config, parsed once per request on first use (open pages do not need it). */
export function statsConfig(c: Context<StatsEnv>): StatsConfig {
  const cached = c.get('config');
  if (cached) return cached;
  const config = parseConfig(statsConfigSchema, c.env);
  c.set('config', config);
  return config;
}
