import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import * as schema from '../../../d1/mail/schema';
import { subscriptions } from '../../../d1/mail/schema';
import { randomBytes, sha256Hex, toBase64Url } from '../../shared/encoding';
import { HttpError } from '../../shared/http-error';
import type { MailConfig } from './config';
import { mailboxStub } from './context';
import { GraphClient } from './graph/client';

/** New mail in the inbox, and changes to it (read, moved), reach the webhook. */
export const INBOX_RESOURCE = "me/mailFolders('inbox')/messages";
export const CHANGE_TYPE = 'created,updated';

type Db = ReturnType<typeof drizzle<typeof schema>>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Creates the inbox subscription: Graph first calls the webhook with a validationToken, then
 * answers the subscription. The clientState is random; only its hash is kept.
 */
export async function createSubscription(graph: GraphClient, db: Db, config: MailConfig, notificationUrl: string, now = Date.now()) {
  const clientState = toBase64Url(randomBytes(32));
  const created = await graph.createSubscription({
    changeType: CHANGE_TYPE,
    notificationUrl,
    resource: INBOX_RESOURCE,
    expirationDateTime: iso(now + config.SUBSCRIPTION_MINUTES * 60_000),
    clientState,
  });
  if (!created.id || !created.expirationDateTime) throw new HttpError(502, 'graph_unavailable', 'Graph answered a subscription without an id or expiry.');
  const row = {
    id: created.id,
    resource: created.resource ?? INBOX_RESOURCE,
    changeType: created.changeType ?? CHANGE_TYPE,
    notificationUrl,
    clientStateHash: await sha256Hex(clientState),
    expiresAt: Date.parse(created.expirationDateTime),
    createdAt: now,
  };
  await db.insert(subscriptions).values(row);
  return row;
}

/** Replaces every subscription of an earlier connection with one for the mailbox now connected. */
export async function resubscribe(env: Env, config: MailConfig, notificationUrl: string) {
  const db = drizzle(env.DB, { schema });
  const graph = new GraphClient(mailboxStub(env), config.GRAPH_BASE_URL);
  for (const old of await db.select().from(subscriptions).all()) {
    await graph.deleteSubscription(old.id).catch(() => undefined);
    await db.delete(subscriptions).where(eq(subscriptions.id, old.id)).run();
  }
  return createSubscription(graph, db, config, notificationUrl);
}

export interface RenewalReport {
  renewed: string[];
  recreated: string[];
  failed: { id: string; error: string }[];
  skipped: 'not_connected' | null;
}

/**
 * The cron's work: every subscription expiring within SUBSCRIPTION_RENEW_BEFORE_MINUTES of `now`
 * (the trigger's scheduled time) is extended to now + SUBSCRIPTION_MINUTES; one Graph no longer
 * knows (404) or that already expired is created again at the same address.
 */
export async function renewSubscriptions(env: Env, config: MailConfig, now: number): Promise<RenewalReport> {
  const report: RenewalReport = { renewed: [], recreated: [], failed: [], skipped: null };
  const status = await mailboxStub(env).status();
  if (!status.connected) return { ...report, skipped: 'not_connected' };
  const db = drizzle(env.DB, { schema });
  const graph = new GraphClient(mailboxStub(env), config.GRAPH_BASE_URL);
  const due = now + config.SUBSCRIPTION_RENEW_BEFORE_MINUTES * 60_000;
  for (const row of await db.select().from(subscriptions).all()) {
    if (row.expiresAt > due) continue;
    try {
      if (row.expiresAt > now) {
        try {
          const renewed = await graph.renewSubscription(row.id, iso(now + config.SUBSCRIPTION_MINUTES * 60_000));
          const expiresAt = renewed.expirationDateTime ? Date.parse(renewed.expirationDateTime) : now + config.SUBSCRIPTION_MINUTES * 60_000;
          await db.update(subscriptions).set({ expiresAt, renewedAt: now }).where(eq(subscriptions.id, row.id)).run();
          report.renewed.push(row.id);
          continue;
        } catch (err) {
          if (!(err instanceof HttpError && err.status === 404)) throw err;
        }
      }
      await db.delete(subscriptions).where(eq(subscriptions.id, row.id)).run();
      const created = await createSubscription(graph, db, config, row.notificationUrl, now);
      report.recreated.push(created.id);
    } catch (err) {
      report.failed.push({ id: row.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return report;
}
