import { CliError, EXIT, usageError } from './client.ts';
import type { Command } from './command.ts';

/**
 * `senders`: who fills the Inbox (GET /api/senders), by volume or by how little is read;
 * `unsubscribe <sender>`: the one action per sender (POST /api/senders/unsubscribe) — the
 * unsubscribe their mail offers, then their Inbox mail archived as a job (`--wait` follows it).
 */

type Rank = { address: string; name: string; messages: number; unread: number; read_share: number };
type Job = {
  job_id: string;
  sender: string;
  method: string;
  outcome: string;
  detail: string;
  status: string;
  archived: number;
  failed: number;
  resumed: number;
  error: string | null;
};

const rankText = (d: { items: Rank[]; scanned: number }) =>
  `${d.items.map((r) => `${String(r.messages).padStart(4)}  ${String(Math.round(r.read_share * 100)).padStart(3)}% read  ${r.address}${r.name && r.name !== r.address ? ` (${r.name})` : ''}`).join('\n') || '(no mail in the Inbox)'}\n(${d.scanned} Inbox messages looked at)`;

const OUTCOMES: Record<string, string> = {
  sent: 'unsubscribed (one-click request accepted)',
  failed: 'the one-click request failed',
  draft: 'an unsubscribe e-mail waits in Drafts: send it yourself',
  shown: 'open the unsubscribe page yourself',
  none: 'their mail offers no way to unsubscribe',
};

const jobText = (j: Job) =>
  `${j.sender}: ${OUTCOMES[j.outcome] ?? j.outcome}${j.detail ? ` — ${j.detail}` : ''}\narchive ${j.job_id}: ${j.status}, ${j.archived} archived${j.failed ? `, ${j.failed} not moved` : ''}${j.resumed ? `, resumed ${j.resumed}×` : ''}${j.error ? ` — ${j.error}` : ''}`;

export const sendersCommand: Command = {
  name: 'senders',
  summary: 'The Inbox’s senders ranked by volume or by how much of their mail is read',
  usage: '[--sort volume|read] [--top n]',
  args: [0, 0],
  options: {
    sort: { type: 'string', description: 'volume (most mail first, the default) or read (least read first)', argument: 'order' },
    top: { type: 'string', description: 'how many senders (1–200, default 25)', argument: 'n' },
  },
  examples: ['senders', 'senders --sort read --top 10'],
  async run(ctx) {
    const sort = typeof ctx.values.sort === 'string' ? ctx.values.sort : 'volume';
    if (sort !== 'volume' && sort !== 'read') throw usageError(`--sort is volume or read, not "${sort}"`);
    const top = typeof ctx.values.top === 'string' ? Number(ctx.values.top) : 25;
    if (!Number.isInteger(top) || top < 1 || top > 200) throw usageError('--top must be a whole number from 1 to 200');
    ctx.print(await ctx.client.get<{ items: Rank[]; scanned: number }>(`/api/senders?sort=${sort}&limit=${top}`), rankText);
  },
};

export const unsubscribeCommand: Command = {
  name: 'unsubscribe',
  summary: 'Unsubscribes from a sender (one-click, else a mailto: draft, else the link) and archives their Inbox mail',
  usage: '<sender address> [--wait]',
  details: ['Nothing is sent but the list’s own one-click request; a mailto: unsubscribe is left in Drafts for you to send.'],
  args: [1, 1],
  options: { wait: { type: 'boolean', description: 'wait for the archive to finish, printing its progress' } },
  examples: ['unsubscribe news@flemingtonrc.example --wait'],
  async run(ctx) {
    const started = await ctx.client.post<Job>('/api/senders/unsubscribe', { sender: ctx.args[0] });
    if (ctx.values.wait !== true) return ctx.print(started, jobText);
    for (;;) {
      const job = await ctx.client.get<Job>(`/api/senders/jobs/${encodeURIComponent(started.job_id)}`);
      if (job.status === 'done') return ctx.print(job, jobText);
      if (job.status === 'failed') throw new CliError(jobText(job), EXIT.failed);
      ctx.progress(jobText(job));
      if (ctx.io.signal?.aborted) return ctx.print(job, jobText);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  },
};
