import { sessions } from '#d1/mail/schema.ts';
import type { SessionStore } from '#shared/browser-session.ts';
import { d1SessionStore } from '#shared/d1-sessions.ts';
import type { MailDb, SessionUser } from '../context.ts';

/** The mail assistant's session rows (D1 `sessions`) in the shared D1 session store. */
export const sessionStore = (db: MailDb): SessionStore<SessionUser> =>
  d1SessionStore(db, sessions, {
    values: ({ idHash, profile, refreshTokenSealed, checkedAt, expiresAt }) => ({
      idHash,
      userId: profile.id,
      email: profile.email,
      name: profile.name,
      refreshTokenSealed,
      createdAt: checkedAt,
      expiresAt,
      checkedAt,
    }),
    profile: (row) => ({ id: row.userId, email: row.email, name: row.name }),
  });
