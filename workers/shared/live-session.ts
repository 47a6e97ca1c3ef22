import type { LiveSession } from '#durable-objects/live-session.ts';
import type { SessionRow, SessionStore } from './browser-session.ts';

// Server-side sessions in LiveSession Durable Objects, for the services without a D1 table for
// them (the form service, the auth dashboard): a session store for the shared browser session.

const liveSession = (sessions: DurableObjectNamespace<LiveSession>, id: string) => sessions.get(sessions.idFromName(id));

/**
 * A session store (workers/shared/browser-session.ts) whose rows live in LiveSession objects, one
 * per session; `profileOf` checks a stored profile's shape (undefined: not one of this service's).
 * Without an upstream nothing is rechecked, so the recheck steps never run here.
 */
export function liveSessionStore<P>(
  sessions: DurableObjectNamespace<LiveSession>,
  profileOf: (stored: unknown) => P | undefined,
): SessionStore<P> {
  const rowOf = (stored: Record<string, unknown> | undefined): SessionRow<P> | undefined => {
    const profile = stored ? profileOf(stored.profile) : undefined;
    if (!stored || profile === undefined) return undefined;
    const { idHash, checkedAt, expiresAt } = stored;
    if (typeof idHash !== 'string' || typeof checkedAt !== 'number' || typeof expiresAt !== 'number') return undefined;
    return { idHash, profile, refreshTokenSealed: '', checkedAt, expiresAt };
  };
  return {
    async insert(row) {
      await liveSession(sessions, row.idHash).keep(
        { idHash: row.idHash, profile: row.profile, checkedAt: row.checkedAt, expiresAt: row.expiresAt },
        row.expiresAt,
      );
    },
    find: async (idHash) => rowOf(await liveSession(sessions, idHash).row()),
    claimRecheck: async () => false,
    releaseRecheck: async () => {},
    reseal: async () => {},
    remove: async (idHash) => rowOf(await liveSession(sessions, idHash).take()),
    // Each object's alarm removes its own row when it expires.
    removeExpired: async () => {},
  };
}
