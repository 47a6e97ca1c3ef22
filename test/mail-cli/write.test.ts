import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type List, cliFor, oneLine } from './helpers';

/** The commands that change the mailbox, poll and subscribe, as the writer account. */

const writer = cliFor('writer');
const { cli, json } = writer;

beforeAll(async () => {
  const out = await writer.login();
  if (out.code !== 0) throw new Error(`login: ${out.stderr}`);
  await writer.connect();
}, 60_000);

afterEach(async () => {
  await writer.standin('DELETE', '/faults');
});

type Full = {
  id: string;
  subject: string;
  isRead: boolean;
  isDraft: boolean;
  folder: string | null;
  to: { address: string }[];
  cc: { address: string }[];
  text: string;
};

async function deliver(subject: string): Promise<string> {
  const { value } = await writer.standin<{ value: { immutableId: string }[] }>('POST', '/deliver', {
    subject,
    from: { name: 'Trainer', address: 'trainer@example.com' },
  });
  return value[0]!.immutableId;
}

describe('changes', () => {
  it('create-folder, then move a message into it and back', async () => {
    const folder = await json<{ id: string; name: string }>(['create-folder', 'Nominations CLI']);
    expect(folder.name).toBe('Nominations CLI');
    const child = await json<{ parentId: string }>(['create-folder', 'Scratchings', '--parent', 'Nominations CLI']);
    expect(child.parentId).toBe(folder.id);
    const again = await cli(['create-folder', 'Nominations CLI']);
    expect(again.code).toBe(1);
    expect(oneLine(again.stderr)).toContain('folder_exists');

    const id = await deliver('Move me');
    const moved = await json<{ id: string; folderId: string }>(['move', id, 'Nominations CLI']);
    expect(moved.folderId).toBe(folder.id);
    expect((await json<Full>(['read', id])).folder).toBeNull();
    await json(['move', id, 'inbox']);
    expect((await json<Full>(['read', id])).folder).toBe('inbox');
    const nowhere = await cli(['move', id, 'No such folder']);
    expect(nowhere.code).toBe(1);
    expect(oneLine(nowhere.stderr)).toContain('folder_not_found');
  });

  it('mark-read and mark-read --unread, for several messages with progress', async () => {
    const ids = [await deliver('Read me 1'), await deliver('Read me 2')];
    const read = await cli(['mark-read', ...ids]);
    expect(read.code).toBe(0);
    expect(read.stderr).toMatch(/marking read 2\/2/);
    for (const id of ids) expect((await json<Full>(['read', id])).isRead).toBe(true);
    await json(['mark-read', ids[0]!, '--unread']);
    expect((await json<Full>(['read', ids[0]!])).isRead).toBe(false);
  });

  it('create-draft makes a new draft with recipients, subject and body', async () => {
    const draft = await json<{ id: string }>([
      'create-draft',
      '--to',
      'owner@example.com,vet@example.com',
      '--cc',
      'stable@example.com',
      '--subject',
      'Float booking',
      '--body',
      'Tuesday 6am',
    ]);
    const full = await json<Full>(['read', draft.id]);
    expect(full).toMatchObject({ isDraft: true, folder: 'drafts', subject: 'Float booking' });
    expect(full.to.map((a) => a.address)).toEqual(['owner@example.com', 'vet@example.com']);
    expect(full.cc.map((a) => a.address)).toEqual(['stable@example.com']);
    expect(full.text).toContain('Tuesday 6am');
    const bad = await cli(['create-draft', '--to', 'not-an-address']);
    expect(bad.code).toBe(2);
    expect(oneLine(bad.stderr)).toContain('to:');
  });

  it('reply sends (the body from an argument or stdin) and the reply is in Sent Items', async () => {
    const id = await deliver('Can the float leave at 5?');
    const out = await cli(['reply', id, '--body', 'Yes, 5am is fine.']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Reply sent');
    const piped = await cli(['reply', id, '--all'], { stdin: 'Confirmed again.' });
    expect(piped.code).toBe(0);
    const sent = await json<List>(['search', 'float leave', '--folder', 'sentitems']);
    expect(sent.items.filter((m) => /^RE: Can the float leave at 5\?/i.test(m.subject))).toHaveLength(2);
    const empty = await cli(['reply', id]);
    expect(empty.code).toBe(2);
    expect(oneLine(empty.stderr)).toContain('message text is required');
  });

  it('subscribe replaces the inbox subscription, Sent Items beside it (Graph validates the webhook over HTTP first)', async () => {
    const sub = await json<{ id: string; notificationUrl: string; expiresAt: string }>(['subscribe']);
    expect(sub.notificationUrl).toMatch(/\/graph\/webhook$/);
    const live = await writer.standin<{ value: { id: string; resource: string }[] }>('GET', '/subscriptions');
    expect(live.value.find((s) => s.resource === "me/mailFolders('inbox')/messages")?.id).toBe(sub.id);
    expect(live.value.map((s) => s.resource).sort()).toEqual(["me/mailFolders('inbox')/messages", "me/mailFolders('sentitems')/messages"]);
  });
});

describe('poll', () => {
  it('--once prints the unread messages of the newest page', async () => {
    const subject = `Once ${Date.now()}`;
    await deliver(subject);
    const out = await cli(['poll', '--once']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(subject);
  });

  it('prints a message that arrives while it watches, and nothing that was there before', async () => {
    const before = `Before ${Date.now()}`;
    await deliver(before);
    const subject = `Arrived ${Date.now()}`;
    let started!: () => void;
    const watching = new Promise<void>((resolve) => (started = resolve));
    const running = cli(['poll', '--interval', '1', '--count', '1', '--json'], {
      signal: AbortSignal.timeout(20_000),
      onStderr: (text) => {
        if (text.startsWith('watching')) started();
      },
    });
    await watching;
    await deliver(subject);
    const out = await running;
    expect(out.code).toBe(0);
    const lines = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { subject: string });
    expect(lines.map((m) => m.subject)).toEqual([subject]);
  });

  it('a failing check is reported and tried again, not the end of the watch', async () => {
    const subject = `After outage ${Date.now()}`;
    let started!: () => void;
    const watching = new Promise<void>((resolve) => (started = resolve));
    const running = cli(['poll', '--interval', '1', '--count', '1'], {
      signal: AbortSignal.timeout(20_000),
      onStderr: (text) => {
        if (text.startsWith('watching')) started();
      },
    });
    await watching;
    await writer.standin('POST', '/faults', { status: 500, pathPrefix: '/v1.0/me', count: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await deliver(subject);
    const out = await running;
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/check failed \(trying again in 1 s\)/);
    expect(out.stdout).toContain(subject);
  });

  it('Ctrl-C (the abort signal) ends the watch cleanly: exit 0', async () => {
    const stop = new AbortController();
    const started = Date.now();
    const out = await cli(['poll', '--interval', '30'], {
      signal: stop.signal,
      onStderr: (text) => {
        if (text.startsWith('watching')) stop.abort();
      },
    });
    expect(out.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('bad arguments are exit 2', async () => {
    for (const argv of [
      ['poll', '--interval', '0'],
      ['poll', '--count', 'x'],
      ['poll', 'inbox'],
    ]) {
      const out = await cli(argv);
      expect(out.code, argv.join(' ')).toBe(2);
    }
  });
});

describe('bad arguments: exit 2 with one line', () => {
  it.each([
    [['create-folder']],
    [['create-folder', 'a', 'b']],
    [['move', 'AAMkAGI2']],
    [['mark-read']],
    [['reply']],
    [['reply', 'AAMkAGI2', '--body', 'x', '--body-file', 'y']],
    [['reply', 'AAMkAGI2', '--body-file', '/no/such/file']],
    [['create-draft', '--for', 'AAMkAGI2', '--subject', 'x']],
    [['subscribe', 'extra']],
    [['init-db', '--remote', '--persist-to', '/tmp/x']],
  ])('%j', async (argv) => {
    const out = await cli(argv);
    expect(out.code).toBe(2);
    expect(oneLine(out.stderr)).toMatch(/^mail: /);
  });
});

describe('Graph failing: exit 1 with one line', () => {
  it.each([
    [['create-folder', 'During outage']],
    [['create-draft', '--subject', 'x']],
    [['move', 'AAMkAGI2', 'archive']],
    [['mark-read', 'AAMkAGI2']],
    [['reply', 'AAMkAGI2', '--body', 'x']],
    [['subscribe']],
    [['poll', '--once']],
  ])('%j', async (argv) => {
    await writer.standin('POST', '/faults', { status: 500, pathPrefix: '/v1.0/' });
    const out = await cli(argv);
    expect(out.code).toBe(1);
    expect(oneLine(out.stderr)).toMatch(/^mail: The mail service failed \(502 graph_unavailable\)/);
  });

  it('one of several failing is reported, the others done', async () => {
    const ok = await deliver('Half of a batch');
    const out = await cli(['mark-read', ok, 'AAMkAGI2bm9uZQ==']);
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split('\n').at(-1)).toMatch(/^mail: 1 of 2 failed; first: /);
    expect((await json<Full>(['read', ok])).isRead).toBe(true);
  });
});
