import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/cms/schema.ts';
import { newSession } from '../../workers/cms/src/session';
import type { StoryDetail } from '../../workers/cms/src/story-schemas';
import { api } from './helpers';

export const db = drizzle(env.DB, { schema });

type Site = typeof schema.sites.$inferSelect;

let counter = 0;

/**
 * Sites, news types, an author and a contributor of the test's own, so tests never depend on each
 * other's rows (site names are unique, hence the tag).
 */
export async function lookups() {
  const tag = `${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const sites = await db
    .insert(schema.sites)
    .values([
      { name: `Racing Today ${tag}`, url: 'https://racing.example' },
      { name: `Harness Weekly ${tag}`, url: 'https://harness.example' },
    ])
    .returning();
  const [a, b] = sites as [Site, Site];
  const types = await db
    .insert(schema.newsTypes)
    .values([
      { siteId: a.id, name: 'News' },
      { siteId: a.id, name: 'Tips' },
      { siteId: b.id, name: 'Results' },
    ])
    .returning();
  const [author] = await db
    .insert(schema.authors)
    .values({ name: `Author ${tag}`, email: 'writer@example.com' })
    .returning();
  const [contributor] = await db
    .insert(schema.contributors)
    .values({ name: `Tipster ${tag}` })
    .returning();
  // A gallery record only (the story tests never read its files).
  const [photo] = await db
    .insert(schema.photos)
    .values({ title: `Finish ${tag}`, originalKey: `photo/${tag}/original.jpg`, contentType: 'image/jpeg', sizeBytes: 1 })
    .returning();
  return {
    tag,
    siteA: a.id,
    siteB: b.id,
    newsA: types[0]!.id,
    tipsA: types[1]!.id,
    resultsB: types[2]!.id,
    authorId: author!.id,
    contributorId: contributor!.id,
    photoId: photo!.id,
  };
}
export type Lookups = Awaited<ReturnType<typeof lookups>>;

/**
 * A session row as a completed sign-in stores it (see workers/cms/src/session.ts), for files that
 * test stories rather than signing in: the real sign-in is proven in auth.test.ts and stories.test.ts.
 */
export async function directSession(role: 'ADMIN' | 'USER'): Promise<string> {
  const user = {
    id: role === 'ADMIN' ? 9001 : 9002,
    email: `${role.toLowerCase()}@example.com`,
    firstName: role,
    lastName: 'Direct',
    role,
  };
  const { id, row } = await newSession(env.SESSION_SECRET, user, 'not-used-within-the-recheck-period');
  // Confirmed "in an hour": no recheck with the authentication service within the test's minutes.
  await db.insert(schema.sessions).values({ ...row, checkedAt: Date.now() + 3_600_000 });
  return `app_session=${id}`;
}

/** A story as the API answers it (the route's own response type). */
export type StoryJson = StoryDetail;

export type PageJson = { items: StoryJson[]; page: number; pageSize: number; totalCount: number; totalPages: number };

/** Creates a story through the API and answers it; fails the test on anything but 201. */
export async function createStory(cookie: string, body: Record<string, unknown>): Promise<StoryJson> {
  const res = await api('/api/v1/story', { method: 'POST', cookie, json: body });
  if (res.status !== 201) throw new Error(`create story: ${res.status} ${await res.text()}`);
  return res.json<StoryJson>();
}
