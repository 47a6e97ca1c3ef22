import { anonymous } from '#shared/guard.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import { type MailboxNotification, announcesNewMessage } from '../mailbox/notifications.ts';
import { secretsEqual, sha256Hex } from '#shared/crypto.ts';
import { HttpError } from '#shared/http-error.ts';
import { addressThrottle, clientAddress } from '#shared/throttle.ts';
import { type MailEnv, mailboxStub } from '../context.ts';
import { subscriptionsByIds } from '../data/subscriptions.ts';
import { limitBody, userAssistantAllowed } from '../guards.ts';
import { SENT_RESOURCE } from '../ai/replies.ts';

/**
 * Graph's side of the subscriptions (gate none: Graph calls it; the clientState is its secret).
 * A validation request is echoed at once as text/plain; a notification batch is checked (every
 * item must name a subscription this service made and carry its clientState), answered 202, and
 * handed after answering to the mailbox object of the user each subscription belongs to.
 * Refused batches count against the caller's address (shared/throttle.ts): past the limit it
 * gets 429 with Retry-After until the lockout ends. The lockout check runs beside the
 * subscription lookup, so a valid notification waits for nothing more.
 */

const MAX_TOKEN_LENGTH = 2048;
const MAX_BATCH_BYTES = 1024 * 1024;

const Notification = z.object({
  subscriptionId: z.string().min(1).max(200),
  clientState: z.string().max(256).nullish(),
  changeType: z.string().max(100),
  resource: z.string().max(2000),
  subscriptionExpirationDateTime: z.string().max(100).optional(),
  tenantId: z.string().max(100).optional(),
  resourceData: z
    .object({ id: z.string().max(512).optional() })
    .passthrough()
    .nullish(),
});
const Batch = z.object({ value: z.array(Notification).min(1).max(1000) });

export const webhook = new Hono<MailEnv>();

function echo(token: string) {
  if (token.length > MAX_TOKEN_LENGTH || token.includes('\u0000'))
    throw new HttpError(400, 'invalid_validation_token', 'The validationToken is too long or malformed.');
  return new Response(token, { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

webhook.get('/graph/webhook', anonymous, (c) => {
  const token = c.req.query('validationToken');
  if (token === undefined)
    throw new HttpError(400, 'validation_token_required', 'Graph calls this address with a validationToken or a notification batch.');
  return echo(token);
});

webhook.post('/graph/webhook', anonymous, limitBody(MAX_BATCH_BYTES), async (c) => {
  const token = c.req.query('validationToken');
  if (token !== undefined) return echo(token);
  const body: unknown = await c.req.json().catch(() => undefined);
  const batch = Batch.safeParse(body);
  if (!batch.success) throw new HttpError(400, 'invalid_notification', 'The body is not a Graph change-notification batch.');
  const ids = [...new Set(batch.data.value.map((item) => item.subscriptionId))];
  const throttle = addressThrottle(c.env.WEBHOOK_GUARD, 'mail-webhook', clientAddress(c));
  const [locked, rows] = await Promise.all([throttle.lockedFor(), subscriptionsByIds(c.var.db, ids)]);
  if (locked !== undefined) throw tooManyRefusals(locked);
  const known = new Map(rows.map((row) => [row.id, row]));
  const refuse = async (error: HttpError): Promise<never> => {
    const lockedNow = await throttle.failed();
    throw lockedNow === undefined ? error : tooManyRefusals(lockedNow);
  };
  const byUser = new Map<number, MailboxNotification[]>();
  const receivedAt = Date.now();
  for (const item of batch.data.value) {
    const subscription = known.get(item.subscriptionId);
    if (!subscription)
      return refuse(new HttpError(403, 'unknown_subscription', `No subscription ${item.subscriptionId.slice(0, 100)} was made here.`));
    if (!item.clientState || !(await secretsEqual(await sha256Hex(item.clientState), subscription.clientStateHash))) {
      return refuse(new HttpError(403, 'client_state_mismatch', 'The clientState does not match the subscription’s.'));
    }
    const forUser = byUser.get(subscription.userId) ?? [];
    forUser.push({
      subscriptionId: item.subscriptionId,
      changeType: item.changeType,
      resource: item.resource,
      messageId: item.resourceData?.id ?? null,
      receivedAt,
      // a message in Sent Items: the owner replied (ai/replies.ts)
      ...(subscription.resource === SENT_RESOURCE ? { folder: 'sentitems' as const } : {}),
    });
    byUser.set(subscription.userId, forUser);
  }
  // Graph wants the answer within 3 seconds: each mailbox object gets its notifications after it.
  // New mail is queued for the assistant only for the accounts allowed to use it (asked only
  // when the user's notifications announce new mail: nothing else is queued).
  for (const [userId, items] of byUser) {
    const allowed = items.some(announcesNewMessage)
      ? userAssistantAllowed(c.env.DB, c.var.config.MAIL_ASSISTANT_ADMINS, userId)
      : Promise.resolve(false);
    c.executionCtx.waitUntil(
      allowed
        .then((mayUse) => mailboxStub(c.env, userId).notified(items, mayUse ? userId : undefined))
        .catch((err) =>
          console.error(
            JSON.stringify({ level: 'error', service: 'mail', event: 'notification_record_failed', user_id: userId, error: String(err) }),
          ),
        ),
    );
  }
  return c.body(null, 202);
});

function tooManyRefusals(retryAfterSeconds: number): HttpError {
  return new HttpError(429, 'too_many_refusals', 'Too many refused notifications from this address; try again later.', {
    retryAfterSeconds,
  });
}
