import { inArray } from 'drizzle-orm';
import { subscriptions } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/** D1 binds at most 100 parameters a statement: ids are looked up this many at a time. */
const IDS_PER_STATEMENT = 90;

/** The subscriptions among `ids` this service made (the unknown ones left out), looked up in parallel chunks. */
export async function subscriptionsByIds(db: MailDb, ids: readonly string[]): Promise<(typeof subscriptions.$inferSelect)[]> {
  const lookups = [];
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT)
    lookups.push(
      db
        .select()
        .from(subscriptions)
        .where(inArray(subscriptions.id, ids.slice(i, i + IDS_PER_STATEMENT)))
        .all(),
    );
  return (await Promise.all(lookups)).flat();
}
