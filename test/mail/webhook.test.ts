import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { subscriptions } from '#d1/mail/schema.ts';
import { sha256Hex } from '#shared/crypto.ts';
import worker from '../../workers/mail/src/index';
import { mailboxStub } from '../../workers/mail/src/context';
import {
  type StandinMailbox,
  type TestSession,
  connectedMailbox,
  control,
  directSession,
  mailbox,
  newUserId,
  pumpWebhooks,
  send,
} from './helpers';

const db = () => drizzle(env.DB);
const DAY = 86_400_000;

type StandinSubscription = { id: string; expirationDateTime: string; notificationUrl: string; resource: string; clientState: string };
type Delivery = { kind: string; subscriptionId: string | null; status: number | null; durationMs: number; error: string | null };

/** A subscription row the webhook knows (of a user of its own), with a clientState the test knows. */
async function knownSubscription(id = crypto.randomUUID(), clientState = 'state-' + crypto.randomUUID(), userId = newUserId()) {
  await db()
    .insert(subscriptions)
    .values({
      id,
      userId,
      resource: "me/mailFolders('inbox')/messages",
      changeType: 'created,updated',
      notificationUrl: 'https://mail.test/graph/webhook',
      clientStateHash: await sha256Hex(clientState),
      expiresAt: Date.now() + DAY,
      createdAt: Date.now(),
    });
  return { id, clientState, userId };
}

/** The notifications a user's mailbox object has received. */
const received = (userId: number) => mailboxStub(env, userId).notifications(1000);

const notification = (
  subscriptionId: string,
  clientState: string | undefined,
  messageId = 'AAMkAD' + crypto.randomUUID().replace(/-/g, ''),
) => ({
  subscriptionId,
  subscriptionExpirationDateTime: new Date(Date.now() + DAY).toISOString(),
  changeType: 'created',
  resource: `Users/u/Messages/${messageId}`,
  resourceData: { '@odata.type': '#Microsoft.Graph.Message', '@odata.id': `Users/u/Messages/${messageId}`, id: messageId },
  clientState,
  tenantId: 'tenant',
});

const post = (body: unknown, address?: string) =>
  send('/graph/webhook', { method: 'POST', json: body, headers: address ? { 'cf-connecting-ip': address } : {} });

describe('validation', () => {
  it('GET and POST with validationToken echo it at once as text/plain', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await send(
        '/graph/webhook?validationToken=Validation%3A%20Testing%20client%20application%20reachability%20for%20subscription%20Request-Id%3A%2025b4b2d7',
        { method },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('Validation: Testing client application reachability for subscription Request-Id: 25b4b2d7');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('a GET without a token, an oversized token or one holding NUL is 400', async () => {
    expect((await send('/graph/webhook')).status).toBe(400);
    expect((await send(`/graph/webhook?validationToken=${'x'.repeat(3000)}`)).status).toBe(400);
    expect((await send('/graph/webhook?validationToken=a%00b')).status).toBe(400);
  });
});

describe('notifications', () => {
  it('a valid batch is answered 202 and recorded after the answer', async () => {
    const { id, clientState, userId } = await knownSubscription();
    const res = await post({ value: [notification(id, clientState, 'AAMkMsg1')] });
    expect(res.status).toBe(202);
    await expect.poll(async () => (await received(userId)).map((n) => [n.subscriptionId, n.messageId])).toEqual([[id, 'AAMkMsg1']]);
  });

  it('a wrong or missing clientState is refused and nothing is recorded', async () => {
    const { id, userId } = await knownSubscription();
    const address = '198.51.100.1';
    expect((await post({ value: [notification(id, 'forged')] }, address)).status).toBe(403);
    expect((await post({ value: [notification(id, undefined)] }, address)).status).toBe(403);
    expect(await (await post({ value: [notification(id, 'forged')] }, address)).json()).toMatchObject({ error: 'client_state_mismatch' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await received(userId)).toHaveLength(0);
  });

  it('a notification for a subscription not made here is refused', async () => {
    const res = await post({ value: [notification('7f105c7d-2dc5-4530-97cd-4e7ae6534c07', 'whatever')] }, '198.51.100.2');
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'unknown_subscription' });
  });

  it('one bad item refuses the whole batch', async () => {
    const { id, clientState, userId } = await knownSubscription();
    expect((await post({ value: [notification(id, clientState), notification(id, 'forged')] }, '198.51.100.3')).status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await received(userId)).toHaveLength(0);
  });

  it('malformed bodies are 400, oversized ones 413', async () => {
    expect(
      (await send('/graph/webhook', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"value":' })).status,
    ).toBe(400);
    expect((await post({ value: [] })).status).toBe(400);
    expect((await post({ nothing: true })).status).toBe(400);
    expect((await post({ value: 'x'.repeat(1024 * 1024 + 10) })).status).toBe(413);
  });

  it('a burst of notifications is answered 202 each and every one recorded', async () => {
    const { id, clientState, userId } = await knownSubscription();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => post({ value: [notification(id, clientState, `AAMkBurst${i}`)] })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(202));
    const big = await post({ value: Array.from({ length: 60 }, (_, i) => notification(id, clientState, `AAMkBatch${i}`)) });
    expect(big.status).toBe(202);
    await expect.poll(async () => (await received(userId)).length, { timeout: 5_000 }).toBe(100);
  });

  it('a batch naming more subscriptions than D1 binds in one statement is looked up in parts', async () => {
    const userId = newUserId();
    const known = await Promise.all(Array.from({ length: 95 }, () => knownSubscription(undefined, undefined, userId)));
    const res = await post({ value: known.map((k, i) => notification(k.id, k.clientState, `AAMkMany${i}`)) });
    expect(res.status).toBe(202);
    await expect.poll(async () => (await received(userId)).length, { timeout: 5_000 }).toBe(95);
    const unknown = await post({ value: Array.from({ length: 150 }, () => notification(crypto.randomUUID(), 'x')) }, '198.51.100.4');
    expect(unknown.status).toBe(403);
  });

  it('each notification of a batch reaches the mailbox of its subscription’s user, and only that one', async () => {
    const first = await knownSubscription();
    const second = await knownSubscription();
    const bystander = await knownSubscription();
    const res = await post({
      value: [
        notification(first.id, first.clientState, 'AAMkFirst'),
        notification(second.id, second.clientState, 'AAMkSecond'),
        notification(first.id, first.clientState, 'AAMkFirst2'),
      ],
    });
    expect(res.status).toBe(202);
    await expect.poll(async () => (await received(first.userId)).map((n) => n.messageId)).toEqual(['AAMkFirst', 'AAMkFirst2']);
    await expect.poll(async () => (await received(second.userId)).map((n) => n.messageId)).toEqual(['AAMkSecond']);
    expect(await received(bystander.userId)).toEqual([]);
  });
});

describe('throttling refused notifications', () => {
  it('an address past the limit of refused notifications gets 429 with Retry-After; others and the handshake are unaffected', async () => {
    const { id, clientState, userId } = await knownSubscription();
    const attacker = '203.0.113.9';
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await post({ value: [notification(i % 2 ? id : crypto.randomUUID(), 'guess-' + i)] }, attacker)).status);
    // The tenth refusal locks the address (shared/throttle.ts: 10 within 15 minutes).
    expect(statuses).toEqual([...Array(9).fill(403), 429]);
    const locked = await post({ value: [notification(id, 'another-guess')] }, attacker);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(await locked.json()).toMatchObject({ error: 'too_many_refusals' });
    // While locked, the address gets no answer about its guesses: a right one is refused too.
    expect((await post({ value: [notification(id, clientState, 'AAMkLocked')] }, attacker)).status).toBe(429);
    // Another address (Graph's) keeps getting its valid notifications accepted at once.
    const started = Date.now();
    const valid = await post({ value: [notification(id, clientState, 'AAMkValid')] }, '192.0.2.10');
    expect(valid.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect.poll(async () => (await received(userId)).map((n) => n.messageId)).toEqual(['AAMkValid']);
    // The validation handshake is never throttled.
    const handshake = await send('/graph/webhook?validationToken=still-here', {
      method: 'POST',
      headers: { 'cf-connecting-ip': attacker },
    });
    expect(handshake.status).toBe(200);
    expect(await handshake.text()).toBe('still-here');
  });

  it('valid notifications do not count against an address', async () => {
    const { id, clientState } = await knownSubscription();
    const address = '203.0.113.20';
    for (let i = 0; i < 12; i++) expect((await post({ value: [notification(id, clientState)] }, address)).status).toBe(202);
    expect((await post({ value: [notification(id, 'forged')] }, address)).status).toBe(403);
  });
});

/** The inbox subscription of a mailbox's (the other watches Sent Items). */
const inboxOf = (list: StandinSubscription[]) => list.find((s) => s.resource === "me/mailFolders('inbox')/messages");

describe('subscriptions with the stand-in', () => {
  let box: StandinMailbox;
  let session: TestSession;

  beforeEach(async () => {
    ({ mailbox: box, session } = await connectedMailbox('webhook'));
  }, 30_000);

  it('connecting creates the inbox and Sent Items subscriptions after the validation handshake', async () => {
    const live = await control<{ value: StandinSubscription[] }>(box, 'GET', '/subscriptions');
    expect(live.value.map((s) => s.resource).sort()).toEqual(["me/mailFolders('inbox')/messages", "me/mailFolders('sentitems')/messages"]);
    const subscription = inboxOf(live.value);
    expect(subscription!.notificationUrl).toBe('https://mail.test/graph/webhook');
    const rows = await db().select().from(subscriptions).where(eq(subscriptions.userId, session.userId)).all();
    expect(rows.map((r) => r.id).sort()).toEqual(live.value.map((s) => s.id).sort());
    expect(rows.find((r) => r.id === subscription!.id)!.clientStateHash).toBe(await sha256Hex(subscription!.clientState));
    const deliveries = await control<{ value: Delivery[] }>(box, 'GET', '/deliveries');
    expect(deliveries.value.find((d) => d.kind === 'validation')).toMatchObject({ status: 200 });
  });

  it('new mail is notified with the clientState, answered 202 in time and recorded', async () => {
    await control(box, 'DELETE', '/deliveries');
    const pump = pumpWebhooks(box);
    const delivered = await control<{ value: { id: string; immutableId: string }[] }>(box, 'POST', '/deliver', {
      count: 3,
      subject: 'Nominations closing',
    });
    await control(box, 'GET', '/deliveries?count=3&wait=10000');
    await pump.stop();
    const deliveries = await control<{ value: Delivery[] }>(box, 'GET', '/deliveries');
    const notified = deliveries.value.filter((d) => d.kind === 'notification');
    expect(notified.length).toBeGreaterThanOrEqual(1);
    expect(notified.every((d) => d.status === 202 && d.durationMs < 3_000)).toBe(true);
    const ids = delivered.value.flatMap((m) => [m.id, m.immutableId]);
    await expect
      .poll(async () => (await received(session.userId)).filter((n) => n.messageId && ids.includes(n.messageId)).length, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(3);
  });

  it('the cron renews a subscription nearing expiry (controlled clock), and leaves a fresh one alone', async () => {
    const before = inboxOf((await control<{ value: StandinSubscription[] }>(box, 'GET', '/subscriptions')).value);
    const expiresAt = Date.parse(before!.expirationDateTime);
    const runCron = async (at: number) => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: new Date(at), cron: '*/30 * * * *' }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    // An hour after connecting: nothing due.
    await runCron(Date.now() + 3_600_000);
    expect(inboxOf((await control<{ value: StandinSubscription[] }>(box, 'GET', '/subscriptions')).value)!.expirationDateTime).toBe(
      before!.expirationDateTime,
    );
    // Half a day before expiry: renewed to scheduled time + 3 days.
    const at = expiresAt - DAY / 2;
    await runCron(at);
    const after = inboxOf((await control<{ value: StandinSubscription[] }>(box, 'GET', '/subscriptions')).value);
    expect(after!.id).toBe(before!.id);
    expect(Date.parse(after!.expirationDateTime)).toBeGreaterThan(expiresAt);
    expect(Math.abs(Date.parse(after!.expirationDateTime) - (at + 3 * DAY))).toBeLessThan(60_000);
    const row = (await db().select().from(subscriptions).where(eq(subscriptions.userId, session.userId)).all()).find(
      (r) => r.id === before!.id,
    )!;
    expect(row.renewedAt).toBe(at);
    expect(Math.abs(row.expiresAt - (at + 3 * DAY))).toBeLessThan(60_000);
  });

  it('the cron re-creates a subscription Graph no longer knows', async () => {
    const before = inboxOf((await control<{ value: StandinSubscription[] }>(box, 'GET', '/subscriptions')).value);
    await fetch(`${env.GRAPH_BASE_URL}/subscriptions/${before!.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await mailbox(session).accessToken()}` },
    });
    const pump = pumpWebhooks(box);
    try {
      const ctx = createExecutionContext();
      await worker.scheduled(
        createScheduledController({ scheduledTime: new Date(Date.parse(before!.expirationDateTime) - 3_600_000), cron: '*/30 * * * *' }),
        env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
    } finally {
      await pump.stop();
    }
    const live = (await control<{ value: StandinSubscription[] }>(box, 'GET', '/subscriptions')).value;
    expect(live).toHaveLength(2);
    expect(inboxOf(live)!.id).not.toBe(before!.id);
    expect((await db().select().from(subscriptions).where(eq(subscriptions.userId, session.userId)).all()).map((r) => r.id).sort()).toEqual(
      live.map((s) => s.id).sort(),
    );
  });
});

describe('the assistant on new mail', () => {
  it('new mail of an account not allowed to use the assistant is recorded, not queued for the model', async () => {
    const { mailbox: own, session: owner } = await connectedMailbox('webhook-outsider');
    await new Promise((resolve) => setTimeout(resolve, 5));
    // the account now signs in as an address that is neither an admin nor listed in ai_users
    await directSession('outsider@elsewhere.test', { userId: owner.userId });
    const stub = mailbox(owner);
    const pump = pumpWebhooks(own);
    try {
      await control(own, 'POST', '/deliver', {
        subject: 'Not for the model',
        body: 'Hello',
        from: { name: 'Someone', address: 'someone@else.test' },
      });
      await expect.poll(async () => (await stub.notifications()).length, { timeout: 15_000, interval: 200 }).toBeGreaterThan(0);
    } finally {
      await pump.stop();
    }
    expect(await stub.queueState()).toMatchObject({ queued: 0, done: 0, failed: 0 });
  });
});
