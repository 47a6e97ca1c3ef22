import { beforeAll, describe, expect, it } from 'vitest';
import { type StandinMailbox, type TestSession, connectedMailbox, control, directSession, send } from './helpers';

// What the mailbox's own answers (the list, a message, a thread) add for the mail client: the
// assistant's stored category, summary and reply state of each message, who wrote a reply draft,
// and the conversation's stored rolling summary — for an account allowed the assistant only.

type Assistant = { category: string; summary: string; bullets: string[]; needsReply: boolean; awaitingReply: boolean } | null;
type Item = { id: string; conversationId: string; assistant: Assistant; draftOrigin: string | null };

let box: StandinMailbox;
let session: TestSession;

const get = async <T>(path: string, who = session) => {
  const res = await send(path, { cookie: who.cookie });
  expect(res.headers.get('cache-control')).toBe('no-store');
  return { status: res.status, body: (await res.json()) as T };
};
const post = async <T>(path: string, json?: unknown) => {
  const res = await send(path, { method: 'POST', cookie: session.cookie, csrf: session.csrf, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json()) as T };
};
const list = async (folder: string, who = session) =>
  (await get<{ items: Item[]; assistant: boolean }>(`/api/emails/${folder}?top=25`, who)).body;
const deliver = async (input: Record<string, unknown>) =>
  (await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', input)).value[0]!.immutableId;

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('client-fields'));
  expect((await post('/api/admin/categories', { name: 'Stewards', rule: 'stewards inquiry protest', reply_mode: 'manual' })).status).toBe(
    201,
  );
});

describe('the assistant’s fields on the mailbox’s answers', () => {
  let id: string;

  it('are null for a message the assistant has not read, and filled once it is summarised', async () => {
    id = await deliver({
      subject: 'Stewards inquiry into race 4',
      body: 'The stewards open an inquiry into the protest after race 4. Can the jockey attend?',
      from: { name: 'Chief Steward', address: 'chief@stewards.test' },
    });
    const before = await list('inbox');
    expect(before.assistant).toBe(true);
    expect(before.items.find((m) => m.id === id)).toMatchObject({ assistant: null, draftOrigin: null });

    expect((await post('/api/save-summary-direct', { message_id: id })).status).toBe(200);
    const after = (await list('inbox')).items.find((m) => m.id === id)!;
    expect(after.assistant).toMatchObject({ category: 'Stewards', needsReply: true, awaitingReply: false });
    expect(after.assistant!.summary).toContain('stewards open an inquiry');
    expect(Array.isArray(after.assistant!.bullets)).toBe(true);
    // The other messages of the page stay without.
    expect((await list('inbox')).items.filter((m) => m.assistant !== null).map((m) => m.id)).toEqual([id]);

    const message = await get<Item & { subject: string }>(`/api/email/${encodeURIComponent(id)}`);
    expect(message.status).toBe(200);
    expect(message.body).toMatchObject({
      subject: 'Stewards inquiry into race 4',
      assistant: { category: 'Stewards', needsReply: true },
      draftOrigin: null,
    });
  });

  it('carry the conversation’s stored rolling summary on the thread, once one is made', async () => {
    const before = await get<{ conversationId: string; assistant: boolean; threadSummary: unknown; messages: Item[] }>(
      `/api/thread/${encodeURIComponent(id)}`,
    );
    expect(before.body).toMatchObject({ assistant: true, threadSummary: null });
    expect(before.body.messages.find((m) => m.id === id)!.assistant).toMatchObject({ category: 'Stewards' });

    const made = await post<{ summary: string; message_count: number }>(
      `/api/threads/${encodeURIComponent(before.body.conversationId)}/update-summary`,
    );
    expect(made.status).toBe(200);
    const after = await get<{ threadSummary: { summary: string; bullets: string[]; message_count: number; updated_at: string } }>(
      `/api/thread/${encodeURIComponent(id)}`,
    );
    expect(after.body.threadSummary).toMatchObject({ summary: made.body.summary, message_count: made.body.message_count });
    expect(Date.parse(after.body.threadSummary.updated_at)).not.toBeNaN();
  });

  it('name who wrote a reply draft of the assistant (a language model in these tests)', async () => {
    const draft = await post<{ draft_id: string; generated_by: string }>('/api/draft/generate', { email_id: id });
    expect(draft.status).toBe(200);
    expect(draft.body.generated_by).toMatch(/^AI reply \(/);
    const drafts = await list('drafts');
    expect(drafts.items.find((m) => m.id === draft.body.draft_id)).toMatchObject({ draftOrigin: 'model draft' });
    // A draft the assistant did not write has no origin.
    expect(drafts.items.filter((m) => m.id !== draft.body.draft_id).every((m) => m.draftOrigin === null)).toBe(true);
    const opened = await get<Item>(`/api/email/${encodeURIComponent(draft.body.draft_id)}`);
    expect(opened.body.draftOrigin).toBe('model draft');
  });

  it('say a sent message awaits a reply until one comes in on its conversation', async () => {
    const sent = (await list('sentitems')).items[0]!;
    expect((await post('/api/save-summary-direct', { message_id: sent.id })).status).toBe(200);
    expect((await list('sentitems')).items.find((m) => m.id === sent.id)!.assistant).toMatchObject({
      awaitingReply: true,
      needsReply: false,
    });

    const answer = await deliver({
      inReplyTo: sent.id,
      body: 'Thanks, that works for us.',
      from: { name: 'Trainer', address: 'trainer@stables.test' },
    });
    expect((await post('/api/save-summary-direct', { message_id: answer })).status).toBe(200);
    expect((await list('sentitems')).items.find((m) => m.id === sent.id)!.assistant).toMatchObject({ awaitingReply: false });
  });

  it('are empty for an account not allowed the assistant', async () => {
    // The same user, now signed in under an address outside the assistant's admins and list.
    const outsider = await directSession(`outsider-${Date.now()}@elsewhere.test`, { userId: session.userId });
    const page = await list('inbox', outsider);
    expect(page.assistant).toBe(false);
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((m) => m.assistant === null && m.draftOrigin === null)).toBe(true);
    const thread = await get<{ assistant: boolean; threadSummary: unknown; messages: Item[] }>(
      `/api/thread/${encodeURIComponent(id)}`,
      outsider,
    );
    expect(thread.body).toMatchObject({ assistant: false, threadSummary: null });
    expect(thread.body.messages.every((m) => m.assistant === null)).toBe(true);
  });
});
