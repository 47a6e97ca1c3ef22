import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../scripts/mail-cli/commands';
import { ROOT } from '../../scripts/workers';
import { type List, MAIL_URL, cliFor, oneLine } from './helpers';

/** Sign-in, help, and the reading commands, as the reader account. */

const reader = cliFor('reader');
const { cli, json } = reader;

beforeAll(async () => {
  const out = await reader.login();
  if (out.code !== 0) throw new Error(`login: ${out.stderr}`);
  await reader.connect();
}, 60_000);

afterEach(async () => {
  await reader.standin('DELETE', '/faults');
});

/** A message of the inbox that has a PDF attachment (the seed has some). */
async function messageWithAttachment(): Promise<string> {
  const { value } = await reader.standin<{ value: { immutableId: string }[] }>('POST', '/deliver', {
    subject: 'Race card attached',
    attachment: true,
    attachments: [{ name: 'fields.csv', contentType: 'text/csv', contentBytes: btoa('horse,barrier\nFast One,4\n') }],
  });
  return value[0]!.immutableId;
}

describe('help', () => {
  it('npm run mail -- --help runs the real program and lists every command of the spec', () => {
    const run = spawnSync('npm', ['run', '--silent', 'mail', '--', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    const spec =
      'login me inbox folders mail read search unread paginate attachments extract-text list-attachments init-db create-draft update-draft send-draft create-folder move mark-read summarise classify extract reply llm-summarise llm-classify llm-kv-extract llm-reply-draft poll subscribe dashboard list-emails web logout'.split(
        ' ',
      );
    for (const name of spec) expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    // and those added since: the rules that act, senders in bulk, replies tracked wherever they are sent
    expect(COMMANDS.map((c) => c.name).sort()).toEqual([...spec, 'rules', 'senders', 'unsubscribe', 'awaiting', 'follow-up'].sort());
  });

  it.each(COMMANDS.map((c) => c.name))('%s --help: usage, options and an example, exit 0', async (name) => {
    const out = await cli([name, '--help']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Usage: npm run mail -- ${name}`);
    expect(out.stdout).toMatch(/Example:\n {2}npm run mail -- \S+/);
    expect(out.stderr).toBe('');
  });

  it('no command prints the help and exits 2; an unknown one is a usage error', async () => {
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('Commands:');
    const unknown = await cli(['fly']);
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown.stderr)).toContain('Unknown command "fly"');
  });
});

describe('bad arguments: exit 2 with one line', () => {
  it.each([
    [['inbox', '--top', '0']],
    [['inbox', '--top', 'lots']],
    [['inbox', '--bogus']],
    [['inbox', 'extra']],
    [['mail']],
    [['read']],
    [['read', 'a', 'b']],
    [['search']],
    [['unread', '--top', '-3']],
    [['paginate', '--page-size', '101']],
    [['list-attachments']],
    [['attachments']],
    [['extract-text']],
    [['folders', '--url', 'not a url']],
  ])('%j', async (argv) => {
    const out = await cli(argv);
    expect(out.code).toBe(2);
    expect(oneLine(out.stderr)).toMatch(/^mail: /);
    expect(out.stdout).toBe('');
  });

  it('a message id the service refuses is exit 2 naming the field', async () => {
    const out = await cli(['read', 'not an id!']);
    expect(out.code).toBe(2);
    expect(oneLine(out.stderr)).toContain('message_id');
  });
});

describe('login and logout', () => {
  it('login keeps the session in a file only its owner can read', () => {
    const mode = statSync(reader.sessionFile).mode & 0o777;
    expect(mode).toBe(0o600);
    expect(statSync(join(reader.dir, 'config', 'racing-mail')).mode & 0o077).toBe(0);
    const stored = reader.session();
    expect(stored.url).toBe(MAIL_URL);
    expect(stored.cookie).toMatch(/^mail_session=/);
  });

  it('a wrong password or code is refused: exit 3, the service’s reason, no session file', async () => {
    const other = cliFor('reader');
    const wrongPassword = await other.cli(['login'], {
      env: { MAIL_EMAIL: other.account.email, MAIL_PASSWORD: 'not-the-password', MAIL_CODE: '000000' },
    });
    expect(wrongPassword.code).toBe(3);
    expect(oneLine(wrongPassword.stderr)).toMatch(/Sign-in refused \(e-mail and password\)/);
    const wrongCode = await other.cli(['login'], {
      env: { MAIL_EMAIL: other.account.email, MAIL_PASSWORD: other.account.password, MAIL_CODE: '000000' },
    });
    expect(wrongCode.code).toBe(3);
    expect(oneLine(wrongCode.stderr)).toMatch(/Sign-in refused \(code\)/);
    expect(existsSync(other.sessionFile)).toBe(false);
  });

  it('login reads what the environment lacks from stdin, one line each', async () => {
    const other = cliFor('reader');
    const out = await other.cli(['login', '--json'], { stdin: `${other.account.email}\n${other.account.password}\n${other.nextCode()}\n` });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ signedIn: true, email: other.account.email });
    const missing = await cliFor('reader').cli(['login'], { stdin: '' });
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toContain('E-mail is required');
  });

  it('login to a service that is not there: exit 1, one line', async () => {
    const out = await cliFor('reader').cli(['login', '--url', 'http://127.0.0.1:9'], {
      env: { MAIL_EMAIL: 'a@example.com', MAIL_PASSWORD: 'x', MAIL_CODE: '123456' },
    });
    expect(out.code).toBe(1);
    expect(oneLine(out.stderr)).toContain('Cannot reach the mail service at http://127.0.0.1:9');
  });

  it('logout ends the session at the service at once and deletes the file', async () => {
    const other = cliFor('reader');
    expect((await other.login()).code).toBe(0);
    const { cookie } = other.session();
    const out = await other.cli(['logout']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Signed out');
    expect(existsSync(other.sessionFile)).toBe(false);
    // The old cookie no longer opens anything.
    const res = await fetch(`${MAIL_URL}/api/folders`, { headers: { cookie } });
    expect(res.status).toBe(401);
    const again = await other.cli(['logout']);
    expect(again.code).toBe(3);
  });
});

describe('not signed in: exit 3 with one line, for every command that calls the service', () => {
  const signedOut = cliFor('reader');
  const calls: string[][] = [
    ['me'],
    ['folders'],
    ['inbox'],
    ['mail', 'archive'],
    ['read', 'AAMkAGI2'],
    ['search', 'word'],
    ['unread'],
    ['paginate'],
    ['list-attachments', 'AAMkAGI2'],
    ['attachments', 'AAMkAGI2', '--out', tmpdir()],
    ['extract-text', 'AAMkAGI2'],
    ['create-draft', '--subject', 's'],
    ['update-draft', 'AAMkAGI2', '--body', 'x'],
    ['send-draft', 'AAMkAGI2'],
    ['create-folder', 'F'],
    ['move', 'AAMkAGI2', 'archive'],
    ['mark-read', 'AAMkAGI2'],
    ['reply', 'AAMkAGI2', '--body', 'x'],
    ['summarise', 'AAMkAGI2'],
    ['classify', 'AAMkAGI2'],
    ['extract', 'AAMkAGI2'],
    ['llm-summarise', 'text'],
    ['llm-classify', 'text'],
    ['llm-kv-extract', 'text'],
    ['llm-reply-draft', 'text'],
    ['poll', '--once'],
    ['subscribe'],
    ['dashboard'],
    ['list-emails'],
    ['rules'],
    ['rules', 'test'],
    ['senders'],
    ['unsubscribe', 'news@list.test'],
    ['awaiting'],
    ['follow-up'],
    ['follow-up', '--days', '4'],
    ['logout'],
  ];
  it.each(calls)('%s (no session file)', async (...argv) => {
    const out = await signedOut.cli(argv);
    expect(out.code).toBe(3);
    expect(oneLine(out.stderr)).toMatch(/Not signed in/);
  });

  it('a session the service no longer knows is exit 3 too', async () => {
    const stale = cliFor('reader');
    writeFileSync(
      join(stale.dir, 'stale.json'),
      JSON.stringify({ url: MAIL_URL, cookie: `mail_session=${'A'.repeat(43)}`, csrf: 'x', email: 'x@example.com' }),
    );
    for (const argv of [['inbox'], ['create-folder', 'X'], ['me']]) {
      const out = await stale.cli([...argv, '--session-file', join(stale.dir, 'stale.json')]);
      expect(out.code, argv.join(' ')).toBe(3);
      expect(oneLine(out.stderr)).toContain('Not signed in');
    }
  });

  it('a session of another address is not sent there', async () => {
    const out = await cli(['inbox', '--url', 'http://127.0.0.1:9']);
    expect(out.code).toBe(3);
    expect(oneLine(out.stderr)).toContain(`Signed in at ${MAIL_URL}`);
  });
});

describe('reading the mailbox', () => {
  it('me names the user and the mailbox', async () => {
    const me = await json<{ user: { email: string }; mailbox: { mail: string } }>(['me']);
    expect(me.user.email).toBe(reader.account.email);
    expect(me.mailbox.mail).toBe(reader.account.email);
    const text = await cli(['me']);
    expect(text.stdout).toContain(`<${reader.account.email}>`);
  });

  it('folders lists them with counts', async () => {
    const folders = await json<{ name: string; wellKnown: string | null; unread: number }[]>(['folders']);
    expect(folders.map((f) => f.wellKnown)).toEqual(expect.arrayContaining(['inbox', 'sentitems', 'drafts', 'archive']));
    expect((await cli(['folders'])).stdout).toMatch(/Inbox\s+\d+ unread\s+\d+ total/);
  });

  it('inbox, mail <folder>, --top, --skip and --next page the list', async () => {
    const first = await json<List>(['inbox', '--top', '3']);
    expect(first.items).toHaveLength(3);
    expect(first.next).toBeTruthy();
    const second = await json<List>(['inbox', '--top', '3', '--next', first.next!]);
    expect(second.items.map((m) => m.id)).not.toContain(first.items[0]!.id);
    const skipped = await json<List>(['inbox', '--top', '3', '--skip', '3']);
    expect(skipped.items.map((m) => m.id)).toEqual(second.items.map((m) => m.id));
    const sent = await json<List>(['mail', 'sentitems', '--top', '2']);
    expect(sent.folder.name).toBe('Sent Items');
    const text = await cli(['inbox', '--top', '2']);
    expect(text.stdout).toContain(first.items[0]!.subject);
    expect(text.stdout).toContain(first.items[0]!.id);
  });

  it('read prints the headers and the body as text', async () => {
    const { items } = await json<List>(['inbox', '--top', '1']);
    const out = await cli(['read', items[0]!.id]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Subject: ${items[0]!.subject}`);
    expect(out.stdout).toMatch(/^From: {4}.+$/m);
    expect(out.stdout).not.toMatch(/<(div|p|br|html)\b/i);
    const full = await json<{ text: string; body: { content: string } }>(['read', items[0]!.id]);
    expect(full.text.length).toBeGreaterThan(0);
  });

  it('search finds messages by a word of the subject', async () => {
    const { items } = await json<List>(['inbox', '--top', '10']);
    const word = items.map((m) => m.subject.split(/\s+/).find((w) => /^[A-Za-z]{5,}$/.test(w))).find(Boolean)!;
    const found = await json<List>(['search', word, '--top', '50']);
    expect(found.items.length).toBeGreaterThan(0);
    expect(found.items.some((m) => m.subject.includes(word))).toBe(true);
  });

  it('unread lists only unread messages, at most --top', async () => {
    const unread = await json<{ items: { isRead: boolean }[] }>(['unread', '--top', '4']);
    expect(unread.items.length).toBeGreaterThan(0);
    expect(unread.items.length).toBeLessThanOrEqual(4);
    expect(unread.items.every((m) => !m.isRead)).toBe(true);
  });

  it('paginate walks every page with progress on stderr', async () => {
    const folder = await json<List>(['mail', 'sentitems', '--top', '1']);
    const out = await cli(['paginate', '--folder', 'sentitems', '--page-size', '5', '--json']);
    expect(out.code).toBe(0);
    const all = JSON.parse(out.stdout) as { id: string }[];
    expect(all.length).toBe(folder.folder.total);
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    expect(out.stderr).toMatch(/^page 1: 5 of \d+ messages$/m);
    expect(out.stderr.trim().split('\n').length).toBe(Math.ceil(all.length / 5));
    const capped = await json<unknown[]>(['paginate', '--page-size', '4', '--max', '6']);
    expect(capped).toHaveLength(6);
  });

  it('list-attachments, attachments --out and extract-text', async () => {
    const id = await messageWithAttachment();
    const list = await json<{ id: string; name: string; contentType: string }[]>(['list-attachments', id]);
    expect(list.map((a) => a.contentType)).toEqual(expect.arrayContaining(['application/pdf', 'text/csv']));

    const out = mkdtempSync(join(tmpdir(), 'mail-cli-out-'));
    const download = await cli(['attachments', id, '--out', join(out, 'new')]);
    expect(download.code).toBe(0);
    expect(readdirSync(join(out, 'new')).sort()).toEqual(list.map((a) => a.name).sort());
    expect(readFileSync(join(out, 'new', 'fields.csv'), 'utf8')).toBe('horse,barrier\nFast One,4\n');
    expect(
      readFileSync(join(out, 'new', list.find((a) => a.contentType === 'application/pdf')!.name))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(download.stderr).toMatch(/downloading 1\/2 /);
    // No overwrite without --force; then only the one named.
    const again = await cli(['attachments', id, '--out', join(out, 'new')]);
    expect(again.code).toBe(1);
    expect(oneLine(again.stderr)).toContain('exists (use --force');
    expect((await cli(['attachments', id, '--out', join(out, 'new'), '--name', 'fields.csv', '--force'])).code).toBe(0);
    const none = await cli(['attachments', id, '--name', 'nothing.txt']);
    expect(none.code).toBe(1);
    expect(oneLine(none.stderr)).toContain('no attachment named "nothing.txt"');

    const texts = await json<{ name: string; kind: string; text: string }[]>(['extract-text', id]);
    expect(texts.find((t) => t.kind === 'text')!.text).toBe('horse,barrier\nFast One,4\n');
    expect(texts.find((t) => t.kind === 'pdf')!.text.length).toBeGreaterThan(10);
    const one = await cli(['extract-text', id, '--attachment', list.find((a) => a.name === 'fields.csv')!.id]);
    expect(one.stdout).toContain('== fields.csv (text) ==');
  });
});

describe('Graph failing: exit 1 with one line', () => {
  it.each([
    [['me']],
    [['folders']],
    [['inbox']],
    [['search', 'x']],
    [['unread']],
    [['paginate']],
    [['read', 'AAMkAGI2']],
    [['list-attachments', 'AAMkAGI2']],
    [['extract-text', 'AAMkAGI2']],
  ])('%j', async (argv) => {
    await reader.standin('POST', '/faults', { status: 500, pathPrefix: '/v1.0/me' });
    const out = await cli(argv);
    expect(out.code).toBe(1);
    expect(oneLine(out.stderr)).toMatch(/^mail: The mail service failed \(502 graph_unavailable\)/);
  });

  it('a message Graph does not have is exit 1 (not found)', async () => {
    const out = await cli(['read', 'AAMkAGI2bm9uZQ==']);
    expect(out.code).toBe(1);
    expect(oneLine(out.stderr)).toContain('404 not_found');
  });
});
