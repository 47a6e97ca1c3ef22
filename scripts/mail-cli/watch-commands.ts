import type { MessageSummary } from '../../workers/mail/src/mail-views.ts';
import { CliError, EXIT } from './client.ts';
import { str, flag, int, messageLines, type ListAnswer, listPath, FOLDER_OPTION, type Command } from './command.ts';

/** Following new mail: polling a folder, and renewing the change-notification subscription. */

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    if (signal?.aborted) return done();
    const timer = setTimeout(done, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        done();
      },
      { once: true },
    );
  });

export const WATCH_COMMANDS: Command[] = [
  {
    name: 'poll',
    summary: 'Print new messages of a folder as they arrive (Ctrl-C stops)',
    usage: '[--folder inbox] [--interval seconds] [--once] [--count n]',
    details: [
      'Without --once, messages that were there at the start are not printed; with --once,',
      'the unread messages of the newest page are printed and the command ends.',
    ],
    options: {
      folder: FOLDER_OPTION,
      interval: { type: 'string', description: 'Seconds between checks, 1–3600 (default 30)', argument: 'seconds' },
      once: { type: 'boolean', description: 'Check once: print the unread of the newest page, then stop' },
      count: { type: 'string', description: 'Stop after printing this many new messages', argument: 'n' },
    },
    examples: ['poll', 'poll --interval 10 --json', 'poll --once'],
    async run(ctx) {
      const folder = str(ctx, 'folder') ?? 'inbox';
      const interval = int(ctx, 'interval', 30, 1, 3600);
      const count = str(ctx, 'count') === undefined ? Infinity : int(ctx, 'count', 1, 1, 100_000);
      const check = () => ctx.client.get<ListAnswer>(listPath(folder, { top: 50 }));
      const show = (m: MessageSummary) => (ctx.json ? ctx.io.stdout(`${JSON.stringify(m)}\n`) : ctx.io.stdout(`${messageLines([m])}\n`));
      const first = await check();
      if (flag(ctx, 'once')) {
        const unread = first.items.filter((m) => !m.isRead);
        ctx.print(unread, messageLines);
        return;
      }
      const seen = new Set(first.items.map((m) => m.id));
      ctx.progress(`watching ${first.folder.name} every ${interval} s (${first.folder.unread} unread); Ctrl-C stops`);
      let printed = 0;
      while (!ctx.io.signal?.aborted && printed < count) {
        await sleep(interval * 1000, ctx.io.signal);
        if (ctx.io.signal?.aborted) break;
        let answer: ListAnswer;
        try {
          answer = await check();
        } catch (err) {
          // A failing check is reported and tried again; a signed-out session ends the watch.
          if (err instanceof CliError && err.exitCode === EXIT.signedOut) throw err;
          ctx.progress(`check failed (trying again in ${interval} s): ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        const fresh = answer.items.filter((m) => !seen.has(m.id)).reverse();
        for (const m of fresh) {
          seen.add(m.id);
          if (printed < count) show(m);
          printed += 1;
        }
      }
    },
  },
  {
    name: 'subscribe',
    summary: 'Renew the mailbox’s change-notification subscription (new mail reaches the webhook)',
    usage: '',
    examples: ['subscribe'],
    async run(ctx) {
      const sub = await ctx.client.post<{ id: string; resource: string; notificationUrl: string; expiresAt: string }>('/api/subscriptions');
      ctx.print(sub, (s) => `Subscribed ${s.resource} → ${s.notificationUrl} until ${s.expiresAt}\n    ${s.id}`);
    },
  },
];
