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
