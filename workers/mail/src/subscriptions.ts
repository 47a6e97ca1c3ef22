import { and, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '#d1/mail/schema.ts';
import { mailboxes, subscriptions } from '#d1/mail/schema.ts';
import { randomBytes, sha256Hex, toBase64Url } from '#shared/crypto.ts';
import { HttpError } from '#shared/http-error.ts';
import type { MailConfig } from './config.ts';
import { mailboxStub } from './context.ts';
import { GraphClient, inBackground } from './graph/client.ts';
import { SENT_RESOURCE } from './ai/replies.ts';

/** New mail in the inbox, and changes to it (read, moved), reach the webhook. */
export const INBOX_RESOURCE = "me/mailFolders('inbox')/messages";
export const CHANGE_TYPE = 'created,updated';
/** Every mailbox has both: the Inbox, and Sent Items (replies tracked wherever they are sent, ai/replies.ts). */
const RESOURCES = [INBOX_RESOURCE, SENT_RESOURCE] as const;
/** Sent Items: only new messages matter. */
const changeTypeOf = (resource: string) => (resource === SENT_RESOURCE ? 'created' : CHANGE_TYPE);

type Db = ReturnType<typeof drizzle<typeof schema>>;

const iso = (ms: number) => new Date(ms).toISOString();
// subscription calls (made, renewed, dropped) are background work: the mailbox's reads go first
const graphOf = (env: Env, config: MailConfig, userId: number) =>
  new GraphClient(inBackground(mailboxStub(env, userId)), config.GRAPH_BASE_URL);

/**
 * Creates a subscription of a user's mailbox (the inbox unless another resource is named): Graph
 * first calls the webhook with a validationToken, then answers the subscription. The clientState
 * is random; only its hash is kept.
 */
export async function createSubscription(
  graph: GraphClient,
  db: Db,
  config: MailConfig,
  userId: number,
  notificationUrl: string,
  now = Date.now(),
  resource: string = INBOX_RESOURCE,
) {
  const clientState = toBase64Url(randomBytes(32));
  const changeType = changeTypeOf(resource);
  const created = await graph.createSubscription({
    changeType,
    notificationUrl,
    resource,
    expirationDateTime: iso(now + config.SUBSCRIPTION_MINUTES * 60_000),
    clientState,
  });
  if (!created.id || !created.expirationDateTime)
    throw new HttpError(502, 'graph_unavailable', 'Graph answered a subscription without an id or expiry.');
  const row = {
    id: created.id,
    userId,
    // the resource as asked (Graph may spell it its own way): renewal finds a missing one by it
    resource,
    changeType: created.changeType ?? changeType,
    notificationUrl,
    clientStateHash: await sha256Hex(clientState),
    expiresAt: Date.parse(created.expirationDateTime),
    createdAt: now,
  };
  await db.insert(subscriptions).values(row);
  return row;
}

/** Deletes a user's subscriptions, at Graph (best effort: they lapse there anyway) and here. */
async function dropSubscriptions(graph: GraphClient | undefined, db: Db, userId: number) {
  for (const old of await db.select().from(subscriptions).where(eq(subscriptions.userId, userId)).all()) {
    if (graph) await graph.deleteSubscription(old.id).catch(() => undefined);
    await db
      .delete(subscriptions)
      .where(and(eq(subscriptions.id, old.id), eq(subscriptions.userId, userId)))
      .run();
  }
}

/**
 * A user's mailbox was connected: it is listed for the cron, and the subscriptions of its earlier
 * connection are replaced with one for the mailbox now connected. Other users' stay as they are.
 */
export async function resubscribe(env: Env, config: MailConfig, userId: number, mail: string, notificationUrl: string, now = Date.now()) {
  const db = drizzle(env.DB, { schema });
  const graph = graphOf(env, config, userId);
  await db
    .insert(mailboxes)
    .values({ userId, mail, notificationUrl, connectedAt: now })
    .onConflictDoUpdate({ target: mailboxes.userId, set: { mail, notificationUrl, connectedAt: now } })
    .run();
  await dropSubscriptions(graph, db, userId);
  const inbox = await createSubscription(graph, db, config, userId, notificationUrl, now);
  // Sent Items beside it; when Graph refuses it now, the cron creates it (as a missing one)
  await createSubscription(graph, db, config, userId, notificationUrl, now, SENT_RESOURCE).catch((err) =>
    console.warn(
      JSON.stringify({ level: 'warn', service: 'mail', event: 'sent_subscription_failed', user_id: userId, error: message(err) }),
    ),
  );
  return inbox;
}

/** Before a user's mailbox is disconnected (while its token still works): its subscriptions end. */
export async function unsubscribe(env: Env, config: MailConfig, userId: number) {
  const db = drizzle(env.DB, { schema });
  await dropSubscriptions(graphOf(env, config, userId), db, userId);
  await db.delete(mailboxes).where(eq(mailboxes.userId, userId)).run();
}

export interface RenewalReport {
  /** Connected mailboxes looked at. */
  mailboxes: number;
  renewed: string[];
  /** Made again: Graph no longer knew them, or they had expired. */
  recreated: string[];
  /** Made for a connected mailbox that had none (its subscription failed when it connected). */
  created: string[];
  /** Users whose mailbox is no longer connected (a refused refresh): their rows are removed. */
  disconnected: number[];
  failed: { userId: number; id: string | null; error: string }[];
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The cron's work over every connected mailbox: every subscription expiring within
 * SUBSCRIPTION_RENEW_BEFORE_MINUTES of `now` (the trigger's scheduled time) is extended to
 * now + SUBSCRIPTION_MINUTES; one Graph no longer knows (404) or that already expired is created
 * again at the same address; a mailbox without one gets one. One mailbox failing does not stop
 * the others.
 */
export async function renewSubscriptions(env: Env, config: MailConfig, now: number): Promise<RenewalReport> {
  const report: RenewalReport = { mailboxes: 0, renewed: [], recreated: [], created: [], disconnected: [], failed: [] };
  const db = drizzle(env.DB, { schema });
  const due = now + config.SUBSCRIPTION_RENEW_BEFORE_MINUTES * 60_000;
  for (const mailbox of await db.select().from(mailboxes).all()) {
    const userId = mailbox.userId;
    try {
      if (!(await mailboxStub(env, userId).status()).connected) {
        await dropSubscriptions(undefined, db, userId);
        await db.delete(mailboxes).where(eq(mailboxes.userId, userId)).run();
        report.disconnected.push(userId);
        continue;
      }
    } catch (err) {
      report.failed.push({ userId, id: null, error: message(err) });
      continue;
    }
    report.mailboxes += 1;
    const graph = graphOf(env, config, userId);
    const rows = await db.select().from(subscriptions).where(eq(subscriptions.userId, userId)).all();
    // a resource without a subscription (refused at connect, or a mailbox connected before Sent Items were watched)
    const watched = new Set(rows.map((row) => (row.resource === SENT_RESOURCE ? SENT_RESOURCE : INBOX_RESOURCE)));
    const missing = RESOURCES.filter((resource) => !watched.has(resource));
    for (const resource of missing) {
      try {
        report.created.push((await createSubscription(graph, db, config, userId, mailbox.notificationUrl, now, resource)).id);
      } catch (err) {
        report.failed.push({ userId, id: null, error: message(err) });
      }
    }
    for (const row of rows) {
      if (row.expiresAt > due) continue;
      try {
        if (row.expiresAt > now) {
          try {
            const renewed = await graph.renewSubscription(row.id, iso(now + config.SUBSCRIPTION_MINUTES * 60_000));
            const expiresAt = renewed.expirationDateTime
              ? Date.parse(renewed.expirationDateTime)
              : now + config.SUBSCRIPTION_MINUTES * 60_000;
            await db.update(subscriptions).set({ expiresAt, renewedAt: now }).where(eq(subscriptions.id, row.id)).run();
            report.renewed.push(row.id);
            continue;
          } catch (err) {
            if (!(err instanceof HttpError && err.status === 404)) throw err;
          }
        }
        await db.delete(subscriptions).where(eq(subscriptions.id, row.id)).run();
        const created = await createSubscription(graph, db, config, userId, row.notificationUrl, now, row.resource);
        report.recreated.push(created.id);
      } catch (err) {
        report.failed.push({ userId, id: row.id, error: message(err) });
      }
    }
  }
  return report;
}
