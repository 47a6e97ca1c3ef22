import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, createMailbox, graphClient, signIn } from '../../scripts/graph-standin/client';
import { type GraphStandin, startGraphStandin } from '../../scripts/graph-standin/server';

let standin: GraphStandin;
beforeAll(async () => {
  standin = await startGraphStandin({ seed: 'empty' });
});
afterAll(() => standin.close());

type Received = { url: URL; headers: IncomingMessage['headers']; body: string };
type Notification = {
  subscriptionId: string;
  subscriptionExpirationDateTime: string;
  changeType: string;
  resource: string;
  resourceData: { '@odata.type': string; '@odata.id': string; id: string };
  clientState: string | null;
  tenantId: string;
};

/** A webhook receiver: answers the validation echo and notifications the way `answer` says. */
async function receiver(answer: (req: Received, res: ServerResponse) => void = defaultAnswer) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const entry = { url: new URL(req.url ?? '/', 'http://receiver'), headers: req.headers, body };
      received.push(entry);
      waiters.splice(0).forEach((wake) => wake());
      answer(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graph/webhook`;
  return {
    url,
    received,
    notifications: () =>
      received
        .filter((r) => !r.url.searchParams.has('validationToken'))
        .flatMap((r) => (JSON.parse(r.body) as { value: Notification[] }).value),
    async waitFor(count: number, ms = 5000) {
      const deadline = Date.now() + ms;
      while (received.length < count && Date.now() < deadline)
        await new Promise<void>((resolve) => (waiters.push(resolve), setTimeout(resolve, 50)));
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function defaultAnswer(req: Received, res: ServerResponse) {
  const token = req.url.searchParams.get('validationToken');
  if (token !== null) res.writeHead(200, { 'content-type': 'text/plain' }).end(token);
  else res.writeHead(202).end();
}

async function mailbox(headers: Record<string, string> = {}) {
  const box = await createMailbox(standin.url, { seed: 'racing' });
  const tokens = await signIn(standin.url, { loginHint: box.loginHint });
  return {
    box,
    graph: graphClient(standin.graphBaseUrl, tokens.access_token, headers),
    ctl: (method: string, path: string, body?: unknown) => control(box.control, method, path, body),
  };
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

function subscriptionBody(url: string, extra: Record<string, unknown> = {}) {
  return {
    changeType: 'created,updated',
    notificationUrl: url,
    resource: "me/mailFolders('inbox')/messages",
    expirationDateTime: inAnHour(),
    clientState: 'secret-state-123',
    ...extra,
  };
}

describe('subscriptions: creation and the validation handshake', () => {
  it('validates the notification URL with a URL-encoded token and then creates the subscription', async () => {
    const hook = await receiver();
    const { graph, box, ctl } = await mailbox();
    try {
      const created = await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url) });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        resource: "me/mailFolders('inbox')/messages",
        changeType: 'created,updated',
        clientState: 'secret-state-123',
        notificationUrl: hook.url,
        creatorId: box.user.id,
      });
      expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
      const validation = hook.received[0]!;
      expect(validation.headers['content-type']).toMatch(/^text\/plain/);
      expect(validation.body).toBe('');
      expect(validation.url.searchParams.get('validationToken')).toMatch(
        /^Validation: Testing client application reachability for subscription Request-Id: [0-9a-f-]{36}$/,
      );
      expect(validation.url.search).not.toContain(' ');
      const deliveries = (await (await ctl('GET', '/deliveries')).json()) as { value: { kind: string; ok: boolean }[] };
      expect(deliveries.value).toMatchObject([{ kind: 'validation', ok: true }]);
      const listed = await graph('/subscriptions');
      expect(listed.body.value.map((s: { id: string }) => s.id)).toEqual([created.body.id]);
      expect((await graph(`/subscriptions/${created.body.id}`)).body.clientState).toBe('secret-state-123');
    } finally {
      await hook.close();
    }
  });

  it.each([
    ['a wrong echo', (_req: Received, res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/plain' }).end('something else')],
    ['a non-200 answer', (_req: Received, res: ServerResponse) => res.writeHead(202).end()],
    [
      'JSON instead of text/plain',
      (req: Received, res: ServerResponse) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.url.searchParams.get('validationToken'))),
    ],
    [
      'the token still URL-encoded',
      (req: Received, res: ServerResponse) =>
        res.writeHead(200, { 'content-type': 'text/plain' }).end(encodeURIComponent(req.url.searchParams.get('validationToken')!)),
    ],
  ])('refuses the subscription on %s, with 400 ValidationError', async (_name, answer) => {
    const hook = await receiver(answer);
    const { graph } = await mailbox();
    try {
      const res = await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('ValidationError');
      expect((await graph('/subscriptions')).body.value).toEqual([]);
    } finally {
      await hook.close();
    }
  });

  it('refuses the subscription when nothing listens at the URL', async () => {
    const hook = await receiver();
    await hook.close();
    const { graph, ctl } = await mailbox();
    const res = await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('ValidationError');
    const deliveries = (await (await ctl('GET', '/deliveries')).json()) as { value: { ok: boolean; error: string }[] };
    expect(deliveries.value[0]).toMatchObject({ ok: false });
    expect(deliveries.value[0]!.error).toBeTruthy();
  });

  it('refuses bad input without calling the webhook', async () => {
    const hook = await receiver();
    const { graph } = await mailbox();
    try {
      const cases = [
        { changeType: 'created,eaten' },
        { changeType: '' },
        { resource: "me/mailFolders('nowhere')/messages" },
        { resource: 'me/events' },
        { expirationDateTime: new Date(Date.now() - 60_000).toISOString() },
        { expirationDateTime: new Date(Date.now() + 10_081 * 60_000).toISOString() },
        { expirationDateTime: 'tomorrow' },
        { clientState: 'x'.repeat(129) },
        { notificationUrl: 'ftp://example.com/hook' },
        { notificationUrl: 'not a url' },
        { includeResourceData: true },
        { colour: 'red' },
      ];
      for (const extra of cases) {
        const res = await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url, extra) });
        expect(res.status, JSON.stringify(extra)).toBe(400);
      }
      expect(hook.received).toEqual([]);
    } finally {
      await hook.close();
    }
  });

  it('accepts the other resource forms Graph does', async () => {
    const hook = await receiver();
    const { graph, box } = await mailbox();
    try {
      for (const resource of [
        '/me/mailfolders/inbox/messages',
        `users/${box.user.id}/mailFolders('Inbox')/messages`,
        'me/messages',
        "me/mailFolders('archive')/messages",
      ]) {
        const res = await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url, { resource }) });
        expect(res.status, resource).toBe(201);
      }
    } finally {
      await hook.close();
    }
  });
});

describe('subscriptions: notifications', () => {
  it('notifies a new inbox message with the clientState, subscription and message id', async () => {
    const hook = await receiver();
    const { graph, ctl, box } = await mailbox();
    try {
      const sub = (await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url) })).body;
      const delivered = ((await (await ctl('POST', '/deliver', { subject: 'Barrier draw' })).json()) as { value: { id: string }[] })
        .value[0]!;
      await hook.waitFor(2);
      const [note] = hook.notifications();
      expect(note).toMatchObject({
        subscriptionId: sub.id,
        changeType: 'created',
        clientState: 'secret-state-123',
        subscriptionExpirationDateTime: sub.expirationDateTime,
      });
      expect(note!.resourceData).toMatchObject({ '@odata.type': '#Microsoft.Graph.Message', id: delivered.id });
      expect(note!.resource).toBe(`Users/${box.user.id}/Messages/${delivered.id}`);
      expect(note!.tenantId).toMatch(/^[0-9a-f-]{36}$/);
      expect(hook.received[1]!.headers['content-type']).toMatch(/^application\/json/);
      // The id in the notification is one the API resolves.
      expect((await graph(`/me/messages/${note!.resourceData.id}`)).body.subject).toBe('Barrier draw');
      const deliveries = (await (await ctl('GET', '/deliveries?count=2&wait=2000')).json()) as {
        value: { kind: string; status: number; ok: boolean; changes: unknown }[];
      };
      expect(deliveries.value[1]).toMatchObject({
        kind: 'notification',
        status: 202,
        ok: true,
        changes: [{ changeType: 'created', id: delivered.id }],
      });
    } finally {
      await hook.close();
    }
  });

  it('notifies updates and moves out of the folder per the change types, with immutable ids when created so', async () => {
    const hook = await receiver();
    const { graph, ctl } = await mailbox({ prefer: 'IdType="ImmutableId"' });
    try {
      await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url, { changeType: 'updated,deleted' }) });
      const message = (await graph('/me/mailFolders/inbox/messages?$top=1')).body.value[0];
      await graph(`/me/messages/${message.id}`, { method: 'PATCH', body: { isRead: !message.isRead } });
      await graph(`/me/messages/${message.id}/move`, { method: 'POST', body: { destinationId: 'archive' } });
      await ctl('POST', '/deliver', {});
      await hook.waitFor(3);
      await (await ctl('GET', '/deliveries?count=3&wait=2000')).json();
      expect(hook.notifications().map((n) => [n.changeType, n.resourceData.id])).toEqual([
        ['updated', message.id],
        ['deleted', message.id],
      ]);
    } finally {
      await hook.close();
    }
  });

  it('delivers a burst, one POST per message', async () => {
    const hook = await receiver();
    const { graph, ctl } = await mailbox();
    try {
      await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url, { changeType: 'created' }) });
      await ctl('POST', '/deliver', { count: 25 });
      const deliveries = (await (await ctl('GET', '/deliveries?count=26&wait=5000')).json()) as { value: { ok: boolean }[] };
      expect(deliveries.value.filter((d) => d.ok)).toHaveLength(26);
      expect(new Set(hook.notifications().map((n) => n.resourceData.id)).size).toBe(25);
    } finally {
      await hook.close();
    }
  });

  it('records failed and slow deliveries', async () => {
    let calls = 0;
    const hook = await receiver((req, res) => {
      if (req.url.searchParams.has('validationToken')) return defaultAnswer(req, res);
      calls += 1;
      if (calls === 1) res.writeHead(500).end();
      else setTimeout(() => res.writeHead(202).end(), 3200);
    });
    const { graph, ctl } = await mailbox();
    try {
      await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url) });
      await ctl('POST', '/deliver', {});
      await ctl('GET', '/deliveries?count=2&wait=3000');
      await ctl('POST', '/deliver', {});
      const deliveries = (await (await ctl('GET', '/deliveries?count=3&wait=8000')).json()) as {
        value: { status: number; ok: boolean; slow: boolean; durationMs: number }[];
      };
      expect(deliveries.value.slice(1)).toMatchObject([
        { status: 500, ok: false, slow: false },
        { status: 202, ok: false, slow: true },
      ]);
      expect(deliveries.value[2]!.durationMs).toBeGreaterThanOrEqual(3000);
    } finally {
      await hook.close();
    }
  });
});

describe('subscriptions: lifetime', () => {
  it('renews, expires on the mailbox clock (then delivers nothing), and deletes', async () => {
    const hook = await receiver();
    const { graph, ctl, box } = await mailbox();
    try {
      const sub = (await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url) })).body;
      const renewedTo = new Date(Date.now() + 2 * 86_400_000).toISOString();
      const renewed = await graph(`/subscriptions/${sub.id}`, { method: 'PATCH', body: { expirationDateTime: renewedTo } });
      expect(renewed.status).toBe(200);
      expect(Date.parse(renewed.body.expirationDateTime)).toBe(Date.parse(renewedTo));
      expect(
        (
          await graph(`/subscriptions/${sub.id}`, {
            method: 'PATCH',
            body: { expirationDateTime: new Date(Date.now() + 8 * 86_400_000).toISOString() },
          })
        ).status,
      ).toBe(400);
      expect(
        (await graph(`/subscriptions/${sub.id}`, { method: 'PATCH', body: { notificationUrl: 'https://elsewhere.example' } })).status,
      ).toBe(400);

      await ctl('POST', '/clock', { advanceMs: 3 * 86_400_000 });
      // Three days on, the first access token has long expired: sign in again.
      expect((await graph('/subscriptions')).status).toBe(401);
      const later = graphClient(standin.graphBaseUrl, (await signIn(standin.url, { loginHint: box.loginHint })).access_token);
      expect((await later(`/subscriptions/${sub.id}`)).status).toBe(404);
      expect(
        (
          await later(`/subscriptions/${sub.id}`, {
            method: 'PATCH',
            body: { expirationDateTime: new Date(Date.now() + 4 * 86_400_000).toISOString() },
          })
        ).status,
      ).toBe(404);
      await ctl('POST', '/deliver', {});
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hook.notifications()).toEqual([]);

      const again = (
        await later('/subscriptions', {
          method: 'POST',
          body: subscriptionBody(hook.url, { expirationDateTime: new Date(Date.now() + 4 * 86_400_000).toISOString() }),
        })
      ).body;
      expect((await later(`/subscriptions/${again.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await later(`/subscriptions/${again.id}`)).status).toBe(404);
    } finally {
      await hook.close();
    }
  });

  it('shows an app only its own subscriptions', async () => {
    const hook = await receiver();
    const { graph, box } = await mailbox();
    try {
      const sub = (await graph('/subscriptions', { method: 'POST', body: subscriptionBody(hook.url) })).body;
      const otherApp = graphClient(
        standin.graphBaseUrl,
        (await signIn(standin.url, { loginHint: box.loginHint, clientId: 'another-app' })).access_token,
      );
      expect((await otherApp('/subscriptions')).body.value).toEqual([]);
      expect((await otherApp(`/subscriptions/${sub.id}`, { method: 'DELETE' })).status).toBe(404);
    } finally {
      await hook.close();
    }
  });
});

describe('subscriptions: queue mode (a webhook the test relays itself)', () => {
  it('holds validation and notifications in the outbox and judges the answers handed back', async () => {
    const { graph, ctl } = await mailbox();
    expect((await ctl('POST', '/webhook-mode', { mode: 'queue' })).status).toBe(200);
    const creating = graph('/subscriptions', { method: 'POST', body: subscriptionBody('https://mail.example/graph/webhook') });
    type Item = { id: string; kind: string; url: string; headers: Record<string, string>; body: string };
    const outbox = (await (await ctl('GET', '/outbox?wait=5000')).json()) as { value: Item[] };
    const validation = outbox.value[0]!;
    expect(validation.kind).toBe('validation');
    const token = new URL(validation.url).searchParams.get('validationToken')!;
    expect(new URL(validation.url).pathname).toBe('/graph/webhook');
    expect(
      (await ctl('POST', `/outbox/${validation.id}`, { status: 200, contentType: 'text/plain; charset=utf-8', body: token })).status,
    ).toBe(204);
    const created = await creating;
    expect(created.status).toBe(201);

    await ctl('POST', '/deliver', {});
    const next = (await (await ctl('GET', '/outbox?wait=5000')).json()) as { value: Item[] };
    const notification = next.value[0]!;
    expect(notification.kind).toBe('notification');
    expect(notification.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(notification.body).value[0]).toMatchObject({ subscriptionId: created.body.id, clientState: 'secret-state-123' });
    await ctl('POST', `/outbox/${notification.id}`, { status: 202 });
    const deliveries = (await (await ctl('GET', '/deliveries?count=2&wait=2000')).json()) as { value: { kind: string; ok: boolean }[] };
    expect(deliveries.value.map((d) => [d.kind, d.ok])).toEqual([
      ['validation', true],
      ['notification', true],
    ]);
    expect((await ctl('POST', `/outbox/${notification.id}`, { status: 202 })).status).toBe(404);
  });

  it('fails the validation when the relayed answer is wrong', async () => {
    const { graph, ctl } = await mailbox();
    await ctl('POST', '/webhook-mode', { mode: 'queue' });
    const creating = graph('/subscriptions', { method: 'POST', body: subscriptionBody('https://mail.example/graph/webhook') });
    const item = ((await (await ctl('GET', '/outbox?wait=5000')).json()) as { value: { id: string }[] }).value[0]!;
    await ctl('POST', `/outbox/${item.id}`, { status: 401, contentType: 'application/json', body: '{}' });
    const refused = await creating;
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('ValidationError');
    expect((await ctl('POST', '/webhook-mode', { mode: 'smoke-signals' })).status).toBe(400);
  });
});
