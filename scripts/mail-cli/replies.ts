import { type Command, int, str, when } from './command.ts';

/**
 * Replies tracked wherever they are sent: `awaiting` lists the owner's sent messages still
 * waiting for an answer (GET /api/inbox-zero, tracked from Sent Items whatever sent them) and
 * the received ones still needing a reply; `follow-up` shows or sets the days a sent message
 * waits before a follow-up draft is made (GET/PUT /api/follow-up).
 */

type Summary = {
  message_id: string;
  subject: string;
  sender: string;
  recipients: { name: string; address: string }[];
  received_at: string | null;
  updated_at: string;
};
type Zero = { needs_reply: Summary[]; awaiting_reply: Summary[] };

const lines = (items: Summary[], who: (s: Summary) => string) =>
  items.length
    ? items
        .map(
          (s) =>
            `  ${when(s.received_at ?? s.updated_at)}  ${who(s).slice(0, 30).padEnd(30)}  ${s.subject || '(no subject)'}\n      ${s.message_id}`,
        )
        .join('\n')
    : '  (none)';

const zeroText = (z: Zero) =>
  `Awaiting an answer (${z.awaiting_reply.length}):\n${lines(z.awaiting_reply, (s) => s.recipients.map((r) => r.address).join(', ') || '(nobody)')}\nNeeding your reply (${z.needs_reply.length}):\n${lines(z.needs_reply, (s) => s.sender || '(nobody)')}`;

export const awaitingCommand: Command = {
  name: 'awaiting',
  summary: 'Your sent mail still awaiting an answer (however it was sent), and the mail needing your reply',
  usage: '[--top n]',
  args: [0, 0],
  options: { top: { type: 'string', description: 'how many of each list (1–200, default 25)', argument: 'n' } },
  examples: ['awaiting', 'awaiting --top 50 --json'],
  async run(ctx) {
    const top = int(ctx, 'top', 25, 1, 200);
    ctx.print(await ctx.client.get<Zero>(`/api/inbox-zero?limit=${top}`), zeroText);
  },
};

const daysText = (d: { days: number }) =>
  `A follow-up draft is made after ${d.days} day${d.days === 1 ? '' : 's'} without an answer (never sent).`;

export const followUpCommand: Command = {
  name: 'follow-up',
  summary: 'Shows or sets the days a sent message waits for an answer before a follow-up draft is made',
  usage: '[--days n]',
  args: [0, 0],
  options: { days: { type: 'string', description: 'set it: a whole number of days from 1 to 60', argument: 'n' } },
  examples: ['follow-up', 'follow-up --days 5'],
  async run(ctx) {
    if (str(ctx, 'days') === undefined) return ctx.print(await ctx.client.get<{ days: number }>('/api/follow-up'), daysText);
    const days = int(ctx, 'days', 3, 1, 60);
    ctx.print(await ctx.client.call<{ days: number }>('PUT', '/api/follow-up', { days }), daysText);
  },
};
