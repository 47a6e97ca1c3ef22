import { z } from 'zod';
import { parseConfig } from '#shared/config.ts';

const positiveInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0) {
        ctx.addIssue({ code: 'custom', message: 'must be a positive integer' });
        return z.NEVER;
      }
      return n;
    });

/** Like positiveInt, but 0 is allowed (it means "off" where a variable says so). */
const nonNegativeInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const n = Number(value);
      if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
        ctx.addIssue({ code: 'custom', message: 'must be a whole number of 0 or more' });
        return z.NEVER;
      }
      return n;
    });

const secret = (min: number) => z.string({ error: 'is not set' }).min(min, `must be at least ${min} characters`);

/** What the scheduled retention job needs: no secrets, so a cron run never depends on them. */
const retentionConfigSchema = z.object({
  /** Audit rows older than this many days are deleted; 0 keeps them forever. */
  AUTH_AUDIT_RETENTION_DAYS: nonNegativeInt(365),
});

const authConfigSchema = z.object({
  ...retentionConfigSchema.shape,
  AUTH_SSO_SHARED_SECRET: secret(8),
  AUTH_TOKEN_SECRET: secret(32),
  AUTH_TOTP_ENCRYPTION_KEY: secret(43),
  AUTH_ACCESS_TOKEN_MAX_AGE: positiveInt(900),
  AUTH_REFRESH_TOKEN_TTL_DAYS: positiveInt(30),
  AUTH_TOTP_ISSUER: z.string().optional().default('Racing back-office'),
  AUTH_LOCKOUT_THRESHOLD: positiveInt(10),
  AUTH_LOCKOUT_MINUTES: positiveInt(15),
  AUTH_IP_LIMIT_PER_MINUTE: positiveInt(30),
});

export type AuthConfig = z.output<typeof authConfigSchema>;

export const authConfig = (env: unknown): AuthConfig => parseConfig(authConfigSchema, env);

export type RetentionConfig = z.output<typeof retentionConfigSchema>;

export const retentionConfig = (env: unknown): RetentionConfig => parseConfig(retentionConfigSchema, env);
