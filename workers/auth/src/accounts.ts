import { and, eq, isNull } from 'drizzle-orm';
import { credentials, sites, users } from '#d1/auth/schema.ts';
import type { AuthDb } from './context.ts';
import { normaliseEmail } from './email.ts';

export type User = typeof users.$inferSelect;
export type Site = typeof sites.$inferSelect;
export type Credential = typeof credentials.$inferSelect;

export { normaliseEmail } from './email.ts';

/**
 * The credential a login uses: the one for the named site when `site` is a registered
 * site_name (exact match) and the account has one there, otherwise the siteless one.
 */
export async function findLoginCredential(
  db: AuthDb,
  email: string,
  siteName: string,
): Promise<{ user: User; credential: Credential; site: Site | null } | null> {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.email, normaliseEmail(email)))
    .limit(1);
  if (!user) return null;
  const [site] = await db.select().from(sites).where(eq(sites.siteName, siteName)).limit(1);
  if (site) {
    const [perSite] = await db
      .select()
      .from(credentials)
      .where(and(eq(credentials.userId, user.id), eq(credentials.siteId, site.id)))
      .limit(1);
    if (perSite) return { user, credential: perSite, site };
  }
  const [siteless] = await db
    .select()
    .from(credentials)
    .where(and(eq(credentials.userId, user.id), isNull(credentials.siteId)))
    .limit(1);
  return siteless ? { user, credential: siteless, site: null } : null;
}

/** Parses a site's stored role vocabulary; null = the global one. */
export function siteRoles(site: Pick<Site, 'roles'> | null | undefined): string[] | null {
  if (!site?.roles) return null;
  try {
    const roles: unknown = JSON.parse(site.roles);
    return Array.isArray(roles) && roles.every((r) => typeof r === 'string') && roles.length > 0 ? roles : null;
  } catch {
    return null;
  }
}

/**
 * `user_permissions`: the site's own role string when the login was for a site with a
 * vocabulary and the account has a role there, otherwise the global role; upper-cased.
 */
export async function permissionsFor(db: AuthDb, user: Pick<User, 'id' | 'role'>, siteId: number | null): Promise<string> {
  if (siteId !== null) {
    const [row] = await db
      .select({ roles: sites.roles, siteRole: credentials.siteRole })
      .from(credentials)
      .innerJoin(sites, eq(sites.id, credentials.siteId))
      .where(and(eq(credentials.userId, user.id), eq(credentials.siteId, siteId)))
      .limit(1);
    const vocabulary = siteRoles(row);
    if (row?.siteRole && vocabulary?.includes(row.siteRole)) return row.siteRole.toUpperCase();
  }
  return user.role.toUpperCase();
}

export const publicUser = (user: User) => ({
  id: user.id,
  email: user.email,
  first_name: user.firstName,
  last_name: user.lastName,
  role: user.role,
});
