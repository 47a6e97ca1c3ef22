import { and, eq, gt, isNull } from 'drizzle-orm';
import { refreshFamilies, users } from '#d1/auth/schema.ts';
import { permissionsFor, type User } from './accounts.ts';
import { audit } from './audit.ts';
import type { AuthDeps } from './login.ts';
import { openRefreshToken, signAccessToken, signRefreshToken } from './tokens.ts';

/** How long after a rotation the replaced token counts as a lost race rather than reuse. */
export const CONCURRENT_REFRESH_GRACE_MS = 5_000;

export interface IssuedTokens {
  success: true;
  access_token: string;
  refresh_token: string;
  refresh_token_expires_at: string;
  expires_in: number;
}

/** ISO 8601 in UTC without a zone designator, as the spec's consumers parse it. */
const isoWithoutZone = (ms: number) => new Date(ms).toISOString().slice(0, 19);

async function sign(
  { config, db }: AuthDeps,
  user: User,
  siteId: number | null,
  family: string,
  generation: number,
  refreshExpiresAt: number,
): Promise<IssuedTokens> {
  const now = Date.now();
  const maxAge = config.AUTH_ACCESS_TOKEN_MAX_AGE;
  const perm = await permissionsFor(db, user, siteId);
  const [access, refresh] = await Promise.all([
    signAccessToken({ uid: user.id, name: user.email, perm, exp: Math.floor(now / 1000) + maxAge }, config.AUTH_TOKEN_SECRET),
    signRefreshToken({ fam: family, gen: generation, exp: Math.floor(refreshExpiresAt / 1000) }, config.AUTH_TOKEN_SECRET),
  ]);
  return {
    success: true,
    access_token: access,
    refresh_token: refresh,
    refresh_token_expires_at: isoWithoutZone(refreshExpiresAt),
    expires_in: maxAge,
  };
}

/** A refresh token issued at `now` expires this long after it, on a whole second (its claim is in seconds). */
const refreshExpiry = (deps: AuthDeps, now: number) =>
  Math.floor((now + deps.config.AUTH_REFRESH_TOKEN_TTL_DAYS * 86_400_000) / 1000) * 1000;

/** The family is live (not revoked, not expired) and `generation` is still its current one. */
const isCurrent = (familyId: string, generation: number, now: number) =>
  and(
    eq(refreshFamilies.id, familyId),
    eq(refreshFamilies.generation, generation),
    isNull(refreshFamilies.revokedAt),
    gt(refreshFamilies.expiresAt, now),
  );

/** A new refresh family for a completed login, and its first pair of tokens. */
export async function startFamily(deps: AuthDeps, user: User, siteId: number | null): Promise<IssuedTokens> {
  const id = crypto.randomUUID();
  const expiresAt = refreshExpiry(deps, Date.now());
  await deps.db.insert(refreshFamilies).values({ id, userId: user.id, siteId, generation: 0, expiresAt, createdAt: Date.now() });
  return sign(deps, user, siteId, id, 0, expiresAt);
}

export type RotateResult = { kind: 'rotated'; tokens: IssuedTokens } | { kind: 'invalid' } | { kind: 'deactivated' };

/**
 * Rotation: the presented token must be its family's current generation. The generation moves
 * on with one compare-and-set UPDATE, so of two concurrent refreshes exactly one wins. A token
 * of an older generation is reuse: the whole family is revoked.
 */
export async function rotate(deps: AuthDeps, token: string): Promise<RotateResult> {
  const { db, config, ip } = deps;
  const now = Date.now();
  const claims = await openRefreshToken(token, config.AUTH_TOKEN_SECRET, now);
  if (!claims) return { kind: 'invalid' };
  const [row] = await db
    .select({ family: refreshFamilies, user: users })
    .from(refreshFamilies)
    .innerJoin(users, eq(users.id, refreshFamilies.userId))
    .where(eq(refreshFamilies.id, claims.fam))
    .limit(1);
  if (!row || row.family.revokedAt !== null || row.family.expiresAt <= now) return { kind: 'invalid' };
  const { family, user } = row;
  // The token just replaced, seconds after its rotation: a concurrent refresh that lost the race
  // (two tabs, a retried request), not theft. Refused, but the family is left alone.
  const justRotated =
    family.generation === claims.gen + 1 && family.lastRefreshedAt !== null && now - family.lastRefreshedAt < CONCURRENT_REFRESH_GRACE_MS;
  if (family.generation > claims.gen && justRotated) return { kind: 'invalid' };
  if (family.generation > claims.gen) {
    const revoked = await db
      .update(refreshFamilies)
      .set({ revokedAt: now, revokedReason: 'reuse_detected' })
      .where(and(eq(refreshFamilies.id, family.id), isNull(refreshFamilies.revokedAt)))
      .run();
    if (revoked.meta.changes === 1) {
      await audit(db, 'reuse_detected', {
        userId: user.id,
        email: user.email,
        ip,
        detail: `family ${family.id} generation ${claims.gen} < ${family.generation}`,
      });
    }
    return { kind: 'invalid' };
  }
  if (family.generation !== claims.gen) return { kind: 'invalid' };
  if (!user.isActive) return { kind: 'deactivated' };

  const expiresAt = refreshExpiry(deps, now);
  const moved = await db
    .update(refreshFamilies)
    .set({ generation: claims.gen + 1, lastRefreshedAt: now, expiresAt })
    .where(isCurrent(family.id, claims.gen, now))
    .run();
  // Lost a race with a concurrent refresh of the same token (see justRotated above).
  if (moved.meta.changes !== 1) return { kind: 'invalid' };
  const tokens = await sign(deps, user, family.siteId, family.id, claims.gen + 1, expiresAt);
  await audit(db, 'refresh', { userId: user.id, email: user.email, ip, detail: `family ${family.id} generation ${claims.gen + 1}` });
  return { kind: 'rotated', tokens };
}

/** Revokes the family of a current refresh token; false when the token was already dead. */
export async function revoke(deps: AuthDeps, token: string): Promise<boolean> {
  const { db, config, ip } = deps;
  const now = Date.now();
  const claims = await openRefreshToken(token, config.AUTH_TOKEN_SECRET, now);
  if (!claims) return false;
  const [family] = await db
    .update(refreshFamilies)
    .set({ revokedAt: now, revokedReason: 'revoked' })
    .where(isCurrent(claims.fam, claims.gen, now))
    .returning({ userId: refreshFamilies.userId });
  if (!family) return false;
  await audit(db, 'revoke', { userId: family.userId, ip, detail: `family ${claims.fam}` });
  return true;
}
