import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { beforeAll, describe, expect, it } from 'vitest';
import { mailboxes, subscriptions } from '#d1/mail/schema.ts';
import worker from '../../workers/mail/src/index';
import { type StandinMailbox, type TestSession, connectedMailbox, control, directSession, mailbox, pumpWebhooks, send } from './helpers';

/** One mailbox per signed-in user: each user reaches their own, and only their own. */

const db = () => drizzle(env.DB);
type Delivered = { value: { id: string; immutableId: string; subject: string }[] };
type List = { items: { id: string; subject: string }[] };
type StandinSubscription = { id: string; expirationDateTime: string; resource: string };

let alice: { mailbox: StandinMailbox; session: TestSession };
let bob: { mailbox: StandinMailbox; session: TestSession };

beforeAll(async () => {
  alice = await connectedMailbox('alice');
  bob = await connectedMailbox('bob');
}, 60_000);

const get = async <T>(session: TestSession, path: string) => {
  const res = await send(path, { cookie: session.cookie });
  return { status: res.status, body: (await res.json()) as T };
};
const liveSubscriptions = async (box: StandinMailbox) =>
  (await control<{ value: StandinSubscription[] }>(box, 'GET', '/subscriptions')).value;
/** The inbox subscription of a mailbox's (the other watches Sent Items). */
const inboxOf = (list: StandinSubscription[]) => list.find((s) => s.resource === "me/mailFolders('inbox')/messages");
const subscriptionRows = (userId: number) => db().select().from(subscriptions).where(eq(subscriptions.userId, userId)).all();

async function runCron(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(at), cron: '*/30 * * * *' }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe('happy path', () => {
  it('two users, two mailboxes: each reads only their own messages', async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const [forAlice] = (await control<Delivered>(alice.mailbox, 'POST', '/deliver', { subject: `For Alice ${tag}` })).value;
    const [forBob] = (await control<Delivered>(bob.mailbox, 'POST', '/deliver', { subject: `For Bob ${tag}` })).value;

    const aliceSearch = await get<List>(alice.session, `/api/emails/inbox?q=${tag}`);
    const bobSearch = await get<List>(bob.session, `/api/emails/inbox?q=${tag}`);
    expect(aliceSearch.status).toBe(200);
    expect(aliceSearch.body.items.map((m) => m.subject)).toEqual([`For Alice ${tag}`]);
    expect(bobSearch.body.items.map((m) => m.subject)).toEqual([`For Bob ${tag}`]);

    // One user's message id means nothing in the other's mailbox.
    expect((await get(alice.session, `/api/email/${forAlice!.immutableId}`)).status).toBe(200);
    expect((await get(bob.session, `/api/email/${forAlice!.immutableId}`)).status).toBe(404);
    expect((await get(alice.session, `/api/thread/${forBob!.immutableId}`)).status).toBe(404);
    const move = await send(`/api/mark-read/${forAlice!.immutableId}`, {
      method: 'POST',
      cookie: bob.session.cookie,
      csrf: bob.session.csrf,
      json: {},
    });
    expect(move.status).toBe(404);

    // Each user's connect page and auth status speak of their own mailbox.
    expect(await (await send('/connect', { cookie: alice.session.cookie })).text()).toContain(alice.mailbox.mail);
    expect(await (await send('/connect', { cookie: bob.session.cookie })).text()).not.toContain(alice.mailbox.mail);
    expect(await (await send('/api/auth-status', { cookie: bob.session.cookie })).json()).toEqual({ authenticated: true });
  });

  it('a user who has not connected a mailbox reaches nobody else’s', async () => {
    const carol = await directSession('carol@racing.test');
    expect((await get(carol, '/api/folders')).body).toMatchObject({ error: 'mailbox_not_connected' });
    expect(await (await send('/api/auth-status', { cookie: carol.cookie })).json()).toEqual({ authenticated: false });
    // Another session of Alice's (same user id) reaches Alice's mailbox.
    const again = await directSession(alice.session.email, { userId: alice.session.userId });
    expect((await get(again, '/api/folders')).status).toBe(200);
  });

  it('each connection has its own subscriptions (Inbox, Sent Items), mapped to its user', async () => {
    const ids = async (box: StandinMailbox) => (await liveSubscriptions(box)).map((s) => s.id).sort();
    expect((await subscriptionRows(alice.session.userId)).map((r) => r.id).sort()).toEqual(await ids(alice.mailbox));
    expect((await subscriptionRows(bob.session.userId)).map((r) => r.id).sort()).toEqual(await ids(bob.mailbox));
    expect(await ids(alice.mailbox)).toHaveLength(2);
    const listed = await db().select().from(mailboxes).all();
    expect(listed.find((m) => m.userId === alice.session.userId)).toMatchObject({
      mail: alice.mailbox.mail,
      notificationUrl: 'https://mail.test/graph/webhook',
    });
  });

  it('a notification reaches only its own user’s mailbox', async () => {
    const before = (await mailbox(bob.session).notifications(1000)).length;
    await control(alice.mailbox, 'DELETE', '/deliveries');
    const pump = pumpWebhooks(alice.mailbox);
    let delivered: Delivered['value'][number] | undefined;
    try {
      [delivered] = (await control<Delivered>(alice.mailbox, 'POST', '/deliver', { subject: 'Scratchings' })).value;
      // The pump keeps handing the stand-in's webhook calls over until this message's has arrived
      // (earlier deliveries of this file may still be queued ahead of it).
      await expect
        .poll(async () => (await mailbox(alice.session).notifications(1000)).map((n) => n.messageId))
        .toContain(delivered!.immutableId);
    } finally {
      await pump.stop();
    }
    // Every notification handed over was accepted.
    const statuses = pump.answers.filter((a) => a.kind === 'notification').map((a) => a.status);
    expect(statuses.length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 202)).toBe(true);
    expect((await mailbox(bob.session).notifications(1000)).length).toBe(before);
  });

  it('the cron renews the subscriptions of every connected mailbox', async () => {
    const aliceBefore = inboxOf(await liveSubscriptions(alice.mailbox));
    const bobBefore = inboxOf(await liveSubscriptions(bob.mailbox));
    const at = Math.min(Date.parse(aliceBefore!.expirationDateTime), Date.parse(bobBefore!.expirationDateTime)) - 3_600_000;
    await runCron(at);
    for (const [box, before] of [
      [alice.mailbox, aliceBefore!],
      [bob.mailbox, bobBefore!],
    ] as const) {
      const after = inboxOf(await liveSubscriptions(box));
      expect(after!.id).toBe(before.id);
      expect(Date.parse(after!.expirationDateTime)).toBeGreaterThan(Date.parse(before.expirationDateTime));
    }
    // both subscriptions of each mailbox (Inbox and Sent Items)
    expect((await subscriptionRows(alice.session.userId)).map((r) => r.renewedAt)).toEqual([at, at]);
    expect((await subscriptionRows(bob.session.userId)).map((r) => r.renewedAt)).toEqual([at, at]);
  });
});

describe('error cases', () => {
  it('a connected mailbox left without a subscription (Graph refused it at connect) gets one from the cron', async () => {
    const dave = await connectedMailbox('dave');
    for (const live of await liveSubscriptions(dave.mailbox))
      await fetch(`${env.GRAPH_BASE_URL}/subscriptions/${live.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await mailbox(dave.session).accessToken()}` },
      });
    await db().delete(subscriptions).where(eq(subscriptions.userId, dave.session.userId)).run();
    const pump = pumpWebhooks(dave.mailbox);
    try {
      await runCron(Date.now());
    } finally {
      await pump.stop();
    }
    const now = await liveSubscriptions(dave.mailbox);
    expect(now).toHaveLength(2);
    expect((await subscriptionRows(dave.session.userId)).map((r) => r.id).sort()).toEqual(now.map((s) => s.id).sort());
  });

  it('a mailbox whose refresh was refused is dropped by the cron; the others stay', async () => {
    const erin = await connectedMailbox('erin');
    await control(erin.mailbox, 'POST', '/tokens/revoke');
    // The next mail request finds the refresh refused and disconnects that mailbox only.
    expect((await get(erin.session, '/api/folders')).status).toBe(401);
    await runCron(Date.now());
    expect(await subscriptionRows(erin.session.userId)).toEqual([]);
    expect((await db().select().from(mailboxes).all()).map((m) => m.userId)).not.toContain(erin.session.userId);
    expect(await subscriptionRows(alice.session.userId)).toHaveLength(2);
    expect((await get(alice.session, '/api/folders')).status).toBe(200);
  });

  it('disconnecting ends that user’s subscription at Graph and leaves the other user’s connection', async () => {
    const frank = await connectedMailbox('frank');
    expect(await liveSubscriptions(frank.mailbox)).toHaveLength(2);
    const res = await send('/disconnect', { method: 'POST', cookie: frank.session.cookie, form: { csrf_token: frank.session.csrf } });
    expect(res.status).toBe(302);
    expect(await liveSubscriptions(frank.mailbox)).toEqual([]);
    expect(await subscriptionRows(frank.session.userId)).toEqual([]);
    expect((await mailbox(frank.session).status()).connected).toBe(false);
    expect((await mailbox(bob.session).status()).connected).toBe(true);
    expect(await liveSubscriptions(bob.mailbox)).toHaveLength(2);
  });
});
