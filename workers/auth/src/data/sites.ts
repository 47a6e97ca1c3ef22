import { eq } from 'drizzle-orm';
import { sites } from '#d1/auth/schema.ts';
import type { AuthDb } from '../context.ts';

/** The roles column: a JSON list, or null for none. */
const rolesColumn = (roles: readonly string[]) => (roles.length ? JSON.stringify(roles) : null);

/** Every registered site, by name. */
export const listSites = (db: AuthDb) => db.select().from(sites).orderBy(sites.siteName);

/** Registers a site; undefined when a site of that name is registered already. */
export async function createSite(db: AuthDb, site: { siteName: string; siteUrl: string; roles: readonly string[] }) {
  const [row] = await db
    .insert(sites)
    .values({ siteName: site.siteName, siteUrl: site.siteUrl, roles: rolesColumn(site.roles) })
    .onConflictDoNothing()
    .returning({ id: sites.id });
  return row;
}

/** Changes a site's address and roles; answers its name, or undefined when there is no such site. */
export async function updateSite(db: AuthDb, id: number, site: { siteUrl: string; roles: readonly string[] }) {
  const [row] = await db
    .update(sites)
    .set({ siteUrl: site.siteUrl, roles: rolesColumn(site.roles) })
    .where(eq(sites.id, id))
    .returning({ siteName: sites.siteName });
  return row;
}

/** Removes a site; answers its name, or undefined when there was no such site. */
export async function deleteSite(db: AuthDb, id: number) {
  const [row] = await db.delete(sites).where(eq(sites.id, id)).returning({ siteName: sites.siteName });
  return row;
}
