import { env } from 'cloudflare:workers';
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '#d1/mail/schema.ts';
import { aiSentReplies, subscriptions } from '#d1/mail/schema.ts';
import worker from '../../workers/mail/src/index';
import { type Pump, type StandinMailbox, type TestSession, connectedMailbox, control, mailbox, pumpWebhooks, send } from './helpers';

// Replies tracked wherever they are sent: the Sent Items subscription, needs-reply cleared by a
// message sent straight into Sent Items ("elsewhere": Outlook, a phone), awaiting-reply until an
// answer, and the follow-up draft after the person's number of days (the cron, clock controlled).

type Summary = { message_id: string; needs_reply: boolean };
type Zero = { needs_reply: Summary[]; awaiting_reply: Summary[] };
type Delivered = { value: { immutableId: string; conversationId: string }[] };

let box: StandinMailbox;
let session: TestSession;
let pump: Pump;
const db = () => drizzle(env.DB, { schema });
const DAY = 86_400_000;

const get = async <T>(path: string) => (await (await send(path, { cookie: session.cookie })).json()) as T;
const zero = () => get<Zero>('/api/inbox-zero?limit=200');
const ids = (list: Summary[]) => list.map((s) => s.message_id);

async function runCron(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(at), cron: '*/30 * * * *' }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** A message from a correspondent, summarised by the assistant and marked as needing a reply. */
async function received(subject: string) {
  const { value } = await control<Delivered>(box, 'POST', '/deliver', {
    subject,
    body: 'Could you confirm the marquee booking for Saturday?',
    from: { name: 'Olive Owner', address: 'olive@stable.test' },
  });
  const id = value[0]!.immutableId;
  await expect
    .poll(async () => (await send(`/api/docdb/email_summaries/${encodeURIComponent(id)}`, { cookie: session.cookie })).status, {
      timeout: 20_000,
    })
    .toBe(200);
  const put = await send(`/api/docdb/email_summaries/${encodeURIComponent(id)}`, {
    method: 'PUT',
    cookie: session.cookie,
    csrf: session.csrf,
    json: { needs_reply: true },
  });
  expect(put.status).toBe(200);
  return { id, conversationId: value[0]!.conversationId };
}

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('replies'));
  pump = pumpWebhooks(box);
}, 60_000);
afterAll(async () => {
  await pump.stop();
});

describe('replies tracked wherever they are sent', () => {
  it('the mailbox’s Sent Items are subscribed beside the Inbox', async () => {
    const live = await control<{ value: { resource: string; changeType: string }[] }>(box, 'GET', '/subscriptions');
    expect(live.value.find((s) => s.resource === "me/mailFolders('sentitems')/messages")).toMatchObject({ changeType: 'created' });
  });

  it('a mailbox connected before Sent Items were watched gets that subscription from the next cron run', async () => {
    type Live = { value: { id: string; resource: string }[] };
    const SENT = "me/mailFolders('sentitems')/messages";
    const sent = (await control<Live>(box, 'GET', '/subscriptions')).value.find((s) => s.resource === SENT)!;
    // as it was before: no Sent Items subscription, at Graph or here
    const gone = await fetch(`${env.GRAPH_BASE_URL}/subscriptions/${sent.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await mailbox(session).accessToken()}` },
    });
    expect(gone.ok).toBe(true);
    await db().delete(subscriptions).where(eq(subscriptions.id, sent.id)).run();
    await runCron(Date.now());
    const live = (await control<Live>(box, 'GET', '/subscriptions')).value.filter((s) => s.resource === SENT);
    expect(live).toHaveLength(1);
    expect(live[0]!.id).not.toBe(sent.id);
    const rows = await db().select().from(subscriptions).where(eq(subscriptions.userId, session.userId)).all();
    expect(rows.map((r) => r.resource).sort()).toEqual(["me/mailFolders('inbox')/messages", SENT].sort());
    expect(rows.map((r) => r.id)).toContain(live[0]!.id);
  });

  it('a reply sent from elsewhere clears needs-reply and puts it on the awaiting list; an answer takes it off', async () => {
    const { id } = await received('Marquee booking for Saturday');
    expect(ids((await zero()).needs_reply)).toContain(id);
    const sent = await control<{ immutableId: string }>(box, 'POST', '/send-elsewhere', { inReplyTo: id, body: 'Yes — booked.' });
    await expect.poll(async () => ids((await zero()).awaiting_reply), { timeout: 20_000 }).toContain(sent.immutableId);
    expect(ids((await zero()).needs_reply)).not.toContain(id);
    // the category changing recomputes needs-reply: the reply sent elsewhere still counts
    const made = await send('/api/admin/categories', {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      json: { name: 'Owners', rule: 'marquee booking', reply_mode: 'manual' },
    });
    expect(made.status).toBe(201);
    const set = await send(`/api/email/${encodeURIComponent(id)}/category`, {
      method: 'PUT',
      cookie: session.cookie,
      csrf: session.csrf,
      json: { category: 'Owners' },
    });
    expect(set.status).toBe(200);
    expect((await get<Summary>(`/api/docdb/email_summaries/${encodeURIComponent(id)}`)).needs_reply).toBe(false);
    // the correspondent answers in the conversation
    await control(box, 'POST', '/deliver', {
      inReplyTo: id,
      body: 'Thank you!',
      from: { name: 'Olive Owner', address: 'olive@stable.test' },
    });
    await expect.poll(async () => ids((await zero()).awaiting_reply), { timeout: 20_000 }).not.toContain(sent.immutableId);
    const row = await db()
      .select()
      .from(aiSentReplies)
      .where(and(eq(aiSentReplies.userId, session.userId), eq(aiSentReplies.messageId, sent.immutableId)))
      .get();
    expect(row).toMatchObject({ status: 'answered' });
  });

  it('a reply sent through the client (/api/reply) is tracked the same way', async () => {
    const { id } = await received('Photos from the Cup');
    const res = await send(`/api/reply/${encodeURIComponent(id)}`, {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      json: { body: 'Attached.' },
    });
    expect(res.status).toBe(202);
    await expect.poll(async () => ids((await zero()).needs_reply), { timeout: 20_000 }).not.toContain(id);
    expect((await zero()).awaiting_reply.length).toBeGreaterThan(0);
  });

  it('after the person’s number of days without an answer a follow-up draft is made, once', async () => {
    const { id } = await received('Stable visit next week');
    const sent = await control<{ immutableId: string }>(box, 'POST', '/send-elsewhere', { inReplyTo: id, body: 'Tuesday suits.' });
    const row = () =>
      db()
        .select()
        .from(aiSentReplies)
        .where(and(eq(aiSentReplies.userId, session.userId), eq(aiSentReplies.messageId, sent.immutableId)))
        .get();
    await expect.poll(async () => (await row())?.status, { timeout: 20_000 }).toBe('awaiting');
    const saved = await send('/settings/follow-up', {
      method: 'POST',
      cookie: session.cookie,
      form: { csrf_token: session.csrf, days: '2' },
    });
    expect(saved.status).toBe(303);
    expect(await (await send('/settings', { cookie: session.cookie })).text()).toContain('value="2"');
    // a day later: not yet
    await runCron(Date.now() + DAY);
    expect((await row())!.followUpAt).toBeNull();
    // past two days: a reply-all draft in the conversation, never sent
    await runCron(Date.now() + 2 * DAY + 3_600_000);
    const draftId = (await row())!.followUpDraftId;
    expect(draftId).toBeTruthy();
    const draft = await get<{ isDraft: boolean; folder: string; subject: string; conversationId: string; to: { address: string }[] }>(
      `/api/email/${encodeURIComponent(draftId!)}`,
    );
    expect(draft).toMatchObject({ isDraft: true, folder: 'drafts', subject: 'RE: Stable visit next week' });
    expect(draft.to.map((r) => r.address)).toEqual(['olive@stable.test']);
    // the next run leaves it alone
    await runCron(Date.now() + 3 * DAY);
    expect((await row())!.followUpDraftId).toBe(draftId);
  });

  it('the follow-up setting refuses bad input and a missing anti-forgery token', async () => {
    for (const days of ['0', '61', 'abc', '', '2\u0000']) {
      const res = await send('/settings/follow-up', { method: 'POST', cookie: session.cookie, form: { csrf_token: session.csrf, days } });
      expect(res.status, days).toBe(400);
      expect(await res.text()).toContain('A whole number of days');
    }
    expect((await send('/settings/follow-up', { method: 'POST', cookie: session.cookie, form: { days: '5' } })).status).toBe(403);
    expect((await send('/settings/follow-up', { method: 'POST', form: { days: '5' } })).status).toBe(302);
  });
});
