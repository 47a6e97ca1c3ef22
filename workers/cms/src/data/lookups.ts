import { asc, inArray } from 'drizzle-orm';
import { authors, contributors, newsTypes, sites } from '#d1/cms/schema.ts';
import type { CmsDb } from '../context.ts';

/** The pick lists one bootstrap call may ask for. */
export const BOOTSTRAP_KEYS = ['sites', 'authors', 'contributors'] as const;
export type BootstrapKey = (typeof BOOTSTRAP_KEYS)[number];

export const listSites = (db: CmsDb) =>
  db.select({ id: sites.id, name: sites.name, url: sites.url }).from(sites).orderBy(asc(sites.name), asc(sites.id));
export const listAuthors = (db: CmsDb) =>
  db.select({ id: authors.id, name: authors.name }).from(authors).orderBy(asc(authors.name), asc(authors.id));
export const listContributors = (db: CmsDb) =>
  db.select({ id: contributors.id, name: contributors.name }).from(contributors).orderBy(asc(contributors.name), asc(contributors.id));

/** The lists named by `keys`, in one D1 round trip; `keys` must not be empty. */
export async function bootstrapLists(db: CmsDb, keys: readonly BootstrapKey[]): Promise<Partial<Record<BootstrapKey, unknown[]>>> {
  const queries = { sites: listSites(db), authors: listAuthors(db), contributors: listContributors(db) };
  const [first, ...rest] = keys.map((key) => queries[key]);
  const results = await db.batch([first!, ...rest]);
  const body: Partial<Record<BootstrapKey, unknown[]>> = {};
  keys.forEach((key, i) => (body[key] = results[i] as unknown[]));
  return body;
}

/** The news types of the given sites, by name. */
export const newsTypesOfSites = (db: CmsDb, siteIds: readonly number[]) =>
  db
    .select({ id: newsTypes.id, name: newsTypes.name, siteId: newsTypes.siteId })
    .from(newsTypes)
    .where(inArray(newsTypes.siteId, [...new Set(siteIds)]))
    .orderBy(asc(newsTypes.name), asc(newsTypes.id));
