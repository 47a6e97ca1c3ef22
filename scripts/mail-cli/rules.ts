import { CliError, EXIT, usageError } from './client.ts';
import type { Command, Context } from './command.ts';

/**
 * `rules`: what each category does to new mail (GET/PUT /api/rules), tried before it is trusted
 * (`rules test`: POST /api/rules/test, acting on nothing) and applied to existing mail
 * (`rules apply`: POST /api/rules/apply, a background job).
 */

type Action = { type: string; folder?: string; categories?: string[]; color?: string; to?: string[]; comment?: string };
type Rules = { category: string; reply_mode: string; actions: Action[] };
type TestItem = {
  message_id: string;
  subject: string;
  from: string;
  category: string;
  reason: string | null;
  actions: { description: string }[];
};
type Job = { job_id: string; status: string; total: number; done: number; changed: number; error: string | null };

const TYPES = ['move', 'archive', 'mark_read', 'flag', 'categorize', 'forward_draft', 'draft_reply'];

/** `type[:value]` as the API's action: `move:Bookings`, `categorize:Finance,Paid later`, `forward_draft:a@x.test,b@x.test`. */
function parseAction(text: string): Action {
  const at = text.indexOf(':');
  const type = (at < 0 ? text : text.slice(0, at)).trim();
  const value = at < 0 ? '' : text.slice(at + 1).trim();
  const list = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (!TYPES.includes(type)) throw usageError(`unknown action "${type}": one of ${TYPES.join(', ')}`);
  if (type === 'move') return { type, folder: value };
  if (type === 'categorize') return { type, categories: list };
  if (type === 'forward_draft') return { type, to: list };
  return { type };
}

const actionText = (a: Action) =>
  a.type === 'move'
    ? `move:${a.folder}`
    : a.type === 'categorize'
      ? `categorize:${a.categories?.join(',')}`
      : a.type === 'forward_draft'
        ? `forward_draft:${a.to?.join(',')}`
        : a.type;

const rulesText = (items: Rules[]) =>
  items.length
    ? items
        .map(
          (r) =>
            `${r.category} (replies: ${r.reply_mode})\n${r.actions.length ? r.actions.map((a, i) => `  ${i + 1}. ${actionText(a)}`).join('\n') : '  (no actions)'}`,
        )
        .join('\n')
    : '(no categories)';

const testText = (d: { folder: string; items: TestItem[]; trace_id: string }) =>
  `${
    d.items
      .map(
        (i) =>
          `${i.subject || '(no subject)'} — ${i.from || '(nobody)'}\n  category: ${i.category}${i.reason ? ` (why: ${i.reason})` : ''}\n  would: ${
            i.actions.length ? i.actions.map((a) => a.description).join('; ') : 'nothing'
          }\n  ${i.message_id}`,
      )
      .join('\n') || '(no messages)'
  }\n(nothing was changed; trace ${d.trace_id})`;

const jobText = (j: Job) =>
  `${j.job_id}: ${j.status}, ${j.done} of ${j.total} messages, ${j.changed} acted on${j.error ? ` — ${j.error}` : ''}`;

function folderAndTop(ctx: Context, fallback: number, max: number) {
  const folder = typeof ctx.values.folder === 'string' ? ctx.values.folder : 'inbox';
  const raw = ctx.values.top;
  const top = typeof raw === 'string' ? Number(raw) : fallback;
  if (!Number.isInteger(top) || top < 1 || top > max)
    throw usageError(`--top must be a whole number from 1 to ${max}, not "${String(raw)}"`);
  return { folder, count: top };
}

export const rulesCommand: Command = {
  name: 'rules',
  summary: 'Each category’s actions on new mail: list, set, test (acting on nothing), apply to existing mail',
  usage: '[set <category> [action…] | test [--folder f] [--top n] | apply [--folder f] [--top n] [--wait]]',
  details: [
    'Actions: move:<folder>, archive, mark_read, flag, categorize:<name>[,<name>…] (Outlook categories),',
    'forward_draft:<address>[,<address>…] (a forward left in Drafts), draft_reply. Nothing is ever sent.',
    '`rules set <category>` with no action clears the category’s actions.',
  ],
  args: [0, 12],
  options: {
    folder: { type: 'string', description: 'test/apply: the folder (default inbox)', argument: 'folder' },
    top: {
      type: 'string',
      description: 'test/apply: how many of the newest (test 1–25, default 10; apply 1–200, default 50)',
      argument: 'n',
    },
    wait: { type: 'boolean', description: 'apply: wait for the job to finish, printing its progress' },
  },
  examples: [
    'rules',
    'rules set Invoices categorize:Finance mark_read move:Invoices',
    'rules test --folder inbox --top 10',
    'rules apply --top 50 --wait',
  ],
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    if (sub === undefined) {
      const answer = await ctx.client.get<{ items: Rules[] }>('/api/rules');
      return ctx.print(answer.items, rulesText);
    }
    if (sub === 'set') {
      const [category, ...actions] = rest;
      if (!category) throw usageError('rules set needs the category');
      const saved = await ctx.client.call<Rules>('PUT', `/api/rules/${encodeURIComponent(category)}`, {
        actions: actions.map(parseAction),
      });
      return ctx.print([saved], rulesText);
    }
    if (rest.length) throw usageError(`rules ${sub} takes no arguments, only options`);
    if (sub === 'test') {
      const body = folderAndTop(ctx, 10, 25);
      // signed in first: a session that is missing is the only line on stderr
      void ctx.client.session;
      ctx.progress(`testing the rules on the newest ${body.count} of ${body.folder} (acting on nothing)…`);
      return ctx.print(await ctx.client.post<{ folder: string; items: TestItem[]; trace_id: string }>('/api/rules/test', body), testText);
    }
    if (sub === 'apply') {
      const started = await ctx.client.post<{ job_id: string; total: number }>('/api/rules/apply', folderAndTop(ctx, 50, 200));
      if (ctx.values.wait !== true) return ctx.print(started, (s) => `job ${s.job_id} started over ${s.total} messages`);
      for (;;) {
        const job = await ctx.client.get<Job>(`/api/admin/jobs/${encodeURIComponent(started.job_id)}`);
        if (!['queued', 'running'].includes(job.status)) {
          if (job.status !== 'done') throw new CliError(jobText(job), EXIT.failed);
          return ctx.print(job, jobText);
        }
        ctx.progress(jobText(job));
        if (ctx.io.signal?.aborted) return ctx.print(job, jobText);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    throw usageError(`unknown rules command "${sub}": set, test or apply`);
  },
};
