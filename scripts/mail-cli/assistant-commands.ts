import { htmlToText } from '../../workers/mail/src/attachment-text.ts';
import type { MessageView } from '../../workers/mail/src/mail-views.ts';
import { enc, str, flag, int, who, inputText, targetIds, each, TARGETS, KEY_OPTION, keys, FILE_OPTION, type Command } from './command.ts';

/** The assistant's work: summaries, categories, extracted facts, the model on any text, and what it has stored. */

export const ASSISTANT_COMMANDS: Command[] = [
  {
    name: 'summarise',
    summary: 'Summarise messages and keep the summaries (POST /api/save-summary-direct)',
    ...TARGETS,
    examples: ['summarise <message_id>', 'summarise --folder inbox --top 20'],
    async run(ctx) {
      const ids = await targetIds(ctx);
      const done = await each(ctx, ids, 'summarising', (id) =>
        ctx.client.post<{ message_id: string; summary: string; category?: string; generated_by?: string }>('/api/save-summary-direct', {
          message_id: id,
        }),
      );
      ctx.print(done, (list) =>
        list.map((s) => `${s.message_id}\n  [${s.category ?? 'unknown'}] ${s.summary}${madeBy(s.generated_by)}`).join('\n'),
      );
    },
  },
  {
    name: 'classify',
    summary: 'Categorise messages by the category rules and store the category',
    ...TARGETS,
    examples: ['classify <message_id>', 'classify --folder inbox --top 50'],
    async run(ctx) {
      const ids = await targetIds(ctx);
      const done = await each(ctx, ids, 'classifying', (id) =>
        ctx.client.post<{ message_id: string; category: string; generated_by?: string; trace_id: string }>(
          `/api/email/${enc(id)}/classify`,
        ),
      );
      ctx.print(done, (list) => list.map((c) => `${c.category.padEnd(20)} ${c.message_id}${madeBy(c.generated_by)}`).join('\n'));
    },
  },
  {
    name: 'extract',
    summary: 'Key-value facts of a message (its text through the extraction prompt)',
    usage: '<message_id> [--key name]…',
    args: [1, 1],
    options: { key: KEY_OPTION },
    examples: ['extract <message_id>', 'extract <message_id> --key trainer --key race --json'],
    async run(ctx) {
      const m = await ctx.client.get<MessageView>(`/api/email/${enc(ctx.args[0]!)}`);
      const text = `Subject: ${m.subject}\nFrom: ${who(m.from)}\n\n${m.body.contentType.toLowerCase() === 'html' ? htmlToText(m.body.content) : m.body.content}`;
      const answer = await ctx.client.post<{ values: Record<string, string>; generated_by?: string; trace_id: string }>(
        '/api/llm/kv-extract',
        {
          text: text.slice(0, 100_000),
          ...keys(ctx),
        },
      );
      ctx.print({ message_id: m.id, ...answer }, kvText);
    },
  },
  {
    name: 'llm-summarise',
    summary: 'Summarise a text with the model (nothing stored but the trace)',
    usage: '[text] [--file f]',
    args: [0, 1],
    options: { file: FILE_OPTION },
    examples: [
      'llm-summarise "Fast One will run at Flemington on Saturday…"',
      'llm-summarise --file note.txt',
      'cat note.txt | npm run mail -- llm-summarise',
    ],
    async run(ctx) {
      const answer = await ctx.client.post<{ summary: string; bullets: string[]; generated_by?: string; trace_id: string }>(
        '/api/llm/summarise',
        {
          text: await inputText(ctx),
        },
      );
      ctx.print(answer, (d) => `${d.summary}\n${d.bullets.map((b) => `  - ${b}`).join('\n')}\n(${by(d)}trace ${d.trace_id})`);
    },
  },
  {
    name: 'llm-classify',
    summary: 'The category the model gives a text (one of yours, or unknown)',
    usage: '[text] [--file f]',
    args: [0, 1],
    options: { file: FILE_OPTION },
    examples: ['llm-classify "Please confirm the nomination for race 4"'],
    async run(ctx) {
      const answer = await ctx.client.post<{ category: string; generated_by?: string; trace_id: string }>('/api/llm/classify', {
        text: await inputText(ctx),
      });
      ctx.print(answer, (d) => `${d.category}\n(${by(d)}trace ${d.trace_id})`);
    },
  },
  {
    name: 'llm-kv-extract',
    summary: 'Key-value facts of a text',
    usage: '[text] [--file f] [--key name]…',
    args: [0, 1],
    options: { file: FILE_OPTION, key: KEY_OPTION },
    examples: ['llm-kv-extract --file nomination.txt --json', 'llm-kv-extract "Trainer: Jane Doe. Race: 4" --key trainer'],
    async run(ctx) {
      const answer = await ctx.client.post<{ values: Record<string, string>; generated_by?: string; trace_id: string }>(
        '/api/llm/kv-extract',
        {
          text: await inputText(ctx),
          ...keys(ctx),
        },
      );
      ctx.print(answer, kvText);
    },
  },
  {
    name: 'llm-reply-draft',
    summary: 'A reply the model writes to a text (no draft is made in the mailbox)',
    usage: '[text] [--file f] [--category name]',
    args: [0, 1],
    options: { file: FILE_OPTION, category: { type: 'string', description: 'Draft with this category’s reply prompt', argument: 'name' } },
    examples: ['llm-reply-draft "Can the float leave at 5am?" --category Logistics'],
    async run(ctx) {
      const category = str(ctx, 'category');
      const answer = await ctx.client.post<{ body: string; generated_by?: string; trace_id: string }>('/api/llm/reply-draft', {
        text: await inputText(ctx),
        ...(category ? { category } : {}),
      });
      ctx.print(answer, (d) => `${d.body}\n(${by(d)}trace ${d.trace_id})`);
    },
  },
];

export const STORE_COMMANDS: Command[] = [
  {
    name: 'dashboard',
    summary: 'The metrics of the /dashboard page',
    usage: '',
    examples: ['dashboard', 'dashboard --json'],
    async run(ctx) {
      const metrics = await ctx.client.get<Record<string, unknown>>('/api/dashboard');
      ctx.print(metrics, (d) => flatten(d).join('\n'));
    },
  },
  {
    name: 'list-emails',
    summary: 'Stored email summaries (the document store), paged and filtered',
    usage: '[--search text] [--direction d] [--category c] [--pinned] [--needs-reply] [--page n] [--page-size n]',
    options: {
      pinned: { type: 'boolean', description: 'Only pinned summaries' },
      'needs-reply': { type: 'boolean', description: 'Only e-mails that await your reply' },
      search: { type: 'string', description: 'Words in the subject, sender or summary', argument: 'text' },
      direction: { type: 'string', description: 'inbound or outbound', argument: 'd' },
      category: { type: 'string', description: 'Only this category', argument: 'name' },
      page: { type: 'string', description: 'Page, from 1', argument: 'n' },
      'page-size': { type: 'string', description: 'Per page, 1–100', argument: 'n' },
    },
    examples: ['list-emails --category Nominations', 'list-emails --search Flemington --page 2 --json'],
    async run(ctx) {
      const params = {
        search: str(ctx, 'search'),
        direction: str(ctx, 'direction'),
        category: str(ctx, 'category'),
        pinned: flag(ctx, 'pinned') ? 'true' : undefined,
        needs_reply: flag(ctx, 'needs-reply') ? 'true' : undefined,
        page: str(ctx, 'page') === undefined ? undefined : int(ctx, 'page', 1, 1, 100_000),
        page_size: str(ctx, 'page-size') === undefined ? undefined : int(ctx, 'page-size', 20, 1, 100),
      };
      const query = Object.entries(params)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${enc(String(v))}`)
        .join('&');
      const answer = await ctx.client.get<{ items: Record<string, unknown>[]; page: number; page_size: number; total: number }>(
        `/api/docdb/email_summaries${query ? `?${query}` : ''}`,
      );
      ctx.print(answer, (d) =>
        [
          `${d.total} summaries, page ${d.page} (${d.page_size} a page)`,
          ...d.items.map(
            (s) =>
              `${s.pinned ? '📌 ' : ''}[${String(s.category ?? 'unknown')}] ${String(s.subject ?? '')}\n  ${String(s.summary ?? '').slice(0, 200)}\n  ${String(s.message_id ?? '')}`,
          ),
        ].join('\n'),
      );
    },
  },
];

/** What made an answer, as the service names it ("template reply", "keyword category", "AI reply (<model>)"). */
const by = (d: { generated_by?: string }) => (d.generated_by ? `${d.generated_by}; ` : '');
const madeBy = (generatedBy?: string) => (generatedBy ? ` (${generatedBy})` : '');

function kvText(d: { values: Record<string, string>; generated_by?: string; trace_id: string }): string {
  const entries = Object.entries(d.values);
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  return `${entries.length ? entries.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') : '(nothing found)'}\n(${by(d)}trace ${d.trace_id})`;
}

/** Nested metrics as `a.b: value` lines. */
function flatten(value: unknown, prefix = ''): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
  if (Array.isArray(value))
    return value.length && typeof value[0] === 'object'
      ? value.flatMap((v, i) => flatten(v, `${prefix}[${i}]`))
      : [`${prefix}: ${value.join(', ')}`];
  return [`${prefix}: ${String(value)}`];
}
