import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StandinMailbox, type TestSession, connectedMailbox, control, directSession, pumpWebhooks, send } from './helpers';

/** The command line's own routes (workers/mail/src/routes/tools.ts) against this file's stand-in mailbox. */

type Attachment = { id: string; name: string; contentType: string; size: number; isInline: boolean };
type Delivered = { value: { id: string; immutableId: string }[] };

let box: StandinMailbox;
let session: TestSession;

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('tools'));
}, 30_000);

afterEach(async () => {
  await control(box, 'DELETE', '/faults');
});

const get = <T>(path: string) =>
  send(path, { cookie: session.cookie }).then(async (res) => ({ status: res.status, body: (await res.json()) as T, res }));
const post = <T>(path: string, json?: unknown) =>
  send(path, { method: 'POST', cookie: session.cookie, csrf: session.csrf, ...(json === undefined ? {} : { json }) }).then(async (res) => ({
    status: res.status,
    body: (await res.json()) as T,
  }));

const b64 = (text: string) => btoa(text);

/** A new inbox message of this mailbox with the given attachments; its id as the Worker sees it. */
async function deliverWith(
  attachments: { name: string; contentType: string; contentBytes: string }[],
  subject = 'With attachments',
): Promise<string> {
  const { value } = await control<Delivered>(box, 'POST', '/deliver', { subject, attachments });
  return value[0]!.immutableId;
}

describe('happy path', () => {
  it('GET /api/me names the signed-in user and the connected mailbox', async () => {
    const { status, body } = await get<{ user: { id: number; email: string }; mailbox: { mail: string; displayName: string } }>('/api/me');
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ id: session.userId, email: session.email });
    expect(body.mailbox.mail).toBe(box.mail);
    expect(body.mailbox.displayName).toBe('Test tools');
  });

  it('POST /api/folders creates a folder, at the top level and inside another', async () => {
    const top = await post<{ id: string; name: string; parentId: string }>('/api/folders', { name: 'Nominations 2026' });
    expect(top.status).toBe(201);
    expect(top.body.name).toBe('Nominations 2026');
    const child = await post<{ id: string; name: string; parentId: string }>('/api/folders', {
      name: 'Scratchings',
      parent: 'Nominations 2026',
    });
    expect(child.status).toBe(201);
    expect(child.body.parentId).toBe(top.body.id);
    const { body } = await get<{ folders: { id: string; name: string }[] }>('/api/folders');
    expect(body.folders.map((f) => f.id)).toEqual(expect.arrayContaining([top.body.id, child.body.id]));
  });

  it('POST /api/drafts creates a new draft in Drafts with its recipients and text', async () => {
    const { status, body } = await post<{ id: string; to: string[] }>('/api/drafts', {
      to: 'trainer@example.com, owner@example.com',
      cc: ['vet@example.com'],
      subject: 'Float booking',
      body: 'Line one\n<b>two</b>',
    });
    expect(status).toBe(201);
    expect(body.to).toEqual(['trainer@example.com', 'owner@example.com']);
    const draft = await get<{ isDraft: boolean; folder: string; subject: string; cc: { address: string }[]; body: { content: string } }>(
      `/api/email/${body.id}`,
    );
    expect(draft.body).toMatchObject({ isDraft: true, folder: 'drafts', subject: 'Float booking' });
    expect(draft.body.cc.map((a) => a.address)).toEqual(['vet@example.com']);
    expect(draft.body.body.content).toContain('Line one<br>&#60;b&#62;two&#60;/b&#62;');
  });

  it('attachments: listed, downloaded byte for byte, and read as text (plain, HTML, PDF)', async () => {
    const id = await deliverWith([
      { name: 'fields.csv', contentType: 'text/csv', contentBytes: b64('horse,barrier\nFast One,4\n') },
      {
        name: 'notes.html',
        contentType: 'text/html',
        contentBytes: b64('<html><style>p{color:red}</style><p>Track &amp; weather</p><p>Good 4</p><script>x()</script></html>'),
      },
      { name: 'photo.png', contentType: 'image/png', contentBytes: b64('\x89PNG\r\n\x1a\n') },
    ]);
    const list = await get<{ message_id: string; attachments: Attachment[] }>(`/api/email/${id}/attachments`);
    expect(list.status).toBe(200);
    expect(list.body.attachments.map((a) => a.name)).toEqual(['fields.csv', 'notes.html', 'photo.png']);
    const csv = list.body.attachments[0]!;
    const download = await send(`/api/email/${id}/attachments/${csv.id}`, { cookie: session.cookie });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(download.headers.get('content-disposition')).toContain('attachment; filename="fields.csv"');
    expect(await download.text()).toBe('horse,barrier\nFast One,4\n');

    const csvText = await get<{ kind: string; text: string; truncated: boolean }>(`/api/email/${id}/attachments/${csv.id}/text`);
    expect(csvText.body).toMatchObject({ kind: 'text', text: 'horse,barrier\nFast One,4\n', truncated: false });
    const html = await get<{ kind: string; text: string }>(`/api/email/${id}/attachments/${list.body.attachments[1]!.id}/text`);
    expect(html.body).toMatchObject({ kind: 'html', text: 'Track & weather\nGood 4' });
    const png = await get<{ error: string }>(`/api/email/${id}/attachments/${list.body.attachments[2]!.id}/text`);
    expect(png.status).toBe(415);
    expect(png.body.error).toBe('unsupported_type');
  });

  it('the text of the seeded PDF attachment (the stand-in’s one-page PDF)', async () => {
    const { value } = await control<Delivered>(box, 'POST', '/deliver', { subject: 'Race card', attachment: true });
    const id = value[0]!.immutableId;
    const list = await get<{ attachments: Attachment[] }>(`/api/email/${id}/attachments`);
    const pdf = list.body.attachments.find((a) => a.contentType === 'application/pdf')!;
    const text = await get<{ kind: string; text: string }>(`/api/email/${id}/attachments/${pdf.id}/text`);
    expect(text.status).toBe(200);
    expect(text.body.kind).toBe('pdf');
    expect(text.body.text.length).toBeGreaterThan(10);
    expect(text.body.text).not.toMatch(/\bBT\b|\bTj\b|endstream/);
  });

  it('POST /api/subscriptions replaces the inbox subscription (validated through the webhook)', async () => {
    const pump = pumpWebhooks(box);
    try {
      const { status, body } = await post<{ id: string; resource: string; notificationUrl: string; expiresAt: string }>(
        '/api/subscriptions',
      );
      expect(status).toBe(201);
      expect(body.notificationUrl).toBe('https://mail.test/graph/webhook');
      expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.now());
      // One subscription of the Inbox (the new one) beside the Sent Items one.
      const live = await control<{ value: { id: string; resource: string }[] }>(box, 'GET', '/subscriptions');
      const inbox = live.value.filter((s) => !s.resource.includes('sentitems'));
      expect(inbox.map((s) => s.id)).toEqual([body.id]);
      expect(live.value.filter((s) => s.resource.includes('sentitems'))).toHaveLength(1);
    } finally {
      await pump.stop();
    }
  });
});

describe('documentation', () => {
  it('/openapi.json documents every route of the command line', async () => {
    const doc = (await (await send('/openapi.json')).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const paths = [
      '/api/me',
      '/api/folders',
      '/api/drafts',
      '/api/email/{message_id}/attachments',
      '/api/email/{message_id}/attachments/{attachment_id}',
      '/api/email/{message_id}/attachments/{attachment_id}/text',
      '/api/subscriptions',
    ];
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(paths));
    expect(doc.paths['/api/drafts']!.post!.security).toEqual([{ session: [] }]);
  });
});

describe('error cases', () => {
  it('bad input is 400 naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/folders', {}, 'json.name'],
      ['/api/folders', { name: '   ' }, 'json.name'],
      ['/api/folders', { name: 'a\u0000b' }, 'json.name'],
      ['/api/folders', { name: 'x'.repeat(256) }, 'json.name'],
      ['/api/drafts', { to: 'not an address' }, 'json.to'],
      ['/api/drafts', { subject: 's\u0000' }, 'json.subject'],
    ];
    for (const [path, body, field] of cases) {
      const res = await post<{ error: string; issues: { field: string }[] }>(path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.issues.map((i) => i.field)).toContain(field);
    }
    expect((await get(`/api/email/bad%20id/attachments`)).status).toBe(400);
    expect((await get(`/api/email/AAMkAGI2/attachments/bad%20id/text`)).status).toBe(400);
  });

  it('a folder that exists is 409; a parent that does not, 404', async () => {
    expect((await post('/api/folders', { name: 'Twice' })).status).toBe(201);
    const again = await post<{ error: string }>('/api/folders', { name: 'Twice' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('folder_exists');
    expect((await post('/api/folders', { name: 'Child', parent: 'No such parent' })).status).toBe(404);
  });

  it('an unknown message or attachment is 404', async () => {
    const { body } = await get<{ items: { id: string }[] }>('/api/emails/inbox?top=1');
    expect((await get(`/api/email/AAMkAGI2bm9uZQ==/attachments`)).status).toBe(404);
    expect((await get(`/api/email/${body.items[0]!.id}/attachments/AAMkAGI2bm9uZQ==`)).status).toBe(404);
    expect((await get(`/api/email/${body.items[0]!.id}/attachments/AAMkAGI2bm9uZQ==/text`)).status).toBe(404);
  });

  it('a document that claims to be a PDF but is not: 415, not a 500', async () => {
    const id = await deliverWith([{ name: 'broken.pdf', contentType: 'application/pdf', contentBytes: b64('not a pdf at all') }]);
    const list = await get<{ attachments: Attachment[] }>(`/api/email/${id}/attachments`);
    const res = await get<{ error: string }>(`/api/email/${id}/attachments/${list.body.attachments[0]!.id}/text`);
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('unreadable_attachment');
  });

  it('Graph failing is a clear 502 on every route', async () => {
    await control(box, 'POST', '/faults', { status: 500, pathPrefix: '/v1.0/me' });
    for (const res of [
      await get<{ error: string }>('/api/me'),
      await get<{ error: string }>('/api/email/AAMkAGI2/attachments'),
      await post<{ error: string }>('/api/folders', { name: 'During outage' }),
      await post<{ error: string }>('/api/drafts', { subject: 'During outage' }),
    ]) {
      expect(res.status).toBe(502);
      expect(res.body.error).toBe('graph_unavailable');
    }
  });

  it('a body over the limit is 413', async () => {
    const res = await send('/api/folders', {
      method: 'POST',
      cookie: session.cookie,
      csrf: session.csrf,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(5000) }),
    });
    expect(res.status).toBe(413);
  });
});

describe('security', () => {
  it('without a session: 401 unauthenticated', async () => {
    for (const path of [
      '/api/me',
      '/api/email/AAMkAGI2/attachments',
      '/api/email/AAMkAGI2/attachments/AAMkAGI3',
      '/api/email/AAMkAGI2/attachments/AAMkAGI3/text',
    ]) {
      const res = await send(path);
      expect(res.status, path).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthenticated' });
    }
    for (const path of ['/api/folders', '/api/drafts', '/api/subscriptions'])
      expect((await send(path, { method: 'POST', json: { name: 'x' } })).status, path).toBe(401);
  });

  it('without a connected mailbox: 401 mailbox_not_connected', async () => {
    const other = await directSession('nobody-tools@example.com');
    expect(await (await send('/api/me', { cookie: other.cookie })).json()).toMatchObject({ error: 'mailbox_not_connected' });
    const res = await send('/api/drafts', { method: 'POST', cookie: other.cookie, csrf: other.csrf, json: {} });
    expect(res.status).toBe(401);
  });

  it('changes need the anti-forgery token and the same origin', async () => {
    for (const path of ['/api/folders', '/api/drafts', '/api/subscriptions']) {
      const missing = await send(path, { method: 'POST', cookie: session.cookie, json: { name: 'Forged' } });
      expect(missing.status, path).toBe(403);
      const foreign = await send(path, {
        method: 'POST',
        cookie: session.cookie,
        csrf: session.csrf,
        json: { name: 'Forged' },
        headers: { origin: 'https://evil.example' },
      });
      expect(foreign.status, path).toBe(403);
    }
    const { body } = await get<{ folders: { name: string }[] }>('/api/folders');
    expect(body.folders.map((f) => f.name)).not.toContain('Forged');
  });

  it('a download is never rendered on this origin, and nothing is cached', async () => {
    const id = await deliverWith([{ name: 'page.html', contentType: 'text/html', contentBytes: b64('<script>alert(1)</script>') }]);
    const list = await get<{ attachments: Attachment[] }>(`/api/email/${id}/attachments`);
    const res = await send(`/api/email/${id}/attachments/${list.body.attachments[0]!.id}`, { cookie: session.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('active types (HTML, SVG, XHTML, XML, JavaScript) come back as sandboxed octet-stream downloads, never as themselves', async () => {
    const active = [
      { name: 'page.html', contentType: 'text/html', body: '<script>alert(document.cookie)</script>' },
      { name: 'logo.svg', contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>' },
      {
        name: 'page.xhtml',
        contentType: 'application/xhtml+xml',
        body: '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>',
      },
      {
        name: 'feed.xml',
        contentType: 'text/xml',
        body: '<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>',
      },
      { name: 'data.xml', contentType: 'application/xml', body: '<?xml version="1.0"?><a/>' },
      { name: 'run.js', contentType: 'text/javascript', body: 'alert(1)' },
      { name: 'app.js', contentType: 'application/javascript; charset=utf-8', body: 'alert(1)' },
      { name: 'odd.bin', contentType: 'Text/HTML ; charset=utf-8', body: '<script>alert(1)</script>' },
    ];
    const id = await deliverWith(active.map((a) => ({ name: a.name, contentType: a.contentType, contentBytes: b64(a.body) })));
    const list = await get<{ attachments: Attachment[] }>(`/api/email/${id}/attachments`);
    expect(list.body.attachments.map((a) => a.name)).toEqual(active.map((a) => a.name));
    for (const [i, attachment] of list.body.attachments.entries()) {
      const res = await send(`/api/email/${id}/attachments/${attachment.id}`, { cookie: session.cookie });
      expect(res.status, attachment.name).toBe(200);
      expect(res.headers.get('content-type'), attachment.name).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition'), attachment.name).toMatch(/^attachment; filename="/);
      expect(res.headers.get('content-security-policy'), attachment.name).toBe("sandbox; default-src 'none'");
      expect(res.headers.get('x-content-type-options'), attachment.name).toBe('nosniff');
      expect(new TextDecoder().decode(await res.arrayBuffer()), attachment.name).toBe(active[i]!.body);
    }
  });

  it('passive types keep their own type (PNG, PDF, plain text with a charset), under the same sandbox', async () => {
    const png = '\x89PNG\r\n\x1a\n';
    const id = await deliverWith([
      { name: 'photo.png', contentType: 'image/png', contentBytes: b64(png) },
      { name: 'notes.txt', contentType: 'text/plain', contentBytes: b64('Good 4') },
    ]);
    const { value } = await control<Delivered>(box, 'POST', '/deliver', { subject: 'Race card', attachment: true });
    const pdfMessage = value[0]!.immutableId;
    const pdf = (await get<{ attachments: Attachment[] }>(`/api/email/${pdfMessage}/attachments`)).body.attachments.find(
      (a) => a.contentType === 'application/pdf',
    )!;
    const [image, text] = (await get<{ attachments: Attachment[] }>(`/api/email/${id}/attachments`)).body.attachments;
    const expected: [string, string, string][] = [
      [`/api/email/${id}/attachments/${image!.id}`, 'image/png', 'photo.png'],
      [`/api/email/${id}/attachments/${text!.id}`, 'text/plain; charset=utf-8', 'notes.txt'],
      [`/api/email/${pdfMessage}/attachments/${pdf.id}`, 'application/pdf', pdf.name],
    ];
    for (const [path, type, name] of expected) {
      const res = await send(path, { cookie: session.cookie });
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toBe(type);
      expect(res.headers.get('content-disposition'), name).toContain(`attachment; filename="${name}"`);
      expect(res.headers.get('content-security-policy'), name).toBe("sandbox; default-src 'none'");
      expect(res.headers.get('x-content-type-options'), name).toBe('nosniff');
    }
    const image2 = await send(expected[0]![0], { cookie: session.cookie });
    expect(new Uint8Array(await image2.arrayBuffer())).toEqual(Uint8Array.from(png, (ch) => ch.charCodeAt(0)));
  });

  it('the .eml download is an attachment under the same sandbox', async () => {
    const id = await deliverWith([{ name: 'a.txt', contentType: 'text/plain', contentBytes: b64('x') }], '<script>alert(1)</script>');
    const res = await send(`/api/email-download/${id}`, { cookie: session.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('message/rfc822');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="_script_alert\(1\)_script_\.eml"/);
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
  });

  it('another user’s message is not reachable (Graph’s 404 in the caller’s own mailbox)', async () => {
    const id = await deliverWith([{ name: 'a.txt', contentType: 'text/plain', contentBytes: b64('private') }]);
    const other = await connectedMailbox('tools-other');
    const res = await send(`/api/email/${id}/attachments`, { cookie: other.session.cookie });
    expect(res.status).toBe(404);
  });
});
