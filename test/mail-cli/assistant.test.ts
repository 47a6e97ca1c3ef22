import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type List, cliFor, oneLine } from './helpers';

/** The assistant's commands over the /api/llm/* routes (the offline model), as the assistant account. */

const assistant = cliFor('assistant');
const { cli, json } = assistant;

const NOTE = `From: Jane Trainer <jane@stables.test>
Subject: Entries for Saturday

Hi team. Please enter Silver Arrow in race 4 at Flemington on Saturday. The jockey will be J. Smith.
Trainer: Jane Doe
Race: 4
Venue: Flemington`;

beforeAll(async () => {
  const out = await assistant.login();
  if (out.code !== 0) throw new Error(`login: ${out.stderr}`);
  await assistant.connect();
}, 60_000);

afterEach(async () => {
  await assistant.standin('DELETE', '/faults');
});

describe('the model on a text', () => {
  it('llm-summarise: from an argument, a file or stdin', async () => {
    const answer = await json<{ summary: string; bullets: string[]; trace_id: string }>(['llm-summarise', NOTE]);
    expect(answer.summary).toContain('Silver Arrow');
    expect(answer.trace_id).toMatch(/^tr_/);
    const piped = await cli(['llm-summarise'], { stdin: NOTE });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('Silver Arrow');
    expect(piped.stdout).toMatch(/\(first-sentences summary; trace tr_\S+\)/);
  });

  it('llm-classify answers one of the user’s categories or unknown', async () => {
    const answer = await json<{ category: string; generated_by: string }>(['llm-classify', NOTE]);
    expect(answer).toMatchObject({ category: 'unknown', generated_by: 'keyword category' });
    // the offline model's output is named for what it is, never AI
    const text = await cli(['llm-classify', NOTE]);
    expect(text.stdout).toMatch(/^\(keyword category; trace tr_\S+\)$/m);
    expect(text.stdout).not.toMatch(/\bAI\b/);
  });

  it('llm-kv-extract: every key-value fact, or only the keys asked for', async () => {
    const all = await json<{ values: Record<string, string> }>(['llm-kv-extract', NOTE]);
    expect(all.values).toMatchObject({ trainer: 'Jane Doe', race: '4', venue: 'Flemington' });
    const some = await json<{ values: Record<string, string> }>(['llm-kv-extract', NOTE, '--key', 'venue']);
    expect(some.values).toEqual({ venue: 'Flemington' });
    const text = await cli(['llm-kv-extract', NOTE, '--key', 'trainer,race']);
    expect(text.stdout).toMatch(/^trainer\s+Jane Doe$/m);
  });

  it('llm-reply-draft writes a reply (no draft in the mailbox)', async () => {
    const drafts = (await json<List>(['mail', 'drafts', '--top', '1'])).folder.total;
    const answer = await json<{ body: string }>(['llm-reply-draft', NOTE, '--category', 'Entries']);
    expect(answer.body).toMatch(/^Hello Jane,/);
    expect((await json<List>(['mail', 'drafts', '--top', '1'])).folder.total).toBe(drafts);
    const text = await cli(['llm-reply-draft', NOTE, '--category', 'Entries']);
    expect(text.stdout).toMatch(/^\(template reply; trace tr_\S+\)$/m);
  });

  it('extract reads a message of the mailbox and extracts its facts', async () => {
    const { value } = await assistant.standin<{ value: { immutableId: string }[] }>('POST', '/deliver', {
      subject: 'Entries',
      body: 'Trainer: Jane Doe\nRace: 4\nVenue: Flemington',
      from: { name: 'Jane Trainer', address: 'jane@stables.test' },
    });
    const answer = await json<{ message_id: string; values: Record<string, string> }>(['extract', value[0]!.immutableId, '--key', 'venue']);
    expect(answer).toMatchObject({ message_id: value[0]!.immutableId, values: { venue: 'Flemington' } });
  });
});

describe('summaries, categories, drafts and the dashboard (the assistant over the mailbox)', () => {
  type Stored = { message_id: string; summary: string; category: string; trace_id: string };

  async function entries(subject: string): Promise<string> {
    const { value } = await assistant.standin<{ value: { immutableId: string }[] }>('POST', '/deliver', {
      subject,
      body: 'Hi team. Please enter Silver Arrow in race 4 at Flemington on Saturday.\nTrainer: Jane Doe\nRace: 4',
      from: { name: 'Jane Trainer', address: 'jane@stables.test' },
    });
    return value[0]!.immutableId;
  }

  it('summarise one message, then the newest of a folder with progress; list-emails finds them', async () => {
    const subject = `Entries summarised ${Date.now()}`;
    const id = await entries(subject);
    const [one] = await json<Stored[]>(['summarise', id]);
    expect(one).toMatchObject({ message_id: id });
    expect(one!.summary).toContain('Silver Arrow');
    const many = await cli(['summarise', '--folder', 'inbox', '--top', '3']);
    expect(many.code).toBe(0);
    expect(many.stderr).toMatch(/^summarising 3\/3 /m);
    const listed = await json<{ items: { message_id: string; subject: string }[]; total: number }>(['list-emails', '--search', subject]);
    expect(listed.items.map((s) => s.message_id)).toEqual([id]);
    const text = await cli(['list-emails', '--search', subject]);
    expect(text.stdout).toMatch(/^1 summaries, page 1/);
    expect(text.stdout).toContain(subject);
  });

  it('classify stores a category for each message', async () => {
    const id = await entries(`Entries classified ${Date.now()}`);
    const [answer] = await json<{ message_id: string; category: string; trace_id: string }[]>(['classify', id]);
    expect(answer).toMatchObject({ message_id: id, category: 'unknown', generated_by: 'keyword category' });
    expect(answer!.trace_id).toMatch(/^tr_/);
    expect((await cli(['classify', id])).stdout).toContain(`${id} (keyword category)`);
  });

  it('create-draft --for makes the reply draft; update-draft changes it; send-draft sends it once', async () => {
    const id = await entries(`Entries drafted ${Date.now()}`);
    const draft = await json<{ draft_id: string; body_html: string; reused: boolean; no_reply: boolean }>(['create-draft', '--for', id]);
    expect(draft.no_reply).toBe(false);
    expect(draft.draft_id).toBeTruthy();
    const again = await cli(['create-draft', '--for', id]);
    expect(again.stdout).toContain(`Existing reply draft ${draft.draft_id}: template reply`);
    expect((await cli(['update-draft', draft.draft_id, '--text', '--body', 'Entered: barrier draw Thursday.'])).code).toBe(0);
    const edited = await json<{ text: string; isDraft: boolean }>(['read', draft.draft_id]);
    expect(edited.isDraft).toBe(true);
    expect(edited.text).toContain('Entered: barrier draw Thursday.');
    const sent = await cli(['send-draft', draft.draft_id]);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain(`Draft ${draft.draft_id} sent`);
    const twice = await cli(['send-draft', draft.draft_id]);
    expect(twice.code).toBe(1);
    expect(oneLine(twice.stderr)).toContain('draft_sent');
    const unknown = await cli(['update-draft', 'AAMkAGI2bm9uZQ==', '--body', '<p>x</p>']);
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toContain('no_draft');
  });

  it('a plain draft: create-draft, update-draft, send-draft', async () => {
    const subject = `Plain draft ${Date.now()}`;
    const draft = await json<{ id: string }>([
      'create-draft',
      '--to',
      'trainer@example.com',
      '--subject',
      subject,
      '--body',
      'First words',
    ]);
    const updated = await cli(['update-draft', draft.id, '--text', '--body', 'Second words']);
    expect(updated.code, updated.stderr).toBe(0);
    const edited = await json<{ text: string; isDraft: boolean }>(['read', draft.id]);
    expect(edited.isDraft).toBe(true);
    expect(edited.text).toContain('Second words');
    expect(edited.text).not.toContain('First words');
    const sent = await cli(['send-draft', draft.id]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain(`Draft ${draft.id} sent`);
  });

  it('dashboard shows the figures of /dashboard', async () => {
    const metrics = await json<{ emails: number; model: string }>(['dashboard']);
    expect(metrics.emails).toBeGreaterThan(0);
    expect(metrics.model).toBe('offline');
    const text = await cli(['dashboard']);
    expect(text.stdout).toMatch(/^emails: \d+$/m);
  });

  it('bad arguments: exit 2', async () => {
    for (const argv of [
      ['summarise'],
      ['classify', '--top', '5'],
      ['update-draft', 'AAMkAGI2'],
      ['send-draft'],
      ['list-emails', '--page', '0'],
      ['dashboard', 'now'],
    ]) {
      const out = await cli(argv);
      expect(out.code, argv.join(' ')).toBe(2);
      expect(oneLine(out.stderr)).toMatch(/^mail: /);
    }
  });

  it('Graph failing: exit 1, one line', async () => {
    await assistant.standin('POST', '/faults', { status: 500, pathPrefix: '/v1.0/me' });
    for (const argv of [
      ['summarise', 'AAMkAGI2'],
      ['classify', 'AAMkAGI2'],
      ['create-draft', '--for', 'AAMkAGI2'],
    ]) {
      const out = await cli(argv);
      expect(out.code, argv.join(' ')).toBe(1);
      expect(oneLine(out.stderr)).toMatch(/502/);
    }
  });
});

describe('error cases', () => {
  it.each([
    [['llm-summarise']],
    [['llm-summarise', 'a', 'b']],
    [['llm-classify', '--file', '/no/such/file']],
    [['llm-kv-extract', 'x', '--file', '/etc/hostname']],
    [['llm-reply-draft', '   ']],
    [['extract']],
  ])('bad arguments %j: exit 2', async (argv) => {
    const out = await cli(argv);
    expect(out.code).toBe(2);
    expect(oneLine(out.stderr)).toMatch(/^mail: /);
  });

  it('input the service refuses is exit 2 naming the field', async () => {
    const out = await cli(['llm-reply-draft', NOTE, '--category', '<bad>']);
    expect(out.code).toBe(2);
    expect(oneLine(out.stderr)).toContain('category');
    const nul = await cli(['llm-summarise', 'a\u0000b']);
    expect(nul.code).toBe(2);
    expect(oneLine(nul.stderr)).toContain('text');
  });

  it('extract with Graph failing: exit 1, one line', async () => {
    await assistant.standin('POST', '/faults', { status: 500, pathPrefix: '/v1.0/me' });
    const out = await cli(['extract', 'AAMkAGI2']);
    expect(out.code).toBe(1);
    expect(oneLine(out.stderr)).toMatch(/The mail service failed \(502 graph_unavailable\)/);
  });

  it('an account that may not use the assistant: exit 1 with the service’s reason', async () => {
    const plain = cliFor('plain');
    expect((await plain.login()).code).toBe(0);
    const out = await plain.cli(['llm-summarise', NOTE]);
    expect(out.code).toBe(1);
    expect(oneLine(out.stderr)).toContain('assistant_not_allowed');
  });
});
