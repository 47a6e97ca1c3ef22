import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import * as schema from '#d1/migrate/schema.ts';
import { commaListSetting, parseConfig } from '#shared/config.ts';
import type { SessionVariables } from '#shared/session-variables.ts';

/** `host` (any port) or `host:port`, lower-cased: hosts a configuration (or a sheet address) may name. */
export const allowedHosts = commaListSetting('', (entry) => entry.toLowerCase());

/** The service's config: vars from wrangler.toml, secrets via `wrangler secret put`. */
export const migrateConfigSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  PG_WS_PROXY: z.string().optional(),
  AUTH_CLIENT_SECRET: z.string().min(8, 'must be at least 8 characters'),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters'),
  CONFIG_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters'),
  MIGRATE_AUTH_SITE: z.string().default('migrate'),
  MIGRATE_ALLOWED_HOSTS: allowedHosts,
  /** Hosts an auto-sync's sheet address (and every redirect of it) may name; `*.domain` for a whole domain. */
  MIGRATE_SHEET_HOSTS: allowedHosts,
  SESSION_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(7 * 86_400)
    .default(43_200),
  SESSION_REFRESH_WINDOW_SECONDS: z.coerce.number().int().min(0).max(899).default(120),
});
export type MigrateConfig = z.output<typeof migrateConfigSchema>;

export const ROLES = ['Admin', 'Operator', 'Viewer'] as const;
export type Role = (typeof ROLES)[number];

/** The signed-in user, from the session. */
export type SessionUser = { id: number; email: string; name: string; role: Role; sessionHash: string };

export type MigrateDb = DrizzleD1Database<typeof schema>;

export type MigrateEnv = {
  Bindings: Env;
  Variables: SessionVariables<MigrateConfig, MigrateDb, SessionUser> & {
    /** Set by the route's guard: errors answer JSON rather than a page. */
    answerJson: boolean;
  };
};

export type MigrateContext = Context<MigrateEnv>;

/**
 * What the app's logic reads besides the request: the bindings, the D1 handle and the validated
 * config. A request's context is one; the scheduled handler builds one with `servicesOf`.
 */
export type MigrateServices = { env: Env; var: { db: MigrateDb; config: MigrateConfig } };

export function servicesOf(env: Env): MigrateServices {
  return { env, var: { db: drizzle(env.DB, { schema }), config: parseConfig(migrateConfigSchema, env) } };
}

/** Validated config and the D1 handle on `c.var`, once per request. */
export function migrateServices(): MiddlewareHandler<MigrateEnv> {
  return async (c, next) => {
    const services = servicesOf(c.env);
    c.set('config', services.var.config);
    c.set('db', services.var.db);
    await next();
  };
}
