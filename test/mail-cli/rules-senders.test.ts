import { beforeAll, describe, expect, it } from 'vitest';
import { cliFor, oneLine } from './helpers';

/** The rules and senders commands over /api/rules and /api/senders, as an assistant user of their own. */

const assistant = cliFor('curator');
const { cli, json } = assistant;

type LogEntry = { method: string; path: string; status: number };
type Rules = { category: string; reply_mode: string; actions: { type: string }[] };
type TestItem = { message_id: string; subject: string; category: string; reason: string | null; actions: { description: string }[] };
type Rank = { address: string; name: string; messages: number; unread: number; read_share: number };

const requests = async () => (await assistant.standin<{ requests: LogEntry[] }>('GET', '/log')).requests;

beforeAll(async () => {
  const out = await assistant.login();
  if (out.code !== 0) throw new Error(`login: ${out.stderr}`);
  await assistant.connect();
}, 60_000);

describe('rules', () => {
  it('lists each category with its actions', async () => {
    const rules = await json<Rules[]>(['rules']);
    expect(Array.isArray(rules)).toBe(true);
    for (const rule of rules) expect(rule).toMatchObject({ category: expect.any(String), actions: expect.any(Array) });
    const text = await cli(['rules']);
    expect(text.code).toBe(0);
    expect(text.stdout.trim().length).toBeGreaterThan(0);
  });

  it('rules test lists the newest messages with a category and their actions, and writes nothing at Graph', async () => {
    await assistant.standin('DELETE', '/log');
    const answer = await json<{ folder: string; items: TestItem[] }>(['rules', 'test', '--top', '3']);
    expect(answer.items.length).toBeGreaterThan(0);
    expect(answer.items.length).toBeLessThanOrEqual(3);
    for (const item of answer.items)
      expect(item).toMatchObject({ message_id: expect.any(String), category: expect.any(String), actions: expect.any(Array) });
    const writes = (await requests()).filter((r) => r.method !== 'GET');
    expect(writes).toEqual([]);
  });

  it('bad arguments: exit 2 with one line; a category that does not exist is refused with the service’s reason', async () => {
    for (const argv of [
      ['rules', 'set'],
      ['rules', 'set', 'Anything', 'launch'],
      ['rules', 'test', '--top', '0'],
      ['rules', 'test', 'extra'],
      ['rules', 'now'],
    ]) {
      const out = await cli(argv);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(oneLine(out.stderr)).toMatch(/^mail: /);
    }
    const missing = await cli(['rules', 'set', 'No such category here', 'archive']);
    expect(missing.code).not.toBe(0);
    expect(oneLine(missing.stderr)).toContain('No category');
  });
});

describe('senders', () => {
  it('ranks the Inbox’s senders by volume, or least read first', async () => {
    const byVolume = await json<{ items: Rank[] }>(['senders', '--top', '5']);
    expect(byVolume.items.length).toBeGreaterThan(0);
    expect(byVolume.items.length).toBeLessThanOrEqual(5);
    const counts = byVolume.items.map((r) => r.messages);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const byRead = await json<{ items: Rank[] }>(['senders', '--sort', 'read', '--top', '5']);
    const shares = byRead.items.map((r) => r.read_share);
    expect(shares).toEqual([...shares].sort((a, b) => a - b));
    const text = await cli(['senders', '--top', '3']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(byVolume.items[0]!.address);
  });

  it('bad arguments: exit 2 with one line', async () => {
    for (const argv of [['senders', '--sort', 'loudest'], ['senders', '--top', '500'], ['senders', 'extra'], ['unsubscribe']]) {
      const out = await cli(argv);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(oneLine(out.stderr)).toMatch(/^mail: /);
    }
  });
});

/** A JSON call to the service under the command line's own session (what the CLI has no command for). */
async function service<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const { cookie, csrf, url } = assistant.session();
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      cookie,
      ...(method === 'GET' ? {} : { 'x-csrf-token': csrf, origin: url }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

type Delivered = { value: { immutableId: string }[] };
type AnswerJob = { job_id: string; status: string; total: number; done: number; changed: number; error: string | null };
type SenderJob = { job_id: string; method: string; outcome: string; status: string; archived: number; failed: number };
type Zero = { needs_reply: { message_id: string }[]; awaiting_reply: { message_id: string }[] };

describe('rules set and rules apply', () => {
  it('sets a category’s actions, lists them, and applies them to existing mail as a job followed to its end', async () => {
    expect(
      (await service('POST', '/api/admin/categories', { name: 'Gazettes', rule: 'gazette acceptances weights', reply_mode: 'no_reply' }))
        .status,
    ).toBe(201);
    const { value } = await assistant.standin<Delivered>('POST', '/deliver', {
      subject: 'Gazette: acceptances and weights',
      body: 'The gazette lists the acceptances and the weights for Saturday.',
      from: { name: 'Racing Gazette', address: 'gazette@club.test' },
    });
    const id = value[0]!.immutableId;
    // the new message is handled as new mail first (no actions yet): its summary is stored
    await expect
      .poll(async () => (await service('GET', `/api/docdb/email_summaries/${encodeURIComponent(id)}`)).status, { timeout: 20_000 })
      .toBe(200);
    const set = await json<Rules[]>(['rules', 'set', 'Gazettes', 'flag', 'mark_read']);
    expect(set).toEqual([{ category: 'Gazettes', reply_mode: 'no_reply', actions: [{ type: 'flag' }, { type: 'mark_read' }] }]);
    const listed = await cli(['rules']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('Gazettes (replies: no_reply)\n  1. flag\n  2. mark_read');
    await assistant.standin('DELETE', '/log');
    const out = await cli(['rules', 'apply', '--top', '1', '--wait', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const job = JSON.parse(out.stdout) as AnswerJob;
    expect(job).toMatchObject({ status: 'done', total: 1, done: 1, changed: 1, error: null });
    const patches = (await requests()).filter((r) => r.method === 'PATCH' && decodeURIComponent(r.path).includes(id) && r.status < 300);
    expect(patches).toHaveLength(2);
    // cleared again, so the rest of the file's mail is left alone
    expect((await json<Rules[]>(['rules', 'set', 'Gazettes']))[0]!.actions).toEqual([]);
  }, 60_000);
});

describe('unsubscribe', () => {
  it('one-click: the list’s endpoint receives the POST, and --wait follows the archive to its end', async () => {
    const sender = 'bulletin@lists.test';
    await assistant.standin<Delivered>('POST', '/deliver', {
      count: 2,
      subject: 'Weekly bulletin',
      from: { name: 'Bulletin', address: sender },
      headers: [
        { name: 'List-Unsubscribe', value: `<${assistant.control}/list-unsubscribe/cli-one-click>` },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
      ],
    });
    const before = (await assistant.standin<{ value: { token: string | null }[] }>('GET', '/list-unsubscribe')).value;
    expect(before.filter((r) => r.token === 'cli-one-click')).toEqual([]);
    const out = await cli(['unsubscribe', sender, '--wait', '--json']);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout) as SenderJob).toMatchObject({
      method: 'one_click',
      outcome: 'sent',
      status: 'done',
      archived: 2,
      failed: 0,
    });
    const posts = (
      await assistant.standin<{ value: { token: string | null; method: string; body: string }[] }>('GET', '/list-unsubscribe')
    ).value.filter((r) => r.token === 'cli-one-click');
    expect(posts.map((p) => [p.method, p.body])).toEqual([['POST', 'List-Unsubscribe=One-Click']]);
    const text = await cli(['senders', '--top', '200']);
    expect(text.stdout).not.toContain(sender);
  }, 60_000);

  it('a sender that is not an address is refused with exit 2', async () => {
    const out = await cli(['unsubscribe', 'not-an-address']);
    expect(out.code).toBe(2);
    expect(oneLine(out.stderr)).toMatch(/^mail: /);
  });
});

describe('replies tracked wherever they are sent', () => {
  it('follow-up shows and sets the days before a follow-up draft; bad values exit 2', async () => {
    expect(await json<{ days: number }>(['follow-up'])).toEqual({ days: 3 });
    const set = await cli(['follow-up', '--days', '5']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('after 5 days without an answer');
    expect(await json<{ days: number }>(['follow-up'])).toEqual({ days: 5 });
    for (const days of ['0', '61', 'soon']) {
      const out = await cli(['follow-up', '--days', days]);
      expect(out.code, days).toBe(2);
      expect(oneLine(out.stderr)).toMatch(/^mail: /);
    }
    expect((await service('PUT', '/api/follow-up', { days: 61 })).status).toBe(400);
    expect(await json<{ days: number }>(['follow-up'])).toEqual({ days: 5 });
  });

  it('awaiting lists a reply sent from elsewhere (straight into Sent Items) until it is answered', async () => {
    const { value } = await assistant.standin<Delivered>('POST', '/deliver', {
      subject: 'Float to Randwick',
      body: 'Can you confirm the float for Thursday?',
      from: { name: 'Float Co', address: 'floats@transport.test' },
    });
    const sent = await assistant.standin<{ immutableId: string }>('POST', '/send-elsewhere', {
      inReplyTo: value[0]!.immutableId,
      body: 'Confirmed, 6am.',
    });
    await expect
      .poll(async () => (await json<Zero>(['awaiting', '--top', '200'])).awaiting_reply.map((s) => s.message_id), { timeout: 20_000 })
      .toContain(sent.immutableId);
    const text = await cli(['awaiting']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Awaiting an answer');
    expect(text.stdout).toContain(sent.immutableId);
    expect((await cli(['awaiting', '--top', '0'])).code).toBe(2);
  }, 60_000);
});
