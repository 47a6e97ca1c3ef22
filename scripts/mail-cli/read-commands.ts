import { htmlToText } from '../../workers/mail/src/attachment-text.ts';
import type { MessageSummary, MessageView } from '../../workers/mail/src/mail-views.ts';
import {
  enc,
  str,
  flag,
  int,
  when,
  who,
  messageLines,
  type ListAnswer,
  listPath,
  listText,
  FOLDER_OPTION,
  TOP_OPTION,
  type Command,
} from './command.ts';

/** Reading mail: folders, a folder's messages page by page, one message, search and unread. */

const listCommand = (name: string, summary: string, folder: string | null): Command => ({
  name,
  summary,
  usage: `${folder === null ? '<folder> ' : ''}[--top n] [--skip n] [--next cursor]`,
  args: folder === null ? [1, 1] : [0, 0],
  options: {
    top: TOP_OPTION,
    skip: { type: 'string', description: 'Skip this many first', argument: 'n' },
    next: { type: 'string', description: 'The cursor a previous page printed', argument: 'cursor' },
  },
  examples: folder === null ? [`${name} sentitems --top 10`, `${name} "Nominations" --json`] : [`${name} --top 10`],
  async run(ctx) {
    const top = int(ctx, 'top', 25, 1, 100);
    const skip = int(ctx, 'skip', 0, 0, 100_000);
    const answer = await ctx.client.get<ListAnswer>(
      listPath(folder ?? ctx.args[0]!, { top, skip: skip || undefined, next: str(ctx, 'next') }),
    );
    ctx.print(answer, listText);
  },
});

export const READ_COMMANDS: Command[] = [
  {
    name: 'folders',
    summary: 'Folders with unread and total counts',
    usage: '',
    examples: ['folders'],
    async run(ctx) {
      const { folders } = await ctx.client.get<{
        folders: { id: string; name: string; parentId: string | null; unread: number; total: number; wellKnown: string | null }[];
      }>('/api/folders');
      const ids = new Set(folders.map((f) => f.id));
      ctx.print(folders, (list) =>
        list
          .map(
            (f) =>
              `${f.parentId && ids.has(f.parentId) ? '  ' : ''}${f.name.padEnd(28)} ${String(f.unread).padStart(5)} unread ${String(f.total).padStart(6)} total  ${f.wellKnown ?? f.id}`,
          )
          .join('\n'),
      );
    },
  },
  listCommand('inbox', 'The newest messages of the inbox', 'inbox'),
  listCommand('mail', 'The newest messages of a folder', null),
  {
    name: 'read',
    summary: 'One message: headers, attachments and the body as text',
    usage: '<message_id> [--html]',
    args: [1, 1],
    options: { html: { type: 'boolean', description: 'The HTML body as it is, not as text' } },
    examples: ['read AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A…', 'read <id> --json'],
    async run(ctx) {
      const m = await ctx.client.get<MessageView>(`/api/email/${enc(ctx.args[0]!)}`);
      const text = m.body.contentType.toLowerCase() === 'html' && !flag(ctx, 'html') ? htmlToText(m.body.content) : m.body.content;
      ctx.print({ ...m, text }, (d) =>
        [
          `Subject: ${d.subject || '(no subject)'}`,
          `From:    ${who(d.from)}`,
          `To:      ${d.to.map(who).join(', ')}`,
          ...(d.cc.length ? [`Cc:      ${d.cc.map(who).join(', ')}`] : []),
          ...(d.bcc.length ? [`Bcc:     ${d.bcc.map(who).join(', ')}`] : []),
          `Date:    ${when(d.receivedAt ?? d.sentAt)}${d.folder ? `  (${d.folder})` : ''}${d.isDraft ? '  draft' : ''}`,
          ...d.attachments.map((a) => `Attached: ${a.name} (${a.contentType}, ${a.size} bytes) ${a.id}`),
          '',
          d.text,
        ].join('\n'),
      );
    },
  },
  {
    name: 'search',
    summary: 'Search a folder (subject, body, sender)',
    usage: '<query> [--folder inbox] [--top n] [--next cursor]',
    args: [1, 1],
    options: {
      folder: FOLDER_OPTION,
      top: TOP_OPTION,
      next: { type: 'string', description: 'The cursor a previous page printed', argument: 'cursor' },
    },
    examples: ['search "barrier trial"', 'search scratchings --folder archive --top 50'],
    async run(ctx) {
      const answer = await ctx.client.get<ListAnswer>(
        listPath(str(ctx, 'folder') ?? 'inbox', { q: ctx.args[0], top: int(ctx, 'top', 25, 1, 100), next: str(ctx, 'next') }),
      );
      ctx.print(answer, listText);
    },
  },
  {
    name: 'unread',
    summary: 'The unread messages of a folder (newest first)',
    usage: '[--folder inbox] [--top n]',
    options: { folder: FOLDER_OPTION, top: { type: 'string', description: 'At most this many (default 25)', argument: 'n' } },
    examples: ['unread', 'unread --folder "Nominations" --top 5'],
    async run(ctx) {
      const want = int(ctx, 'top', 25, 1, 1000);
      const folder = str(ctx, 'folder') ?? 'inbox';
      const unread: MessageSummary[] = [];
      let next: string | undefined;
      let answer: ListAnswer;
      // Pages of 100 until enough are found or every unread one is (the folder's unread count).
      do {
        answer = await ctx.client.get<ListAnswer>(listPath(folder, { top: 100, next }));
        unread.push(...answer.items.filter((m) => !m.isRead));
        next = answer.next ?? undefined;
      } while (next && unread.length < Math.min(want, answer.folder.unread));
      const items = unread.slice(0, want);
      ctx.print({ folder: answer.folder, items }, (d) => `${d.folder.name}: ${d.folder.unread} unread\n${messageLines(d.items)}`);
    },
  },
  {
    name: 'paginate',
    summary: 'Every message of a folder, page by page (progress on stderr)',
    usage: '[--folder inbox] [--page-size n] [--max n] [--query text]',
    options: {
      folder: FOLDER_OPTION,
      'page-size': { type: 'string', description: 'Messages per request, 1–100 (default 50)', argument: 'n' },
      max: { type: 'string', description: 'Stop after this many messages (default 1000)', argument: 'n' },
      query: { type: 'string', description: 'Only messages matching this search', argument: 'text' },
    },
    examples: ['paginate --folder sentitems', 'paginate --page-size 100 --max 500 --json > inbox.json'],
    async run(ctx) {
      const size = int(ctx, 'page-size', 50, 1, 100);
      const max = int(ctx, 'max', 1000, 1, 100_000);
      const folder = str(ctx, 'folder') ?? 'inbox';
      const items: MessageSummary[] = [];
      let next: string | undefined;
      let page = 0;
      do {
        const answer: ListAnswer = await ctx.client.get<ListAnswer>(listPath(folder, { top: size, q: str(ctx, 'query'), next }));
        page += 1;
        items.push(...answer.items);
        next = answer.next ?? undefined;
        ctx.progress(`page ${page}: ${items.length}${answer.count !== null ? ` of ${answer.count}` : ''} messages`);
      } while (next && items.length < max && !ctx.io.signal?.aborted);
      const shown = items.slice(0, max);
      ctx.print(shown, (d) => `${messageLines(d)}\n${d.length} messages`);
    },
  },
];
