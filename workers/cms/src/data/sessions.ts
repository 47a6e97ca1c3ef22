import type { DrizzleD1Database } from 'drizzle-orm/d1';
import type * as schema from '#d1/cms/schema.ts';
import { sessions } from '#d1/cms/schema.ts';
import type { SessionStore } from '#shared/browser-session.ts';
import { d1SessionStore } from '#shared/d1-sessions.ts';
import type { SessionUser } from '../context.ts';

/** The CMS's session rows (D1 `sessions`) in the shared D1 session store. */
export const sessionStore = (db: DrizzleD1Database<typeof schema>): SessionStore<SessionUser> =>
  d1SessionStore(db, sessions, {
    values: ({ idHash, profile, refreshTokenSealed, checkedAt, expiresAt }) => ({
      idHash,
      userId: profile.id,
      email: profile.email,
      firstName: profile.firstName,
      lastName: profile.lastName,
      role: profile.role,
      refreshTokenSealed,
      checkedAt,
      expiresAt,
    }),
    profile: (row) => ({ id: row.userId, email: row.email, firstName: row.firstName, lastName: row.lastName, role: row.role }),
  });
