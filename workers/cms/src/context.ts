import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import * as schema from '#d1/cms/schema.ts';
import { commaListSetting, parseConfig } from '#shared/config.ts';
import { racingTimezone } from '#shared/racing-day.ts';
import type { RacingReadsVariables } from '#shared/pg.ts';

const list = (fallback: string) => commaListSetting(fallback);

/** Browser origins of the editing front end: CORS with credentials, and allowed writers. */
export const editorOrigins = list('');

/** The service's config: vars from wrangler.toml, secrets via `wrangler secret put`. */
export const cmsConfigSchema = z.object({
  AUTH_CLIENT_SECRET: z.string().min(8, 'must be at least 8 characters'),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters'),
  CMS_AUTH_SITE: z.string().default(''),
  CMS_EDITOR_ROLES: list('ADMIN,EDITOR').transform((roles) => roles.map((role) => role.toUpperCase())),
  CMS_EDITOR_ORIGINS: editorOrigins,
  SESSION_RECHECK_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  RACING_TIMEZONE: racingTimezone,
  RESTRICTED_CONTENT_TAGS: list('[members-only],[/members-only]').pipe(z.array(z.string()).min(1, 'must name at least one tag')),
});
export type CmsConfig = z.output<typeof cmsConfigSchema>;

/** The signed-in editor, as the authentication service described them at login. */
export type SessionUser = { id: number; email: string; firstName: string; lastName: string; role: string };

export type CmsDb = DrizzleD1Database<typeof schema>;

export type CmsEnv = {
  Bindings: Env;
  Variables: RacingReadsVariables & {
    requestId: string;
    config: CmsConfig;
    db: CmsDb;
    user: SessionUser;
  };
};

export type CmsContext = Context<CmsEnv>;

/** Validated config and the D1 handle on `c.var`, once per request. */
export function cmsServices(): MiddlewareHandler<CmsEnv> {
  return async (c, next) => {
    c.set('config', parseConfig(cmsConfigSchema, c.env));
    c.set('db', drizzle(c.env.DB, { schema }));
    await next();
  };
}
