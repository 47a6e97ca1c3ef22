import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { control, createMailbox, graphClient, signIn } from '../../scripts/graph-standin/client';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';

let standin: GraphStandin;
beforeAll(async () => {
  standin = await startGraphStandin();
});
afterAll(() => standin.close());

async function mailbox() {
  const box = await createMailbox(standin.url);
  const tokens = await signIn(standin.url, { loginHint: box.loginHint });
  return {
    box,
    tokens,
    graph: graphClient(standin.graphBaseUrl, tokens.access_token),
    ctl: (method: string, path: string, body?: unknown) => control(box.control, method, path, body),
  };
}

type Log = {
  requests: { method: string; path: string; status: number; token: string | null; fault: number | null }[];
  highWater: number;
  highWaterByToken: Record<string, number>;
  inFlight: number;
};

describe('control API: faults', () => {
  it('answers 429 with Retry-After for the next `count` matching requests, then recovers', async () => {
    const { graph, ctl } = await mailbox();
    const created = await ctl('POST', '/faults', { status: 429, count: 2, retryAfter: 3, pathPrefix: '/me/messages' });
    expect(created.status).toBe(201);
    const fault = (await created.json()) as { id: number };
    expect((await graph('/me')).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const throttled = await graph('/me/messages?$top=1');
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('retry-after')).toBe('3');
      expect(throttled.body.error.code).toBe('TooManyRequests');
    }
    expect((await graph('/me/messages?$top=1')).status).toBe(200);
    const log = (await (await ctl('GET', '/log')).json()) as Log;
    expect(log.requests.filter((r) => r.fault === fault.id).map((r) => r.status)).toEqual([429, 429]);
    expect(((await (await ctl('GET', '/faults')).json()) as { value: unknown[] }).value).toEqual([]);
  });

  it('keeps an outage (no count) until it is deleted, matching with or without /v1.0 and by method', async () => {
    const { graph, ctl } = await mailbox();
    await ctl('POST', '/faults', { status: 503, pathPrefix: '/v1.0/me/mailFolders', method: 'GET', retryAfter: 5 });
    for (let i = 0; i < 3; i++) {
      const down = await graph('/me/mailFolders');
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('ServiceNotAvailable');
    }
    expect((await graph('/me/mailFolders', { method: 'POST', body: { displayName: 'Fine' } })).status).toBe(201);
    expect((await ctl('DELETE', '/faults')).status).toBe(204);
    expect((await graph('/me/mailFolders')).status).toBe(200);
  });

  it('deletes one fault by id', async () => {
    const { graph, ctl } = await mailbox();
    const fault = (await (await ctl('POST', '/faults', { status: 500 })).json()) as { id: number };
    expect((await graph('/me')).status).toBe(500);
    expect((await ctl('DELETE', `/faults/${fault.id}`)).status).toBe(204);
    expect((await ctl('DELETE', `/faults/${fault.id}`)).status).toBe(404);
    expect((await graph('/me')).status).toBe(200);
  });

  it('drops the connection for status 0', async () => {
    const { graph, ctl } = await mailbox();
    await ctl('POST', '/faults', { status: 0, count: 1 });
    await expect(graph('/me')).rejects.toThrow();
    expect((await graph('/me')).status).toBe(200);
  });

  it('slows answers down with delayMs alone, and the slow request counts as in flight', async () => {
    const { graph, ctl } = await mailbox();
    await ctl('POST', '/faults', { delayMs: 300, count: 1 });
    const started = Date.now();
    expect((await graph('/me')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('injects faults into the token endpoint by the mailbox of the refresh token', async () => {
    const { tokens, ctl } = await mailbox();
    await ctl('POST', '/faults', { status: 503, count: 1, pathPrefix: '/oauth2/v2.0/token', retryAfter: 2 });
    const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: 'standin-test-client' };
    const down = await fetch(`${standin.url}/common/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(((await down.json()) as { error: string }).error).toBe('temporarily_unavailable');
    const up = await fetch(`${standin.url}/common/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    expect(up.status).toBe(200);
  });

  it("keeps one mailbox's faults away from another", async () => {
    const a = await mailbox();
    const b = await mailbox();
    await a.ctl('POST', '/faults', { status: 503 });
    expect((await a.graph('/me')).status).toBe(503);
    expect((await b.graph('/me')).status).toBe(200);
  });

  it('refuses malformed faults', async () => {
    const { ctl } = await mailbox();
    for (const body of [
      {},
      { status: 99 },
      { status: 429, count: 0 },
      { status: 429, retryAfter: -1 },
      { delayMs: 10_000_000 },
      { status: '429' },
      [1],
    ]) {
      expect((await ctl('POST', '/faults', body)).status, JSON.stringify(body)).toBe(400);
    }
    const notJson = await fetch(`${standin.url}/_standin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
    expect(notJson.status).toBe(400);
  });
});

describe('control API: concurrency and the request log', () => {
  it('throttles a fifth concurrent request per mailbox and records the high-water mark', async () => {
    const { graph, ctl } = await mailbox();
    await ctl('POST', '/faults', { delayMs: 400, pathPrefix: '/me/messages' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => graph('/me/messages?$top=1')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const throttled = answers.find((a) => a.status === 429)!;
    expect(throttled.body.error.code).toBe('ApplicationThrottled');
    expect(throttled.headers.get('retry-after')).toBe('1');
    const log = (await (await ctl('GET', '/log')).json()) as Log;
    expect(log.highWater).toBe(4);
    expect(Object.values(log.highWaterByToken)).toEqual([4]);
    expect(log.inFlight).toBe(0);
    expect(log.requests.filter((r) => r.path === '/v1.0/me/messages')).toHaveLength(6);
  });

  it('ends a delayed answer whose client gave up, so it no longer holds a concurrency slot', async () => {
    const { tokens, graph, ctl } = await mailbox();
    await ctl('POST', '/faults', { delayMs: 20_000, count: 4, pathPrefix: '/me/messages' });
    const abandoned = Array.from({ length: 4 }, () =>
      fetch(`${standin.graphBaseUrl}/me/messages?$top=1`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
        signal: AbortSignal.timeout(200),
      }).catch((err: unknown) => (err as Error).name),
    );
    expect(await Promise.all(abandoned)).toEqual(Array(4).fill('TimeoutError'));
    // The stand-in sees the connections close a moment later.
    for (let i = 0; i < 50 && ((await (await ctl('GET', '/log')).json()) as Log).inFlight > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(((await (await ctl('GET', '/log')).json()) as Log).inFlight).toBe(0);
    expect((await graph('/me/messages?$top=1')).status).toBe(200);
  });

  it('counts the limit per app: another client id has its own four', async () => {
    const { box, graph, ctl } = await mailbox();
    const otherApp = graphClient(
      standin.graphBaseUrl,
      (await signIn(standin.url, { loginHint: box.loginHint, clientId: 'another-app' })).access_token,
    );
    await ctl('POST', '/faults', { delayMs: 300 });
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => graph('/me')),
      ...Array.from({ length: 4 }, () => otherApp('/me')),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(((await (await ctl('GET', '/log')).json()) as Log).highWater).toBe(8);
  });

  it('lifts the limit on request and counts high-water marks per token', async () => {
    const { box, graph, ctl } = await mailbox();
    const second = graphClient(standin.graphBaseUrl, (await signIn(standin.url, { loginHint: box.loginHint })).access_token);
    expect((await ctl('POST', '/limits', { maxConcurrent: 0 })).status).toBe(200);
    await ctl('POST', '/faults', { delayMs: 250 });
    await ctl('DELETE', '/log');
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => graph('/me')),
      ...Array.from({ length: 3 }, () => second('/me')),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const log = (await (await ctl('GET', '/log')).json()) as Log;
    expect(log.highWater).toBe(7);
    expect(Object.values(log.highWaterByToken).sort()).toEqual([3, 4]);
    expect((await ctl('POST', '/limits', { maxConcurrent: -1 })).status).toBe(400);
  });
});

describe('control API: mailbox state', () => {
  it('delivers new unread messages into the inbox, in a thread when asked', async () => {
    const { graph, ctl } = await mailbox();
    const before = (await graph('/me/mailFolders/inbox')).body as { totalItemCount: number; unreadItemCount: number };
    const original = (await graph('/me/mailFolders/inbox/messages?$top=1')).body.value[0];
    const res = await ctl('POST', '/deliver', {
      count: 3,
      from: { name: 'Tom Bradshaw', address: 'tom@bradshawracing.example' },
      inReplyTo: original.id,
    });
    expect(res.status).toBe(201);
    const delivered = ((await res.json()) as { value: { id: string; conversationId: string }[] }).value;
    expect(delivered).toHaveLength(3);
    expect(delivered.every((d) => d.conversationId === original.conversationId)).toBe(true);
    const after = (await graph('/me/mailFolders/inbox')).body as { totalItemCount: number; unreadItemCount: number };
    expect(after.totalItemCount).toBe(before.totalItemCount + 3);
    expect(after.unreadItemCount).toBe(before.unreadItemCount + 3);
    const newest = (await graph('/me/mailFolders/inbox/messages?$top=1')).body.value[0];
    expect(delivered.map((d) => d.id)).toContain(newest.id);
    expect(newest.from.emailAddress.address).toBe('tom@bradshawracing.example');
  });

  it('delivers attachments: a PDF on request, or the files given', async () => {
    const { graph, ctl } = await mailbox();
    const res = await ctl('POST', '/deliver', {
      subject: 'Form guide',
      attachment: true,
      attachments: [
        { name: 'fields.csv', contentType: 'text/csv', contentBytes: Buffer.from('horse,barrier\nIron Bark,4\n').toString('base64') },
      ],
    });
    const [delivered] = ((await res.json()) as { value: { id: string }[] }).value;
    const attachments = (await graph(`/me/messages/${delivered!.id}/attachments`)).body.value as { name: string; contentBytes: string }[];
    expect(attachments.map((a) => a.name)).toEqual(['Update.pdf', 'fields.csv']);
    expect(Buffer.from(attachments[0]!.contentBytes, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect(Buffer.from(attachments[1]!.contentBytes, 'base64').toString()).toContain('Iron Bark');
  });

  it('refuses malformed deliveries', async () => {
    const { ctl } = await mailbox();
    for (const body of [
      { count: 0 },
      { count: 501 },
      { from: 'tom' },
      { folder: 'nowhere' },
      { inReplyTo: 'nosuch' },
      { cc: 'x' },
      { attachments: [{ name: 'x' }] },
      { attachments: 'x' },
    ]) {
      expect((await ctl('POST', '/deliver', body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('moves the mailbox clock', async () => {
    const { ctl } = await mailbox();
    const moved = (await (await ctl('POST', '/clock', { advanceMs: 3_600_000 })).json()) as { offsetMs: number; now: string };
    expect(moved.offsetMs).toBe(3_600_000);
    expect(Math.abs(Date.parse(moved.now) - Date.now() - 3_600_000)).toBeLessThan(2000);
    const set = (await (await ctl('POST', '/clock', { now: '2030-01-01T00:00:00Z' })).json()) as { now: string };
    expect(Math.abs(Date.parse(set.now) - Date.parse('2030-01-01T00:00:00Z'))).toBeLessThan(2000);
    expect((await ctl('POST', '/clock', { offsetMs: 'soon' })).status).toBe(400);
    expect((await ctl('POST', '/clock', { now: 'yesterday' })).status).toBe(400);
  });

  it('resets to the seed, keeping the tokens', async () => {
    const { graph, ctl } = await mailbox();
    const seeded = (await graph('/me/mailFolders/inbox')).body.totalItemCount as number;
    await ctl('POST', '/deliver', { count: 2 });
    await graph('/me/mailFolders', { method: 'POST', body: { displayName: 'Temporary' } });
    await ctl('POST', '/faults', { status: 500, pathPrefix: '/me/people' });
    const reset = await ctl('POST', '/reset');
    expect(reset.status).toBe(200);
    expect((await graph('/me/mailFolders/inbox')).body.totalItemCount).toBe(seeded);
    const folders = (await graph('/me/mailFolders?$top=50')).body.value.map((f: { displayName: string }) => f.displayName);
    expect(folders).not.toContain('Temporary');
    expect((await graph('/me/people')).status).toBe(200);
  });

  it('creates, lists and deletes mailboxes; the default one stays', async () => {
    const created = await createMailbox(standin.url, {
      displayName: 'Aisha Khan',
      mail: 'aisha.k@southerncross-racing.example',
      seed: 'empty',
    });
    expect(created).toMatchObject({ loginHint: 'aisha.k@southerncross-racing.example', user: { displayName: 'Aisha Khan' } });
    const list = (await (await fetch(`${standin.url}/_standin/mailboxes`)).json()) as { value: { id: string }[] };
    expect(list.value.map((m) => m.id)).toEqual(expect.arrayContaining(['default', created.id]));
    const duplicate = await fetch(`${standin.url}/_standin/mailboxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mail: 'aisha.k@southerncross-racing.example' }),
    });
    expect(duplicate.status).toBe(409);
    expect((await fetch(created.control, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${created.control}/state`)).status).toBe(404);
    expect((await fetch(`${standin.url}/_standin/mailboxes/default`, { method: 'DELETE' })).status).toBe(400);
    expect((await fetch(`${standin.url}/_standin/nosuch`)).status).toBe(404);
    expect((await fetch(`${standin.url}/_standin/reset`)).status).toBe(405);
  });
});

describe('the stand-in of the whole test run', () => {
  it('is provided by the global setup and answers', async () => {
    const origin = inject('graphStandin');
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const index = (await (await fetch(`${origin}/_standin`)).json()) as { graphBaseUrl: string };
    expect(index.graphBaseUrl).toBe(`${origin}/v1.0`);
    const box = await createMailbox(origin, { seed: 'empty' });
    const tokens = await signIn(origin, { loginHint: box.loginHint });
    expect((await graphClient(`${origin}/v1.0`, tokens.access_token)('/me')).body.mail).toBe(box.user.mail);
  });
});

describe('seeded mailbox', () => {
  it('is the same on every start: ids, subjects, folders; a few hundred messages with threads, drafts and attachments', async () => {
    const other = await startGraphStandin();
    try {
      const list = async (origin: string, graphBase: string) => {
        const tokens = await signIn(origin);
        const graph = graphClient(graphBase, tokens.access_token);
        return (await graph('/me/messages?$top=1000&$select=subject,conversationId,isDraft,hasAttachments,parentFolderId')).body.value as {
          id: string;
          subject: string;
          conversationId: string;
          isDraft: boolean;
          hasAttachments: boolean;
        }[];
      };
      const a = await list(standin.url, standin.graphBaseUrl);
      const b = await list(other.url, other.graphBaseUrl);
      expect(b.map((m) => [m.id, m.subject])).toEqual(a.map((m) => [m.id, m.subject]));
      expect(a.length).toBeGreaterThanOrEqual(250);
      expect(a.filter((m) => m.isDraft).length).toBeGreaterThanOrEqual(5);
      expect(a.filter((m) => m.hasAttachments).length).toBeGreaterThanOrEqual(20);
      const threads = new Map<string, number>();
      for (const m of a) threads.set(m.conversationId, (threads.get(m.conversationId) ?? 0) + 1);
      expect([...threads.values()].filter((n) => n >= 3).length).toBeGreaterThanOrEqual(20);
    } finally {
      await other.close();
    }
  });
});
