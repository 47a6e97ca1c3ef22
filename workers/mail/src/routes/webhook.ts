import { Hono } from 'hono';
import { z } from 'zod';
import { notifications, subscriptions } from '../../../../d1/mail/schema';
import { secretsEqual, sha256Hex } from '../../../shared/encoding';
import { HttpError } from '../../../shared/http-error';
import type { MailEnv } from '../context';
import { limitBody } from '../guards';

/**
 * Graph's side of the subscriptions (gate none: Graph calls it). A validation request is echoed
 * at once as text/plain; a notification batch is checked (every item must name a subscription
 * this service made and carry its clientState), answered 202, and recorded after answering.
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
  resourceData: z.object({ id: z.string().max(512).optional() }).passthrough().nullish(),
});
const Batch = z.object({ value: z.array(Notification).min(1).max(1000) });

export const webhook = new Hono<MailEnv>();

function echo(token: string) {
  if (token.length > MAX_TOKEN_LENGTH || token.includes('\u0000')) throw new HttpError(400, 'invalid_validation_token', 'The validationToken is too long or malformed.');
  return new Response(token, { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

webhook.get('/graph/webhook', (c) => {
  const token = c.req.query('validationToken');
  if (token === undefined) throw new HttpError(400, 'validation_token_required', 'Graph calls this address with a validationToken or a notification batch.');
  return echo(token);
});

webhook.post('/graph/webhook', limitBody(MAX_BATCH_BYTES), async (c) => {
  const token = c.req.query('validationToken');
  if (token !== undefined) return echo(token);
  const body: unknown = await c.req.json().catch(() => undefined);
  const batch = Batch.safeParse(body);
  if (!batch.success) throw new HttpError(400, 'invalid_notification', 'The body is not a Graph change-notification batch.');
  const known = new Map((await c.var.db.select().from(subscriptions).all()).map((row) => [row.id, row]));
  for (const item of batch.data.value) {
    const subscription = known.get(item.subscriptionId);
    if (!subscription) throw new HttpError(403, 'unknown_subscription', `No subscription ${item.subscriptionId.slice(0, 100)} was made here.`);
    if (!item.clientState || !(await secretsEqual(await sha256Hex(item.clientState), subscription.clientStateHash))) {
      throw new HttpError(403, 'client_state_mismatch', 'The clientState does not match the subscription’s.');
    }
  }
  const receivedAt = Date.now();
  const rows = batch.data.value.map((item) => ({
    subscriptionId: item.subscriptionId,
    changeType: item.changeType,
    resource: item.resource,
    messageId: item.resourceData?.id ?? null,
    receivedAt,
  }));
  // Graph wants the answer within 3 seconds: the recording happens after it.
  c.executionCtx.waitUntil(
    (async () => {
      for (let i = 0; i < rows.length; i += 20) await c.var.db.insert(notifications).values(rows.slice(i, i + 20)).run();
    })().catch((err) => console.error(JSON.stringify({ level: 'error', service: 'mail', event: 'notification_record_failed', error: String(err) }))),
  );
  return c.body(null, 202);
});
