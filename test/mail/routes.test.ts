import { beforeAll, describe, expect, it } from 'vitest';
import { type StandinMailbox, type TestSession, connectedMailbox, control, directSession, send } from './helpers';

type Folder = { id: string; name: string; unread: number; total: number; wellKnown: string | null };
type Summary = {
  id: string;
  conversationId: string;
  subject: string;
  isRead: boolean;
  isDraft: boolean;
  folder: string | null;
  hasAttachments: boolean;
};
type Full = Summary & {
  to: unknown[];
  cc: unknown[];
  bcc: unknown[];
  attachments: { name: string; contentType: string; size: number }[];
  body: { content: string };
};
type List = { folder: Folder; items: Summary[]; count: number | null; next: string | null; top: number; skip: number };

let box: StandinMailbox;
let session: TestSession;

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('routes'));
}, 30_000);

const get = <T>(path: string) =>
  send(path, { cookie: session.cookie }).then(async (res) => ({ status: res.status, body: (await res.json()) as T, res }));
const post = <T>(path: string, json?: unknown) =>
  send(path, { method: 'POST', cookie: session.cookie, csrf: session.csrf, ...(json === undefined ? {} : { json }) }).then(async (res) => ({
    status: res.status,
    body: (await res.json()) as T,
  }));

describe('happy path', () => {
  it('GET /api/auth-status says the caller’s mailbox is connected', async () => {
    const res = await send('/api/auth-status', { cookie: session.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ authenticated: true });
  });

  it('GET /api/folders lists folders with unread and total counts', async () => {
    const { status, body } = await get<{ folders: Folder[] }>('/api/folders');
    expect(status).toBe(200);
    const inbox = body.folders.find((f) => f.wellKnown === 'inbox')!;
    expect(inbox.total).toBeGreaterThan(20);
    expect(inbox.unread).toBeGreaterThan(0);
    expect(inbox.unread).toBeLessThanOrEqual(inbox.total);
    expect(body.folders.map((f) => f.wellKnown)).toEqual(
      expect.arrayContaining(['inbox', 'sentitems', 'drafts', 'deleteditems', 'archive']),
    );
  });

  it('GET /api/emails/inbox pages newest first with a total count, and `skip` continues the list', async () => {
    const first = await get<List>('/api/emails/inbox?top=5');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(5);
    expect(first.body.count).toBe(first.body.folder.total);
    expect(first.body.next).not.toBeNull();
    const second = await get<List>('/api/emails/inbox?top=5&skip=5');
    expect(second.body.items.map((m) => m.id)).not.toContain(first.body.items[0]!.id);
    const both = await get<List>('/api/emails/inbox?top=10');
    expect(both.body.items.map((m) => m.id)).toEqual([...first.body.items, ...second.body.items].map((m) => m.id));
  });

  it('`next` follows Graph’s nextLink to the following page', async () => {
    const first = await get<List>('/api/emails/inbox?top=3');
    const second = await get<List>(`/api/emails/inbox?top=3&next=${first.body.next}`);
    expect(second.status).toBe(200);
    const ids = new Set([...first.body.items, ...second.body.items].map((m) => m.id));
    expect(ids.size).toBe(6);
  });

  it('top=all answers every message of the folder', async () => {
    const all = await get<List>('/api/emails/sentitems?top=all');
    expect(all.status).toBe(200);
    expect(all.body.items.length).toBe(all.body.folder.total);
  });

  it('q searches the folder', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=50');
    const word = page.items[0]!.subject.split(/\s+/).find((w) => w.length > 4)!;
    const found = await get<List>(`/api/emails/inbox?q=${encodeURIComponent(word)}&top=50`);
    expect(found.status).toBe(200);
    expect(found.body.items.length).toBeGreaterThan(0);
    expect(found.body.count).toBeNull();
  });

  it('a folder may be named by display name or alias', async () => {
    const { body } = await get<{ folders: Folder[] }>('/api/folders');
    const own = body.folders.find((f) => f.wellKnown === null && f.total > 0)!;
    const byName = await get<List>(`/api/emails/${encodeURIComponent(own.name.toUpperCase())}?top=2`);
    expect(byName.status).toBe(200);
    expect(byName.body.folder.id).toBe(own.id);
    const sent = await get<List>('/api/emails/sent?top=1');
    expect(sent.body.folder.wellKnown).toBe('sentitems');
  });

  it('GET /api/email/<id> answers to, cc, bcc, body and attachments, and where the message lies', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=all');
    const withAttachment = page.items.find((m) => m.hasAttachments)!;
    const { status, body } = await get<Full>(`/api/email/${withAttachment.id}`);
    expect(status).toBe(200);
    expect(body.folder).toBe('inbox');
    expect(body.to.length).toBeGreaterThan(0);
    expect(Array.isArray(body.cc) && Array.isArray(body.bcc)).toBe(true);
    expect(body.attachments.length).toBeGreaterThan(0);
    expect(body.body.content.length).toBeGreaterThan(0);
    const { body: drafts } = await get<List>('/api/emails/drafts?top=1');
    const draft = await get<Full>(`/api/email/${drafts.items[0]!.id}`);
    expect(draft.body.folder).toBe('drafts');
    expect(draft.body.isDraft).toBe(true);
    const { body: sent } = await get<List>('/api/emails/sentitems?top=1');
    expect((await get<Full>(`/api/email/${sent.items[0]!.id}`)).body.folder).toBe('sentitems');
  });

  it('GET /api/thread/<id> answers the whole conversation across inbox and sent items, oldest first', async () => {
    const { body: counts } = await get<{ counts: Record<string, number> }>('/api/conversation-counts');
    const { body: page } = await get<List>('/api/emails/inbox?top=all');
    const threaded = page.items.find((m) => (counts.counts[m.conversationId] ?? 0) > 1)!;
    const { status, body } = await get<{ conversationId: string; messages: Full[] }>(`/api/thread/${threaded.id}`);
    expect(status).toBe(200);
    expect(body.conversationId).toBe(threaded.conversationId);
    expect(body.messages.length).toBeGreaterThan(1);
    expect(new Set(body.messages.map((m) => m.folder)).size).toBeGreaterThan(1);
    const times = body.messages.map((m) => Date.parse((m as unknown as { receivedAt: string }).receivedAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('GET /api/conversation-counts maps conversation ids to counts', async () => {
    const { status, body } = await get<{ counts: Record<string, number>; scanned: number }>('/api/conversation-counts?top=100');
    expect(status).toBe(200);
    expect(body.scanned).toBe(100);
    expect(Object.values(body.counts).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('GET /api/people?q= answers correspondents', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=1');
    const full = await get<Full & { from: { name: string; address: string } }>(`/api/email/${page.items[0]!.id}`);
    const name = full.body.from.name.split(' ')[0]!;
    const { status, body } = await get<{ people: { name: string; address: string }[] }>(
      `/api/people?q=${encodeURIComponent(name.slice(0, 3))}`,
    );
    expect(status).toBe(200);
    expect(body.people.length).toBeGreaterThan(0);
    expect(body.people[0]!.address).toContain('@');
  });

  it('GET /api/email-download/<id> answers the MIME message as an .eml download', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=all');
    const m = page.items.find((i) => i.hasAttachments)!;
    const res = await send(`/api/email-download/${m.id}`, { cookie: session.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('message/rfc822');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.eml"/);
    const mime = await res.text();
    expect(mime).toMatch(/^[\s\S]*Subject: /m);
    expect(mime).toContain('multipart/mixed');
  });

  it('POST /api/mark-read/<id> marks read, and unread with isRead false', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=50');
    const unread = page.items.find((m) => !m.isRead)!;
    const before = (await get<List>('/api/emails/inbox?top=1')).body.folder.unread;
    expect(await post(`/api/mark-read/${unread.id}`)).toEqual({ status: 200, body: { id: unread.id, isRead: true } });
    expect((await get<Full>(`/api/email/${unread.id}`)).body.isRead).toBe(true);
    expect((await get<List>('/api/emails/inbox?top=1')).body.folder.unread).toBe(before - 1);
    expect((await post(`/api/mark-read/${unread.id}`, { isRead: false })).body).toEqual({ id: unread.id, isRead: false });
  });

  it('POST /api/move/<id> moves to another folder; the immutable id stays', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=3');
    const m = page.items[2]!;
    const moved = await post<{ id: string; folder: string | null }>(`/api/move/${m.id}`, { dest_folder_id: 'junkemail' });
    expect(moved).toEqual({ status: 200, body: { id: m.id, folderId: expect.any(String), folder: 'junkemail' } });
    expect((await get<Full>(`/api/email/${m.id}`)).body.folder).toBe('junkemail');
    await post(`/api/move/${m.id}`, { dest_folder_id: 'inbox' });
  });

  it('POST /api/messages/<id>/delete moves to Deleted Items, …/archive to Archive', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=6');
    const [a, b] = [page.items[4]!, page.items[5]!];
    expect((await post<{ folder: string }>(`/api/messages/${a.id}/delete`)).body.folder).toBe('deleteditems');
    expect((await post<{ folder: string }>(`/api/messages/${b.id}/archive`)).body.folder).toBe('archive');
    expect((await get<Full>(`/api/email/${a.id}`)).body.folder).toBe('deleteditems');
    expect((await get<Full>(`/api/email/${b.id}`)).body.folder).toBe('archive');
  });

  it('POST /api/compose/send sends with To, CC and BCC; the copy lands in Sent Items', async () => {
    const subject = `Barrier trial entries ${Date.now()}`;
    const res = await post('/api/compose/send', {
      to: 'trainer@example.com',
      cc: ['owner@example.com'],
      bcc: 'stewards@example.com, media@example.com',
      subject,
      body: 'Line one\nLine <two>',
    });
    expect(res).toEqual({ status: 202, body: { sent: true, recipients: 4 } });
    const { body: sent } = await get<List>(`/api/emails/sentitems?top=5`);
    const copy = sent.items.find((m) => m.subject === subject)!;
    const full = await get<Full>(`/api/email/${copy.id}`);
    expect(full.body.cc).toEqual([{ name: expect.any(String), address: 'owner@example.com' }]);
    expect(full.body.bcc.map((a) => (a as { address: string }).address)).toEqual(['stewards@example.com', 'media@example.com']);
    expect(full.body.body.content).toContain('Line &#60;two&#62;');
  });

  it('POST /api/reply/<id> replies with the original quoted; the reply joins the thread', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=8');
    const original = page.items[7]!;
    const res = await post<{ sent: boolean }>(`/api/reply/${original.id}`, {
      body: 'Thanks, confirmed for Saturday.',
      cc: 'foreman@example.com',
    });
    expect(res.status).toBe(202);
    const thread = await get<{ messages: Full[] }>(`/api/thread/${original.id}`);
    const reply = thread.body.messages.find((m) => m.folder === 'sentitems' && m.body.content.includes('confirmed for Saturday'))!;
    expect(reply).toBeDefined();
    expect(reply.cc).toEqual(expect.arrayContaining([expect.objectContaining({ address: 'foreman@example.com' })]));
    const { body: drafts } = await get<List>('/api/emails/drafts?top=all');
    expect(drafts.items.some((d) => d.id === (res.body as { draftId?: string }).draftId)).toBe(false);
  });
});

describe('error cases', () => {
  it('unknown folder is 404, unknown message 404', async () => {
    expect((await get('/api/emails/no-such-folder')).status).toBe(404);
    expect((await get('/api/email/AAMkAGI2NGVhZTVlLWI0MzAtNDNhNy1hNzkzLTAwMDAwMDAwMDAwMA')).status).toBe(404);
    expect((await get('/api/thread/AAMkAGI2NGVhZTVlLWI0MzAtNDNhNy1hNzkzLTAwMDAwMDAwMDAwMA')).status).toBe(404);
  });

  it.each([
    ['/api/emails/inbox?top=0', 'query.top'],
    ['/api/emails/inbox?top=101', 'query.top'],
    ['/api/emails/inbox?top=many', 'query.top'],
    ['/api/emails/inbox?skip=-1', 'query.skip'],
    ['/api/emails/inbox?q=a%00b', 'query.q'],
    [`/api/emails/inbox?q=${'x'.repeat(201)}`, 'query.q'],
    ['/api/emails/inbox?q=abc&skip=5', 'query.skip'],
    ['/api/emails/inbox?next=bm90LWEtY3Vyc29y', 'query.next'],
    ['/api/people?q=a', 'query.q'],
    ['/api/people', 'query.q'],
    ['/api/conversation-counts?top=5000', 'query.top'],
    ['/api/email/bad%20id', 'param.message_id'],
  ])('GET %s is 400 naming %s', async (path, field) => {
    const { status, body } = await get<{ error: string; issues?: { field: string }[] }>(path);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(body.issues?.map((i) => i.field)).toContain(field);
  });

  it.each([
    [{ to: 'not an address', subject: 'x', body: 'y' }, 'json.to'],
    [{ subject: 'x', body: 'y' }, 'json.to'],
    [{ to: 'a@example.com', subject: 'x'.repeat(256) }, 'json.subject'],
    [{ to: 'a@example.com', body: 'nul\u0000' }, 'json.body'],
    [{ to: 'a@example.com', cc: 42 }, 'json.cc'],
  ])('POST /api/compose/send %j is 400 naming %s, nothing sent', async (json, field) => {
    const { status, body } = await post<{ issues: { field: string }[] }>('/api/compose/send', json);
    expect(status).toBe(400);
    expect(body.issues.map((i) => i.field)).toContain(field);
  });

  it('malformed JSON and a move without a destination are 400; an unknown destination 404', async () => {
    const { body: page } = await get<List>('/api/emails/inbox?top=1');
    const id = page.items[0]!.id;
    const bad = await send(`/api/move/${id}`, {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      headers: { 'content-type': 'application/json' },
      body: '{"dest_folder_id":',
    });
    expect(bad.status).toBe(400);
    expect((await post(`/api/move/${id}`, {})).status).toBe(400);
    expect((await post(`/api/move/${id}`, { dest_folder_id: 'Nowhere at all' })).status).toBe(404);
    expect((await get<Full>(`/api/email/${id}`)).body.folder).toBe('inbox');
  });

  it('bodies over the limit are 413, chunked ones included', async () => {
    const big = JSON.stringify({ to: 'a@example.com', body: 'x'.repeat(3 * 1024 * 1024) });
    const res = await send('/api/compose/send', {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(512 * 1024)));
        controller.close();
      },
    });
    const chunked = await send('/api/compose/send', {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('unknown routes are 404 JSON under /api', async () => {
    const res = await send('/api/nothing-here', { cookie: session.cookie });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('not_found');
  });
});

describe('without a connected mailbox (another user’s: this file’s own is connected)', () => {
  it.each([
    '/api/folders',
    '/api/emails/inbox',
    '/api/email/AAMkAGI2',
    '/api/conversation-counts',
    '/api/thread/AAMkAGI2',
    '/api/people?q=smith',
    '/api/email-download/AAMkAGI2',
  ])('GET %s is 401 JSON', async (path) => {
    const other = await directSession('someone@example.com');
    const res = await send(path, { cookie: other.cookie });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'mailbox_not_connected' });
  });

  it.each([
    '/api/mark-read/AAMkAGI2',
    '/api/move/AAMkAGI2',
    '/api/messages/AAMkAGI2/delete',
    '/api/messages/AAMkAGI2/archive',
    '/api/compose/send',
    '/api/reply/AAMkAGI2',
  ])('POST %s is 401 JSON', async (path) => {
    const other = await directSession('someone@example.com');
    const res = await send(path, {
      method: 'POST',
      cookie: other.cookie,
      csrf: other.csrf,
      json: { dest_folder_id: 'inbox', to: 'a@example.com', body: 'x' },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'mailbox_not_connected' });
  });

  it('/inbox and /folder/<name> send a browser to the connect page (never a crash)', async () => {
    const other = await directSession('someone@example.com');
    for (const path of ['/inbox', '/folder/archive']) {
      const res = await send(path, { cookie: other.cookie });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/connect');
    }
  });

  it('GET /api/auth-status says so', async () => {
    const other = await directSession('someone@example.com');
    expect(await (await send('/api/auth-status', { cookie: other.cookie })).json()).toEqual({ authenticated: false });
    expect(await (await send('/api/auth-status', { cookie: session.cookie })).json()).toEqual({ authenticated: true });
  });
});

describe('server-rendered folder views', () => {
  it('/inbox and /folder/<name> list the messages', async () => {
    const inbox = await send('/inbox', { cookie: session.cookie });
    expect(inbox.status).toBe(200);
    const html = await inbox.text();
    expect(html).toContain('<h1>Inbox');
    expect(html).toMatch(/unread of \d+/);
    const sent = await send('/folder/sentitems', { cookie: session.cookie });
    expect(sent.status).toBe(200);
    expect(await send('/folder/nowhere', { cookie: session.cookie }).then((r) => r.status)).toBe(404);
  });
});

void control;
