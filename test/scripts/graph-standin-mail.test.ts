import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailbox, graphClient, signIn } from '../../scripts/graph-standin/client';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';

let standin: GraphStandin;
beforeAll(async () => {
  standin = await startGraphStandin();
});
afterAll(() => standin.close());

/** A fresh seeded mailbox and a Graph client signed in to it: tests never share state. */
async function mailbox(headers: Record<string, string> = {}) {
  const box = await createMailbox(standin.url);
  const tokens = await signIn(standin.url, { loginHint: box.loginHint });
  return { box, tokens, graph: graphClient(standin.graphBaseUrl, tokens.access_token, headers) };
}

type Message = {
  id: string;
  subject: string;
  conversationId: string;
  isRead: boolean;
  isDraft: boolean;
  parentFolderId: string;
  receivedDateTime: string;
  hasAttachments: boolean;
  from: { emailAddress: { address: string } } | null;
  toRecipients: { emailAddress: { address: string } }[];
};
type Folder = {
  id: string;
  displayName: string;
  parentFolderId: string;
  unreadItemCount: number;
  totalItemCount: number;
  childFolderCount: number;
};
type Page<T> = { value: T[]; '@odata.nextLink'?: string; '@odata.count'?: number };

describe('Graph stand-in: user and folders', () => {
  it('answers /me for the signed-in mailbox', async () => {
    const { box, graph } = await mailbox();
    const me = await graph('/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: box.user.id,
      mail: box.user.mail,
      userPrincipalName: box.user.userPrincipalName,
      displayName: box.user.displayName,
    });
    expect(me.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lists top-level folders ten at a time with counts that add up to the messages', async () => {
    const { graph } = await mailbox();
    const first = await graph<Page<Folder>>('/me/mailFolders');
    expect(first.body.value).toHaveLength(10);
    expect(first.body['@odata.nextLink']).toContain('$skip=10');
    const second = await graph<Page<Folder>>(first.body['@odata.nextLink']!);
    const folders = [...first.body.value, ...second.body.value];
    expect(second.body['@odata.nextLink']).toBeUndefined();
    expect(folders.map((f) => f.displayName)).toEqual(
      expect.arrayContaining(['Inbox', 'Sent Items', 'Drafts', 'Deleted Items', 'Archive', 'Junk Email', 'Media', 'Bookings', 'Invoices']),
    );
    expect(folders.map((f) => f.displayName)).not.toContain('Old Import');
    const inbox = folders.find((f) => f.displayName === 'Inbox')!;
    expect(inbox.childFolderCount).toBe(3);
    expect(inbox.unreadItemCount).toBeGreaterThan(0);
    const inboxMessages = await graph<Page<Message>>('/me/mailFolders/inbox/messages?$top=1000&$select=isRead');
    expect(inboxMessages.body.value).toHaveLength(inbox.totalItemCount);
    expect(inboxMessages.body.value.filter((m) => !m.isRead)).toHaveLength(inbox.unreadItemCount);
    const hidden = await graph<Page<Folder>>('/me/mailFolders?includeHiddenFolders=true&$top=50');
    expect(hidden.body.value.map((f) => f.displayName)).toContain('Old Import');
  });

  it("accepts well-known names in any case, and the mailFolders('x') form", async () => {
    const { graph } = await mailbox();
    const byName = await graph<Folder>('/me/mailFolders/SentItems');
    const byCall = await graph<Folder>("/me/mailFolders('sentitems')");
    expect(byName.status).toBe(200);
    expect(byName.body.displayName).toBe('Sent Items');
    expect(byCall.body.id).toBe(byName.body.id);
    const byId = await graph<Folder>(`/me/mailFolders/${encodeURIComponent(byName.body.id)}`);
    expect(byId.body.displayName).toBe('Sent Items');
  });

  it('lists child folders and creates folders, refusing a duplicate name', async () => {
    const { graph } = await mailbox();
    const children = await graph<Page<Folder>>('/me/mailFolders/inbox/childFolders');
    expect(children.body.value.map((f) => f.displayName)).toEqual(['Owners', 'Stewards', 'Trainers']);
    const created = await graph<Folder>('/me/mailFolders', { method: 'POST', body: { displayName: 'Sponsors' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ displayName: 'Sponsors', totalItemCount: 0, unreadItemCount: 0 });
    const again = await graph('/me/mailFolders', { method: 'POST', body: { displayName: 'sponsors' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ErrorFolderExists');
    const child = await graph<Folder>('/me/mailFolders/inbox/childFolders', { method: 'POST', body: { displayName: 'Jockeys' } });
    expect(child.status).toBe(201);
    const inbox = await graph<Folder>('/me/mailFolders/inbox');
    expect(child.body.parentFolderId).toBe(inbox.body.id);
    expect(inbox.body.childFolderCount).toBe(4);
  });

  it('refuses bad folder input and unknown folders', async () => {
    const { graph } = await mailbox();
    expect((await graph('/me/mailFolders', { method: 'POST', body: { displayName: '' } })).status).toBe(400);
    expect((await graph('/me/mailFolders', { method: 'POST', body: { displayName: 'X', colour: 'red' } })).body.error.code).toBe(
      'RequestBodyRead',
    );
    const missing = await graph('/me/mailFolders/nosuchfolder/messages');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('ErrorItemNotFound');
    expect((await graph('/me/mailFolders?$top=0')).status).toBe(400);
    expect((await graph('/me/mailFolders?$select=nonsense')).body.error.code).toBe('RequestBroker--ParseUri');
  });
});

describe('Graph stand-in: listing messages', () => {
  it('pages with $top, $skip and nextLink, newest first, without gaps or repeats', async () => {
    const { graph } = await mailbox();
    const seen: Message[] = [];
    let next: string | undefined = '/me/mailFolders/inbox/messages?$top=25&$select=subject,receivedDateTime&$count=true';
    let count = 0;
    while (next) {
      const page: Awaited<ReturnType<typeof graph<Page<Message>>>> = await graph<Page<Message>>(next);
      expect(page.status).toBe(200);
      count = page.body['@odata.count'] ?? count;
      seen.push(...page.body.value);
      next = page.body['@odata.nextLink'];
      if (next) expect(next).toMatch(/\$select=subject,receivedDateTime/);
    }
    expect(seen.length).toBe(count);
    expect(new Set(seen.map((m) => m.id)).size).toBe(seen.length);
    const times = seen.map((m) => Date.parse(m.receivedDateTime));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(Object.keys(seen[0]!).sort()).toEqual(['@odata.etag', 'id', 'receivedDateTime', 'subject']);
  });

  it('defaults to ten messages with every Graph field', async () => {
    const { graph } = await mailbox();
    const page = await graph<Page<Record<string, unknown>>>('/me/messages');
    expect(page.body.value).toHaveLength(10);
    for (const field of [
      'id',
      'conversationId',
      'subject',
      'bodyPreview',
      'body',
      'from',
      'sender',
      'toRecipients',
      'ccRecipients',
      'bccRecipients',
      'replyTo',
      'receivedDateTime',
      'sentDateTime',
      'isRead',
      'isDraft',
      'hasAttachments',
      'importance',
      'parentFolderId',
      'internetMessageId',
      'webLink',
    ]) {
      expect(page.body.value[0]).toHaveProperty(field);
    }
  });

  it('filters by conversation, read state, drafts and date', async () => {
    const { graph } = await mailbox();
    const unread = await graph<Page<Message>>('/me/mailFolders/inbox/messages?$filter=isRead eq false&$top=1000');
    expect(unread.body.value.length).toBeGreaterThan(0);
    expect(unread.body.value.every((m) => !m.isRead)).toBe(true);
    const drafts = await graph<Page<Message>>('/me/messages?$filter=isDraft eq true&$top=1000');
    expect(drafts.body.value.length).toBeGreaterThan(0);
    expect(drafts.body.value.every((m) => m.isDraft)).toBe(true);
    const since = new Date(Date.now() - 7 * 86_400_000).toISOString().replace(/\.\d+Z/, 'Z');
    const recent = await graph<Page<Message>>(`/me/messages?$filter=receivedDateTime ge ${since}&$top=1000`);
    expect(recent.body.value.every((m) => m.receivedDateTime >= since)).toBe(true);
    // A thread spans the inbox (or a user folder), Sent Items and sometimes Drafts.
    const all = await graph<Page<Message>>('/me/messages?$top=1000&$select=conversationId,parentFolderId');
    const byConversation = new Map<string, Set<string>>();
    for (const m of all.body.value)
      byConversation.set(m.conversationId, (byConversation.get(m.conversationId) ?? new Set()).add(m.parentFolderId));
    const [conversationId] = [...byConversation].find(([, folders]) => folders.size >= 2)!;
    const thread = await graph<Page<Message>>(`/me/messages?$filter=conversationId eq '${conversationId}'`);
    expect(thread.status).toBe(200);
    expect(thread.body.value.length).toBeGreaterThanOrEqual(2);
    expect(thread.body.value.every((m) => m.conversationId === conversationId)).toBe(true);
  });

  it("refuses $orderby on a property the $filter doesn't lead with, as Graph does", async () => {
    const { graph } = await mailbox();
    const refused = await graph("/me/messages?$filter=conversationId eq 'x'&$orderby=receivedDateTime desc");
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('InefficientFilter');
    const allowed = await graph<Page<Message>>(
      '/me/messages?$filter=receivedDateTime ge 2000-01-01T00:00:00Z and isRead eq false&$orderby=receivedDateTime asc&$top=5',
    );
    expect(allowed.status).toBe(200);
    const times = allowed.body.value.map((m) => m.receivedDateTime);
    expect([...times].sort()).toEqual(times);
  });

  it('searches subject, body and sender, paging by $skiptoken', async () => {
    const { graph } = await mailbox();
    const first = await graph<Page<Message>>('/me/messages?$search="stewards"&$top=3&$select=subject,bodyPreview,from');
    expect(first.status).toBe(200);
    expect(first.body.value).toHaveLength(3);
    expect(first.body['@odata.nextLink']).toMatch(/\$skiptoken=/);
    expect(first.body['@odata.nextLink']).not.toMatch(/\$skip=/);
    const second = await graph<Page<Message>>(first.body['@odata.nextLink']!);
    expect(second.body.value.map((m) => m.id)).not.toContain(first.body.value[0]!.id);
    const from = await graph<Page<Message>>('/me/messages?$search="from:paul.renner"&$top=50');
    expect(from.body.value.length).toBeGreaterThan(0);
    expect(from.body.value.every((m) => m.from!.emailAddress.address === 'paul.renner@racingintegrity.example')).toBe(true);
    const none = await graph<Page<Message>>('/me/messages?$search="zzqqxx"');
    expect(none.body.value).toEqual([]);
  });

  it('refuses $search together with $orderby, $skip or $filter, and a forged $skiptoken', async () => {
    const { graph } = await mailbox();
    for (const extra of ['$orderby=subject', '$skip=5', '$filter=isRead eq true']) {
      const res = await graph(`/me/messages?$search="race"&${extra}`);
      expect(res.status).toBe(400);
    }
    expect((await graph('/me/messages?$search="race"&$skiptoken=bogus')).status).toBe(400);
  });

  it('refuses malformed query options with 400, never 500', async () => {
    const { graph } = await mailbox();
    for (const query of [
      '$top=abc',
      '$top=1001',
      '$skip=-1',
      '$select=subject,nosuch',
      '$filter=subject eq',
      '$filter=nosuch eq 1',
      "$filter=contains(subject,'x')",
      '$orderby=subject sideways',
      '$count=maybe',
      '$expand=nosuch',
    ]) {
      const res = await graph(`/me/messages?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBeTruthy();
    }
  });
});

describe('Graph stand-in: reading a message', () => {
  it('gets one message with $select, and its attachments (a real PDF) with $expand', async () => {
    const { graph, tokens } = await mailbox();
    const withPdf = await graph<Page<Message>>('/me/messages?$search="hasattachments:true stewards"&$top=1');
    const id = withPdf.body.value[0]!.id;
    const one = await graph(`/me/messages/${id}?$select=subject,hasAttachments`);
    expect(Object.keys(one.body).sort()).toEqual(['@odata.context', '@odata.etag', 'hasAttachments', 'id', 'subject']);
    const expanded = await graph(`/me/messages/${id}?$expand=attachments`);
    const pdf = expanded.body.attachments.find((a: { contentType: string }) => a.contentType === 'application/pdf');
    expect(pdf).toMatchObject({ '@odata.type': '#microsoft.graph.fileAttachment', isInline: false });
    const bytes = Buffer.from(pdf.contentBytes, 'base64');
    expect(bytes.length).toBe(pdf.size);
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    expect(bytes.toString('latin1')).toMatch(/startxref\n\d+\n%%EOF\n$/);
    const startxref = Number(/startxref\n(\d+)/.exec(bytes.toString('latin1'))![1]);
    expect(bytes.subarray(startxref, startxref + 4).toString('latin1')).toBe('xref');
    const list = await graph(`/me/messages/${id}/attachments`);
    expect(list.body.value.map((a: { id: string }) => a.id)).toContain(pdf.id);
    const single = await graph(`/me/messages/${id}/attachments/${pdf.id}`);
    expect(single.body.name).toBe(pdf.name);
    const raw = await fetch(`${standin.graphBaseUrl}/me/messages/${id}/attachments/${pdf.id}/$value`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(raw.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await raw.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('gives the RFC 822 MIME form with the attachments', async () => {
    const { graph } = await mailbox();
    const withPdf = await graph<Page<Message>>('/me/messages?$search="hasattachments:true"&$top=1&$select=subject');
    const message = withPdf.body.value[0]!;
    const mime = await graph<string>(`/me/messages/${message.id}/$value`);
    expect(mime.status).toBe(200);
    expect(mime.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(mime.body).toMatch(/^From: /);
    expect(mime.body).toContain('MIME-Version: 1.0');
    expect(mime.body).toMatch(/Content-Type: multipart\/mixed;\r\n\tboundary="[^"]+"/);
    expect(mime.body).toMatch(/Content-Disposition: attachment; filename="/);
    expect(mime.body).toContain(
      `Subject: ${message.subject.replace(/[^\x20-\x7e]/g, '') === message.subject ? message.subject : '=?utf-8?B?'}`,
    );
  });

  it('encodes non-ASCII names and subjects in MIME headers (RFC 2047)', async () => {
    const { graph } = await mailbox();
    const fromRenee = (await graph<Page<Message>>('/me/messages?$search="from:renee@tracktalkradio.example"&$top=1')).body.value[0]!;
    const mime = await graph<string>(`/me/messages/${fromRenee.id}/$value`);
    const from = /^From: (.*)$/m.exec(mime.body)![1]!;
    expect(from).toBe(`=?utf-8?B?${Buffer.from('Renée Laurent').toString('base64')}?= <renee@tracktalkradio.example>`);
    expect(mime.body).not.toMatch(/[^\x00-\x7f]/);
  });

  it('converts bodies to text on request', async () => {
    const { graph } = await mailbox({ prefer: 'outlook.body-content-type="text"' });
    const page = await graph<Page<{ body: { contentType: string; content: string } }>>('/me/messages?$top=1&$select=body');
    expect(page.body.value[0]!.body.contentType).toBe('text');
    expect(page.body.value[0]!.body.content).not.toMatch(/<p>/);
    expect(page.headers.get('preference-applied')).toContain('outlook.body-content-type="text"');
  });

  it('answers 404 ErrorItemNotFound for an unknown message', async () => {
    const { graph } = await mailbox();
    const res = await graph('/me/messages/AAMkAGnosuchmessage');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'ErrorItemNotFound' });
  });
});

describe('Graph stand-in: changing messages', () => {
  it('marks read; the folder count follows', async () => {
    const { graph } = await mailbox();
    const before = await graph<Folder>('/me/mailFolders/inbox');
    const unread = await graph<Page<Message>>('/me/mailFolders/inbox/messages?$filter=isRead eq false&$top=1');
    const patched = await graph<Message>(`/me/messages/${unread.body.value[0]!.id}`, { method: 'PATCH', body: { isRead: true } });
    expect(patched.status).toBe(200);
    expect(patched.body.isRead).toBe(true);
    const after = await graph<Folder>('/me/mailFolders/inbox');
    expect(after.body.unreadItemCount).toBe(before.body.unreadItemCount - 1);
  });

  it('refuses to rewrite a received message, read-only and unknown properties, and bad types', async () => {
    const { graph, tokens } = await mailbox();
    const received = (await graph<Page<Message>>('/me/mailFolders/inbox/messages?$top=1')).body.value[0]!;
    const cases: [unknown, string][] = [
      [{ subject: 'changed' }, 'ErrorInvalidPropertyUpdateSentMessage'],
      [{ toRecipients: [] }, 'ErrorInvalidPropertyUpdateSentMessage'],
      [{ receivedDateTime: '2020-01-01T00:00:00Z' }, 'ErrorInvalidPropertySet'],
      [{ colour: 'red' }, 'RequestBodyRead'],
      [{ isRead: 'yes' }, 'RequestBodyRead'],
      [[1, 2], 'RequestBodyRead'],
    ];
    for (const [body, code] of cases) {
      const res = await graph(`/me/messages/${received.id}`, { method: 'PATCH', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe(code);
    }
    const notJson = await fetch(`${standin.graphBaseUrl}/me/messages/${received.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    const unchanged = await graph<Message>(`/me/messages/${received.id}`);
    expect(unchanged.body.subject).toBe(received.subject);
  });

  it('moves a message: a new id, the old one gone, unless immutable ids were asked for', async () => {
    const { graph, tokens } = await mailbox();
    const message = (await graph<Page<Message>>('/me/mailFolders/inbox/messages?$top=1')).body.value[0]!;
    const moved = await graph<Message>(`/me/messages/${message.id}/move`, { method: 'POST', body: { destinationId: 'archive' } });
    expect(moved.status).toBe(201);
    expect(moved.body.id).not.toBe(message.id);
    expect(moved.body.parentFolderId).toBe((await graph<Folder>('/me/mailFolders/archive')).body.id);
    expect((await graph(`/me/messages/${message.id}`)).status).toBe(404);
    expect((await graph(`/me/messages/${moved.body.id}`)).status).toBe(200);

    const immutable = graphClient(standin.graphBaseUrl, tokens.access_token, { prefer: 'IdType="ImmutableId"' });
    const stable = (await immutable<Page<Message>>('/me/mailFolders/inbox/messages?$top=1')).body.value[0]!;
    expect(stable.id).toMatch(/^AAkALg/);
    const movedStable = await immutable<Message>(`/me/messages/${stable.id}/move`, { method: 'POST', body: { destinationId: 'archive' } });
    expect(movedStable.headers.get('preference-applied')).toBe('IdType="ImmutableId"');
    expect(movedStable.body.id).toBe(stable.id);
    expect((await immutable(`/me/messages/${stable.id}`)).status).toBe(200);
  });

  it('refuses a move without a destination or to an unknown folder', async () => {
    const { graph } = await mailbox();
    const message = (await graph<Page<Message>>('/me/mailFolders/inbox/messages?$top=1')).body.value[0]!;
    expect((await graph(`/me/messages/${message.id}/move`, { method: 'POST', body: {} })).status).toBe(400);
    expect((await graph(`/me/messages/${message.id}/move`, { method: 'POST', body: { destinationId: 'nowhere' } })).status).toBe(404);
    expect((await graph(`/me/messages/${message.id}`)).status).toBe(200);
  });

  it('deletes to Deleted Items, then for good', async () => {
    const { graph } = await mailbox({ prefer: 'IdType="ImmutableId"' });
    const message = (await graph<Page<Message>>('/me/mailFolders/inbox/messages?$top=1')).body.value[0]!;
    expect((await graph(`/me/messages/${message.id}`, { method: 'DELETE' })).status).toBe(204);
    const deleted = await graph<Message>(`/me/messages/${message.id}`);
    expect(deleted.body.parentFolderId).toBe((await graph<Folder>('/me/mailFolders/deleteditems')).body.id);
    expect((await graph(`/me/messages/${message.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await graph(`/me/messages/${message.id}`)).status).toBe(404);
  });

  it('creates a reply draft quoting the original, edits it and sends it to Sent Items', async () => {
    const { graph } = await mailbox({ prefer: 'IdType="ImmutableId"' });
    const original = (
      await graph<Page<Message & { body: { content: string } }>>('/me/mailFolders/inbox/messages?$filter=isDraft eq false&$top=1')
    ).body.value[0]!;
    const draft = await graph<Message & { body: { content: string } }>(`/me/messages/${original.id}/createReply`, {
      method: 'POST',
      body: { comment: 'Thanks, will do.' },
    });
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({ isDraft: true, conversationId: original.conversationId, subject: `RE: ${original.subject}` });
    expect(draft.body.toRecipients.map((r) => r.emailAddress.address)).toEqual([original.from!.emailAddress.address]);
    expect(draft.body.body.content).toContain('Thanks, will do.');
    expect(draft.body.body.content).toContain('divRplyFwdMsg');
    const drafts = await graph<Folder>('/me/mailFolders/drafts');
    expect(draft.body.parentFolderId).toBe(drafts.body.id);

    const unique = await graph<{ uniqueBody: { content: string } }>(`/me/messages/${draft.body.id}?$select=uniqueBody`);
    expect(unique.body.uniqueBody.content).toContain('Thanks, will do.');
    expect(unique.body.uniqueBody.content).not.toContain('divRplyFwdMsg');
    expect(draft.body).not.toHaveProperty('uniqueBody');

    const edited = await graph(`/me/messages/${draft.body.id}`, {
      method: 'PATCH',
      body: {
        body: { contentType: 'HTML', content: '<p>Edited reply</p>' },
        ccRecipients: [{ emailAddress: { address: 'aisha.khan@southerncross-racing.example', name: 'Aisha Khan' } }],
      },
    });
    expect(edited.status).toBe(200);
    expect((await graph(`/me/messages/${draft.body.id}/send`, { method: 'POST' })).status).toBe(202);
    const sent = await graph<Message & { ccRecipients: { emailAddress: { address: string } }[]; sentDateTime: string }>(
      `/me/messages/${draft.body.id}`,
    );
    expect(sent.body).toMatchObject({ isDraft: false, parentFolderId: (await graph<Folder>('/me/mailFolders/sentitems')).body.id });
    expect(sent.body.ccRecipients[0]!.emailAddress.address).toBe('aisha.khan@southerncross-racing.example');
    expect((await graph(`/me/messages/${draft.body.id}/send`, { method: 'POST' })).status).toBe(400);
  });

  it('creates a draft, attaches a file to it and removes it again; received mail takes no attachments', async () => {
    const { graph } = await mailbox();
    const draft = await graph<Message>('/me/messages', {
      method: 'POST',
      body: {
        subject: 'Colours for Saturday',
        toRecipients: [{ emailAddress: { address: 'kate@harringtonsyndicate.example' } }],
        body: { contentType: 'Text', content: 'Attached.' },
      },
    });
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({ isDraft: true, subject: 'Colours for Saturday', hasAttachments: false });
    const file = {
      '@odata.type': '#microsoft.graph.fileAttachment',
      name: 'colours.txt',
      contentType: 'text/plain',
      contentBytes: Buffer.from('Green and gold').toString('base64'),
    };
    const added = await graph(`/me/messages/${draft.body.id}/attachments`, { method: 'POST', body: file });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: 'colours.txt', size: 14 });
    expect((await graph<Message>(`/me/messages/${draft.body.id}`)).body.hasAttachments).toBe(true);
    const mime = await graph<string>(`/me/messages/${draft.body.id}/$value`);
    expect(mime.body).toContain('filename="colours.txt"');
    expect((await graph(`/me/messages/${draft.body.id}/attachments`, { method: 'POST', body: { name: 'x' } })).status).toBe(400);
    expect((await graph(`/me/messages/${draft.body.id}/attachments/${added.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await graph<Message>(`/me/messages/${draft.body.id}`)).body.hasAttachments).toBe(false);
    const received = (await graph<Page<Message>>('/me/mailFolders/inbox/messages?$top=1')).body.value[0]!;
    expect((await graph(`/me/messages/${received.id}/attachments`, { method: 'POST', body: file })).status).toBe(400);
  });

  it('reply-all keeps everyone but the owner', async () => {
    const { graph, box } = await mailbox();
    const withCc = (await graph<Page<Message & { ccRecipients: unknown[] }>>('/me/mailFolders/inbox/messages?$top=1000')).body.value.find(
      (m) => m.ccRecipients.length > 0,
    )!;
    const draft = await graph<Message & { ccRecipients: { emailAddress: { address: string } }[] }>(
      `/me/messages/${withCc.id}/createReplyAll`,
      { method: 'POST' },
    );
    expect(draft.status).toBe(201);
    const everyone = [...draft.body.toRecipients, ...draft.body.ccRecipients].map((r) => r.emailAddress.address);
    expect(everyone).not.toContain(box.user.mail);
    expect(draft.body.ccRecipients.length).toBeGreaterThan(0);
  });

  it('sends new mail with CC and BCC; mail to oneself arrives in the Inbox', async () => {
    const { graph, box } = await mailbox();
    const sentBefore = (await graph<Folder>('/me/mailFolders/sentitems')).body.totalItemCount;
    const inboxBefore = (await graph<Folder>('/me/mailFolders/inbox')).body.totalItemCount;
    const res = await graph('/me/sendMail', {
      method: 'POST',
      body: {
        message: {
          subject: 'Acceptances for Saturday',
          body: { contentType: 'Text', content: 'See the list.' },
          toRecipients: [{ emailAddress: { address: 'tom@bradshawracing.example' } }],
          ccRecipients: [{ emailAddress: { address: box.user.mail } }],
          bccRecipients: [{ emailAddress: { address: 'marcus.webb@southerncross-racing.example' } }],
        },
        saveToSentItems: true,
      },
    });
    expect(res.status).toBe(202);
    expect((await graph<Folder>('/me/mailFolders/sentitems')).body.totalItemCount).toBe(sentBefore + 1);
    expect((await graph<Folder>('/me/mailFolders/inbox')).body.totalItemCount).toBe(inboxBefore + 1);
    const found = await graph<Page<Message & { bccRecipients: unknown[] }>>('/me/mailFolders/sentitems/messages?$top=1');
    expect(found.body.value[0]).toMatchObject({ subject: 'Acceptances for Saturday', isDraft: false });
    expect(found.body.value[0]!.bccRecipients).toHaveLength(1);
  });

  it('refuses mail without valid recipients and keeps nothing of it', async () => {
    const { graph } = await mailbox();
    const sentBefore = (await graph<Folder>('/me/mailFolders/sentitems')).body.totalItemCount;
    const draftsBefore = (await graph<Folder>('/me/mailFolders/drafts')).body.totalItemCount;
    const cases = [
      {},
      { message: { subject: 'x', toRecipients: [] } },
      { message: { subject: 'x', toRecipients: [{ emailAddress: { address: 'not-an-address' } }] } },
      { message: { subject: 'x', toRecipients: 'tom@example.com' } },
      { message: { subject: 'x', toRecipients: [{ emailAddress: { address: 'a@b.example' } }] }, saveToSentItems: 'perhaps' },
    ];
    for (const body of cases) {
      const res = await graph('/me/sendMail', { method: 'POST', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await graph<Folder>('/me/mailFolders/sentitems')).body.totalItemCount).toBe(sentBefore);
    expect((await graph<Folder>('/me/mailFolders/drafts')).body.totalItemCount).toBe(draftsBefore);
  });
});

describe('Graph stand-in: people', () => {
  it('finds correspondents by the start of a name or address', async () => {
    const { graph, box } = await mailbox();
    const res = await graph<Page<{ displayName: string; scoredEmailAddresses: { address: string }[] }>>('/me/people?$search="mar"&$top=10');
    expect(res.status).toBe(200);
    const names = res.body.value.map((p) => p.displayName);
    expect(names).toEqual(expect.arrayContaining(['Maree Kellett', 'Marcus Webb']));
    expect(res.body.value.flatMap((p) => p.scoredEmailAddresses.map((a) => a.address))).not.toContain(box.user.mail);
    const top = await graph<Page<unknown>>('/me/people?$top=3');
    expect(top.body.value).toHaveLength(3);
  });
});

describe('Graph stand-in: security', () => {
  it('refuses requests without a valid, unexpired bearer token', async () => {
    const missing = await fetch(`${standin.graphBaseUrl}/me/messages`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('InvalidAuthenticationToken');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const forged = await fetch(`${standin.graphBaseUrl}/me/messages`, { headers: { authorization: 'Bearer eyJ.forged.token' } });
    expect(forged.status).toBe(401);
    const basic = await fetch(`${standin.graphBaseUrl}/me`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
  });

  it('refuses every Graph route without a token, before looking at the path or body', async () => {
    const routes: [string, string][] = [
      ['GET', '/me'],
      ['GET', '/me/mailFolders'],
      ['POST', '/me/mailFolders'],
      ['GET', '/me/mailFolders/inbox'],
      ['GET', '/me/mailFolders/inbox/childFolders'],
      ['GET', '/me/mailFolders/inbox/messages'],
      ['GET', '/me/messages'],
      ['POST', '/me/messages'],
      ['GET', '/me/messages/x'],
      ['PATCH', '/me/messages/x'],
      ['DELETE', '/me/messages/x'],
      ['GET', '/me/messages/x/$value'],
      ['GET', '/me/messages/x/attachments'],
      ['POST', '/me/messages/x/move'],
      ['POST', '/me/messages/x/createReply'],
      ['POST', '/me/messages/x/send'],
      ['POST', '/me/sendMail'],
      ['GET', '/me/people'],
      ['GET', '/subscriptions'],
      ['POST', '/subscriptions'],
      ['PATCH', '/subscriptions/x'],
      ['DELETE', '/subscriptions/x'],
      ['GET', '/nosuch'],
    ];
    for (const [method, path] of routes) {
      const res = await fetch(`${standin.graphBaseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('answers unknown segments with 400 and unsupported methods with 405', async () => {
    const { graph } = await mailbox();
    expect((await graph('/me/calendar')).status).toBe(400);
    expect((await graph('/nosuch')).status).toBe(400);
    expect((await graph('/me', { method: 'DELETE' })).status).toBe(405);
    expect((await graph('/me/sendMail')).status).toBe(405);
    const message = (await graph<Page<Message>>('/me/messages?$top=1')).body.value[0]!;
    expect((await graph(`/me/messages/${message.id}/explode`, { method: 'POST' })).status).toBe(400);
    expect((await graph(`/me/messages/${message.id}/send`)).status).toBe(405);
  });

  it("keeps each mailbox's token to its own mailbox", async () => {
    const a = await mailbox();
    const b = await mailbox();
    const aMessage = (await a.graph<Page<Message>>('/me/messages?$top=1')).body.value[0]!;
    expect((await b.graph(`/me/messages/${aMessage.id}`)).status).toBe(404);
    expect((await b.graph(`/users/${a.box.user.id}/messages`)).status).toBe(404);
    expect((await a.graph(`/users/${a.box.user.mail}/messages?$top=1`)).status).toBe(200);
  });

  it('enforces the scopes the token was granted', async () => {
    const box = await createMailbox(standin.url);
    const tokens = await signIn(standin.url, { loginHint: box.loginHint, scope: 'offline_access Mail.Read' });
    const graph = graphClient(standin.graphBaseUrl, tokens.access_token);
    expect((await graph('/me/messages?$top=1')).status).toBe(200);
    const message = (await graph<Page<Message>>('/me/messages?$top=1')).body.value[0]!;
    const denied = await graph(`/me/messages/${message.id}`, { method: 'PATCH', body: { isRead: true } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('ErrorAccessDenied');
    expect((await graph('/me/sendMail', { method: 'POST', body: { message: {} } })).status).toBe(403);
    expect((await graph('/me')).status).toBe(403);
  });

  it('refuses a body over 4 MB, chunked or not', async () => {
    const { tokens } = await mailbox();
    const big = 'x'.repeat(4 * 1024 * 1024 + 10);
    const declared = await fetch(`${standin.graphBaseUrl}/me/sendMail`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(declared.status).toBe(413);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(1024 * 1024)));
        controller.close();
      },
    });
    const chunked = await fetch(`${standin.graphBaseUrl}/me/sendMail`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });
});
