import { and, eq, isNull } from 'drizzle-orm';
import { credentials, sites, users } from '#d1/auth/schema.ts';
import type { AuthDb } from '../context.ts';

/** Every account, by e-mail address. */
export const listAccounts = (db: AuthDb) => db.select().from(users).orderBy(users.email);

/** Every registered site's id and name, by name (the choices of the credential form). */
export const listSiteChoices = (db: AuthDb) => db.select({ id: sites.id, siteName: sites.siteName }).from(sites).orderBy(sites.siteName);

/** The account of an id, or undefined. */
export async function findAccount(db: AuthDb, id: number) {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user;
}

/** The account of a (normalised) e-mail address, or undefined. */
export async function findAccountByEmail(db: AuthDb, email: string) {
  const [user] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return user;
}

/** The site of an id, or undefined. */
export async function findSite(db: AuthDb, id: number) {
  const [site] = await db.select().from(sites).where(eq(sites.id, id)).limit(1);
  return site;
}

/** (De)activates an account; answers its e-mail address, or undefined when there is no such account. */
export async function setAccountActive(db: AuthDb, id: number, active: boolean) {
  const [user] = await db.update(users).set({ isActive: active }).where(eq(users.id, id)).returning({ email: users.email });
  return user;
}

/** Replaces an account's password and role for one site, in one batch. */
export async function replaceSiteCredential(db: AuthDb, values: typeof credentials.$inferInsert & { siteId: number }): Promise<void> {
  await db.batch([
    db.delete(credentials).where(and(eq(credentials.userId, values.userId), eq(credentials.siteId, values.siteId))),
    db.insert(credentials).values(values),
  ]);
}

/** The hash of an account's siteless password (the one the dashboard signs in with), or undefined. */
export async function sitelessPasswordHash(db: AuthDb, userId: number): Promise<string | undefined> {
  const [credential] = await db
    .select({ passwordHash: credentials.passwordHash })
    .from(credentials)
    .where(and(eq(credentials.userId, userId), isNull(credentials.siteId)))
    .limit(1);
  return credential?.passwordHash;
}
