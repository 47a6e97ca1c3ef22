import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type * as schema from '#d1/auth/schema.ts';
import type { AuthConfig } from './config.ts';

export type AuthDb = DrizzleD1Database<typeof schema>;

/** The Hono types every auth route shares: bindings from wrangler.toml, services from middleware. */
export type AuthEnv = {
  Bindings: Env;
  Variables: { requestId: string; config: AuthConfig; db: AuthDb; ip: string };
};
