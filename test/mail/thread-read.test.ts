import { beforeAll, describe, expect, it } from 'vitest';
import { type StandinMailbox, type TestSession, connectedMailbox, control, send } from './helpers';

// Opening a message in /outlook reads its thread. The list already knows the conversation id, so
// the reading pane sends it along and the conversation is read beside the message, not after it:
// one Graph round trip less before the message is on screen.

let box: StandinMailbox;
let session: TestSession;
interface Delivered {
  immutableId: string;
  conversationId: string;
}
const deliver = async (input: Record<string, unknown>) => (await control<{ value: Delivered[] }>(box, 'POST', '/deliver', input)).value[0]!;
const thread = (id: string, query = '') => send(`/api/thread/${encodeURIComponent(id)}${query}`, { cookie: session.cookie });
const timed = async (id: string, query = '') => {
  const started = Date.now();
  const res = await thread(id, query);
  const body = (await res.json()) as { conversationId: string; messages: { id: string; subject: string }[] };
  return { status: res.status, body, ms: Date.now() - started };
};

const DELAY_MS = 1_000;

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('thread-read'));
});

describe('GET /api/thread/{message_id}?conversation=', () => {
  it('reads the conversation beside the message: one Graph delay instead of two, the same thread', async () => {
    const first = await deliver({ subject: 'Float to Flemington', body: 'Can the float leave at 5am?' });
    const second = await deliver({ inReplyTo: first.immutableId, body: 'Or 6am, if the stable prefers.' });
    expect(second.conversationId).toBe(first.conversationId);

    const plain = await timed(second.immutableId);
    expect(plain.status).toBe(200);
    expect(plain.body.messages.map((m) => m.id)).toEqual([first.immutableId, second.immutableId]);

    // every read of the mailbox's messages waits DELAY_MS at Graph
    const fault = await control<{ id: string }>(box, 'POST', '/faults', { delayMs: DELAY_MS, method: 'GET', pathPrefix: '/me/messages' });
    try {
      const after = await timed(second.immutableId);
      const beside = await timed(second.immutableId, `?conversation=${encodeURIComponent(second.conversationId)}`);
      expect(after.ms).toBeGreaterThanOrEqual(2 * DELAY_MS);
      expect(beside.ms).toBeGreaterThanOrEqual(DELAY_MS);
      expect(beside.ms).toBeLessThan(2 * DELAY_MS - 150);
      expect(beside.body).toEqual(plain.body);
    } finally {
      await control(box, 'DELETE', `/faults/${fault.id}`);
    }
  });

  it('a conversation id that is not the message’s still answers the message’s own thread', async () => {
    const one = await deliver({ subject: 'Barrier draw', body: 'The draw is on Thursday.' });
    const other = await deliver({ subject: 'Jockey bookings', body: 'J. Smith rides in race 4.' });
    expect(other.conversationId).not.toBe(one.conversationId);
    const res = await timed(one.immutableId, `?conversation=${encodeURIComponent(other.conversationId)}`);
    expect(res.status).toBe(200);
    expect(res.body.conversationId).toBe(one.conversationId);
    expect(res.body.messages.map((m) => m.id)).toEqual([one.immutableId]);
  });

  it('refuses a conversation id that is not one (NUL, quotes, too long) with 400 naming the field', async () => {
    const one = await deliver({ subject: 'Scratchings', body: 'Two scratchings in race 2.' });
    for (const bad of ['x\u0000y', "a' or 1 eq 1 or 'b", 'x'.repeat(1025), '']) {
      const res = await thread(one.immutableId, `?conversation=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('query.conversation');
    }
  });
});
