import { z } from 'zod';
import { parseConfig } from '#shared/config.ts';
import { racingTimezone } from '#shared/racing-day.ts';

export { racingToday } from '#shared/racing-day.ts';

const formConfigSchema = z.object({
  ADMIN_USERNAME: z.string().min(1),
  ADMIN_PASSWORD: z.string().min(1),
  /** HMAC key of the session cookie and the login form token. */
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters'),
  SESSION_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(28_800),
  RACING_TIMEZONE: racingTimezone,
  /** Empty: the landing page opens the winner of the latest race run. */
  DEFAULT_HORSE_ID: z.union([z.literal('').transform(() => undefined), z.coerce.number().int().positive().max(2_147_483_647)]).optional(),
});

export type FormConfig = z.output<typeof formConfigSchema>;

export const formConfig = (env: unknown): FormConfig => parseConfig(formConfigSchema, env);
