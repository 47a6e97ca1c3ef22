import { beforeAll, describe, expect, it } from 'vitest';
import { offerOf, parseMailto, unsubscribeTargetAllowed } from '../../workers/mail/src/unsubscribe';
import { STANDIN, type StandinMailbox, type TestSession, connectedMailbox, control, send } from './helpers';

// Senders in bulk: the ranking against an independent count of the Inbox, RFC 8058 one-click
// received by a local endpoint, the mailto: draft, the link shown, hosts refused, the archive job
// throttled mid-way and resumed without doubles, bad input.

type Rank = { address: string; messages: number; unread: number; read_share: number };
type Job = {
  job_id: string;
  method: string;
  outcome: string;
  detail: string;
  status: string;
  archived: number;
  failed: number;
  resumed: number;
};
type Received = { token: string | null; method: string; contentType: string | null; body: string };

let box: StandinMailbox;
let session: TestSession;

const get = async <T>(path: string) => {
  const res = await send(path, { cookie: session.cookie });
  return { status: res.status, body: (await res.json()) as T };
};
const unsubscribe = async (sender: unknown, csrf = session.csrf) => {
  const res = await send('/api/senders/unsubscribe', { method: 'POST', cookie: session.cookie, csrf, json: { sender } });
  return { status: res.status, body: (await res.json()) as Job };
};
async function finished(jobId: string, timeout = 20_000): Promise<Job> {
  let job: Job | undefined;
  await expect
    .poll(
      async () => {
        job = (await get<Job>(`/api/senders/jobs/${jobId}`)).body;
        return job.status;
      },
      { timeout, interval: 300 },
    )
    .toBe('done');
  return job!;
}
const listEndpoint = (token: string) => `${box.control}/list-unsubscribe/${token}`;
const received = async () => (await control<{ value: Received[] }>(box, 'GET', '/list-unsubscribe')).value;
const deliver = (address: string, count: number, headers?: { name: string; value: string }[]) =>
  control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', {
    count,
    subject: `From ${address}`,
    from: { name: address, address },
    headers,
  });
const inboxFrom = async (address: string) =>
  (await get<{ items: { from: { address: string } | null }[] }>('/api/emails/inbox?top=all')).body.items.filter(
    (m) => m.from?.address === address,
  ).length;

beforeAll(async () => {
  ({ mailbox: box, session } = await connectedMailbox('senders'));
}, 60_000);

describe('the ranking', () => {
  it('ranks the Inbox’s senders by volume and by how little is read, as an independent count of the Inbox has it', async () => {
    const inbox = (await get<{ items: { from: { address: string } | null; isRead: boolean }[] }>('/api/emails/inbox?top=all')).body.items;
    const counts = new Map<string, { n: number; read: number }>();
    for (const m of inbox) {
      const a = m.from?.address.toLowerCase();
      if (!a) continue;
      const c = counts.get(a) ?? { n: 0, read: 0 };
      c.n += 1;
      if (m.isRead) c.read += 1;
      counts.set(a, c);
    }
    const { status, body } = await get<{ items: Rank[]; scanned: number }>('/api/senders?limit=200');
    expect(status).toBe(200);
    expect(body.scanned).toBe(inbox.length);
    expect(body.items.length).toBe(counts.size);
    for (const r of body.items) {
      const c = counts.get(r.address)!;
      expect([r.messages, r.messages - r.unread]).toEqual([c.n, c.read]);
    }
    const volumes = body.items.map((r) => r.messages);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    const byRead = (await get<{ items: Rank[] }>('/api/senders?sort=read&limit=200')).body.items.map((r) => r.read_share);
    expect(byRead).toEqual([...byRead].sort((a, b) => a - b));
  });

  it('the page lists them with one action each, and unsubscribes nobody by being viewed', async () => {
    await deliver('viewed@news.test', 1, [
      { name: 'List-Unsubscribe', value: `<${listEndpoint('viewed')}>` },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
    const page = await send('/senders', { cookie: session.cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-sender="viewed@news.test"');
    expect(html).toContain('Unsubscribe and archive');
    expect((await get('/api/senders')).status).toBe(200);
    expect((await received()).filter((r) => r.token === 'viewed')).toEqual([]);
  });
});

describe('unsubscribe and archive', () => {
  it('one-click: the list’s endpoint receives RFC 8058’s POST, and the sender’s mail is archived', async () => {
    await deliver('list@news.test', 3, [
      { name: 'List-Unsubscribe', value: `<mailto:leave@news.test>, <${listEndpoint('one-click')}>` },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
    const { status, body } = await unsubscribe('List@News.test');
    expect(status).toBe(202);
    expect(body).toMatchObject({ method: 'one_click', outcome: 'sent' });
    const posts = (await received()).filter((r) => r.token === 'one-click');
    expect(posts).toEqual([
      {
        token: 'one-click',
        method: 'POST',
        contentType: 'application/x-www-form-urlencoded',
        body: 'List-Unsubscribe=One-Click',
        time: expect.any(String),
      },
    ]);
    expect(await finished(body.job_id)).toMatchObject({ archived: 3, failed: 0 });
    expect(await inboxFrom('list@news.test')).toBe(0);
  });

  it('a host not allowed gets no request: the link is shown to the person', async () => {
    await deliver('internal@news.test', 1, [
      { name: 'List-Unsubscribe', value: '<https://10.0.0.1/unsubscribe>' },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
    const { body } = await unsubscribe('internal@news.test');
    expect(body).toMatchObject({ method: 'link', outcome: 'shown', detail: 'https://10.0.0.1/unsubscribe' });
    expect(unsubscribeTargetAllowed('https://10.0.0.1/x', ['*'], 'mail.racing.example')).toBe(false);
    expect(unsubscribeTargetAllowed('https://auth.racing.example/x', ['*'], 'mail.racing.example')).toBe(false);
    expect(unsubscribeTargetAllowed('https://localhost/x', ['*'], 'mail.racing.example')).toBe(false);
    expect(unsubscribeTargetAllowed('http://127.0.0.1:9/x', ['*'], 'mail.racing.example')).toBe(false);
    expect(unsubscribeTargetAllowed('https://user:pw@lists.example.com/x', ['*'], 'mail.racing.example')).toBe(false);
    expect(unsubscribeTargetAllowed('https://lists.example.com:8443/x', ['*'], 'mail.racing.example')).toBe(false);
    expect(unsubscribeTargetAllowed('https://lists.example.com/x', ['*'], 'mail.racing.example')).toBe(true);
    expect(unsubscribeTargetAllowed('https://lists.example.com/x', ['other.example.com'], 'mail.racing.example')).toBe(false);
    expect(unsubscribeTargetAllowed(`${STANDIN}/x`, [new URL(STANDIN).host], 'mail.racing.example')).toBe(true);
  });

  it('without one-click, a mailto: way out becomes a draft in Drafts, never sent', async () => {
    await deliver('mailonly@news.test', 1, [{ name: 'List-Unsubscribe', value: '<mailto:leave@news.test?subject=unsubscribe%20me>' }]);
    const { body } = await unsubscribe('mailonly@news.test');
    expect(body).toMatchObject({ method: 'mailto', outcome: 'draft' });
    const draft = (
      await get<{ isDraft: boolean; folder: string; subject: string; to: { address: string }[] }>(
        `/api/email/${encodeURIComponent(body.detail)}`,
      )
    ).body;
    expect(draft).toMatchObject({ isDraft: true, folder: 'drafts', subject: 'unsubscribe me' });
    expect(draft.to.map((r) => r.address)).toEqual(['leave@news.test']);
    expect(parseMailto('mailto:?subject=x')).toBeUndefined();
    expect(offerOf({ id: 'm', internetMessageHeaders: [{ name: 'List-Unsubscribe', value: '<https://l.example.com/u>' }] })).toMatchObject({
      method: 'link',
    });
  });

  it('Graph throttling in the middle of the archive: the job waits, resumes, and moves each message once', async () => {
    const sender = 'bulk@news.test';
    const { value } = await deliver(sender, 30);
    // two messages whose move Graph throttles past the Worker's retries (4 attempts each)
    for (const m of [value[7]!, value[21]!])
      await control(box, 'POST', '/faults', {
        status: 429,
        count: 4,
        retryAfter: 1,
        method: 'POST',
        pathPrefix: `/me/messages/${m.immutableId}/move`,
      });
    await control(box, 'DELETE', '/log');
    const { body } = await unsubscribe(sender);
    expect(body).toMatchObject({ method: 'none', outcome: 'none' });
    // paused by the throttling with part of the mail moved: the same progress in the API and on the page
    await expect
      .poll(
        async () => {
          const now = (await get<Job>(`/api/senders/jobs/${body.job_id}`)).body;
          if (now.status !== 'waiting' || now.archived < 1 || now.archived > 29) return false;
          const page = await (await send('/senders', { cookie: session.cookie })).text();
          const item = page.slice(page.indexOf(`data-job="${body.job_id}"`));
          return (
            page.includes(`data-job="${body.job_id}" data-status="waiting"`) &&
            item.includes(`archive paused (Graph is busy) — resumes by itself: ${now.archived} archived`)
          );
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    const job = await finished(body.job_id, 60_000);
    expect(job).toMatchObject({ archived: 30, failed: 0 });
    expect(job.resumed).toBeGreaterThanOrEqual(1);
    expect(await inboxFrom(sender)).toBe(0);
    const log = (await control<{ requests: { method: string; path: string; status: number }[] }>(box, 'GET', '/log')).requests;
    for (const m of value) {
      const moves = log.filter((r) => r.method === 'POST' && decodeURIComponent(r.path).includes(`/messages/${m.immutableId}/move`));
      expect(
        moves.filter((r) => r.status === 201),
        m.immutableId,
      ).toHaveLength(1);
    }
  }, 90_000);

  it('bad input is a 4xx, and nothing is unsubscribed without the anti-forgery token', async () => {
    for (const sender of ['not-an-address', '', 'a\u0000@news.test', `${'x'.repeat(320)}@news.test`, 42])
      expect((await unsubscribe(sender)).status, String(sender)).toBe(400);
    expect((await unsubscribe('list@news.test', 'wrong')).status).toBe(403);
    expect((await get('/api/senders?sort=bogus')).status).toBe(400);
    expect((await get('/api/senders?limit=0')).status).toBe(400);
    expect((await get('/api/senders/jobs/not-a-uuid')).status).toBe(400);
    expect((await get(`/api/senders/jobs/${crypto.randomUUID()}`)).status).toBe(404);
    const form = (fields: Record<string, string>) => send('/senders/unsubscribe', { method: 'POST', cookie: session.cookie, form: fields });
    expect((await form({ sender: 'list@news.test' })).status).toBe(403);
    const bad = await form({ csrf_token: session.csrf, sender: 'nobody' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Choose a sender');
    const ok = await form({ csrf_token: session.csrf, sender: 'viewed@news.test' });
    expect(ok.status).toBe(303);
    expect((await received()).filter((r) => r.token === 'viewed')).toHaveLength(1);
  });
});
