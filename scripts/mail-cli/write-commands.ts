import { htmlToText } from '../../workers/mail/src/attachment-text.ts';
import { usageError } from './client.ts';
import { enc, str, flag, bodyText, list, each, BODY_OPTIONS, type Command } from './command.ts';

/** Writing mail: drafts, sending, replies, folders, moving and marking read. */

export const WRITE_COMMANDS: Command[] = [
  {
    name: 'create-draft',
    summary: 'A new draft in Drafts; or with --for, the assistant’s reply draft to a message',
    usage: '[--to a,b] [--cc …] [--bcc …] [--subject s] [--body text | --body-file f] | --for <message_id>',
    options: {
      to: { type: 'string', multiple: true, description: 'Recipients (repeat, or separate with commas)', argument: 'address' },
      cc: { type: 'string', multiple: true, description: 'CC recipients', argument: 'address' },
      bcc: { type: 'string', multiple: true, description: 'BCC recipients', argument: 'address' },
      subject: { type: 'string', description: 'Subject', argument: 'text' },
      html: { type: 'boolean', description: 'The body is HTML' },
      for: {
        type: 'string',
        description:
          'Generate the assistant’s reply draft to this message (POST /api/draft/generate; a template reply with the offline model)',
        argument: 'message_id',
      },
      ...BODY_OPTIONS,
    },
    examples: ['create-draft --to trainer@example.com --subject "Float booking" --body "6am Tuesday"', 'create-draft --for <message_id>'],
    async run(ctx) {
      const replyTo = str(ctx, 'for');
      if (replyTo !== undefined) {
        if (['to', 'cc', 'bcc', 'subject', 'body', 'body-file'].some((o) => ctx.values[o] !== undefined))
          throw usageError('--for generates the reply draft: give no recipients, subject or body with it');
        const draft = await ctx.client.post<{
          draft_id?: string;
          body_html?: string;
          reused?: boolean;
          category?: string;
          no_reply?: boolean;
          generated_by?: string;
          trace_id?: string;
        }>('/api/draft/generate', { email_id: replyTo });
        ctx.print(draft, (d) =>
          d.no_reply
            ? `No reply draft: the message's category (${d.category}) is in no-reply mode`
            : `${d.reused ? 'Existing' : 'New'} reply draft ${d.draft_id}: ${d.generated_by ?? 'reply'} (category ${d.category ?? 'unknown'}; trace ${d.trace_id})\n\n${htmlToText(d.body_html ?? '')}`,
        );
        return;
      }
      const draft = await ctx.client.post<{ id: string; subject: string; to: string[] }>('/api/drafts', {
        to: list(ctx, 'to'),
        cc: list(ctx, 'cc'),
        bcc: list(ctx, 'bcc'),
        subject: str(ctx, 'subject') ?? '',
        body: await bodyText(ctx, false),
        html: flag(ctx, 'html'),
      });
      ctx.print(draft, (d) => `Draft created: ${d.subject || '(no subject)'} to ${d.to.join(', ') || '(nobody yet)'}\n    ${d.id}`);
    },
  },
  {
    name: 'update-draft',
    summary: 'Replace a draft’s body (POST /api/draft/update)',
    usage: '<draft_id> (--body text | --body-file f) [--text]',
    args: [1, 1],
    options: { ...BODY_OPTIONS, text: { type: 'boolean', description: 'The body is plain text (escaped into HTML); else HTML' } },
    examples: ['update-draft <draft_id> --body "<p>See you at 6.</p>"', 'update-draft <draft_id> --text --body-file reply.txt'],
    async run(ctx) {
      let body = await bodyText(ctx, true);
      if (flag(ctx, 'text')) body = `<div>${body.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`).replace(/\r?\n/g, '<br>')}</div>`;
      const answer = await ctx.client.post<{ draft_id: string; updated: boolean }>('/api/draft/update', {
        draft_id: ctx.args[0],
        body_html: body,
      });
      ctx.print(answer, (d) => `Draft ${d.draft_id} updated`);
    },
  },
  {
    name: 'send-draft',
    summary: 'Send a draft (POST /api/draft/send)',
    usage: '<draft_id>',
    args: [1, 1],
    examples: ['send-draft <draft_id>'],
    async run(ctx) {
      const answer = await ctx.client.post<{ sent: boolean; draft_id: string }>('/api/draft/send', { draft_id: ctx.args[0] });
      ctx.print(answer, (d) => `Draft ${d.draft_id} sent`);
    },
  },
  {
    name: 'create-folder',
    summary: 'Create a mail folder (at the top level or inside --parent)',
    usage: '<name> [--parent folder]',
    args: [1, 1],
    options: { parent: { type: 'string', description: 'The folder to create it in', argument: 'folder' } },
    examples: ['create-folder "Nominations 2026"', 'create-folder Scratchings --parent "Nominations 2026"'],
    async run(ctx) {
      const folder = await ctx.client.post<{ id: string; name: string }>('/api/folders', {
        name: ctx.args[0],
        ...(str(ctx, 'parent') ? { parent: str(ctx, 'parent') } : {}),
      });
      ctx.print(folder, (f) => `Folder created: ${f.name}\n    ${f.id}`);
    },
  },
  {
    name: 'move',
    summary: 'Move a message to another folder',
    usage: '<message_id> <folder>',
    args: [2, 2],
    examples: ['move <message_id> archive', 'move <message_id> "Nominations 2026"'],
    async run(ctx) {
      const moved = await ctx.client.post<{ id: string; folder: string | null; folderId: string | null }>(
        `/api/move/${enc(ctx.args[0]!)}`,
        { dest_folder_id: ctx.args[1] },
      );
      ctx.print(moved, (m) => `Moved to ${m.folder ?? ctx.args[1]}\n    ${m.id}`);
    },
  },
  {
    name: 'mark-read',
    summary: 'Mark messages read (or unread with --unread)',
    usage: '<message_id>… [--unread]',
    args: [1, 100],
    options: { unread: { type: 'boolean', description: 'Mark unread instead' } },
    examples: ['mark-read <message_id>', 'mark-read <id1> <id2> --unread'],
    async run(ctx) {
      const isRead = !flag(ctx, 'unread');
      const done = await each(ctx, ctx.args, isRead ? 'marking read' : 'marking unread', (id) =>
        ctx.client.post<{ id: string; isRead: boolean }>(`/api/mark-read/${enc(id)}`, { isRead }),
      );
      ctx.print(done, (list) => list.map((m) => `${m.isRead ? 'read  ' : 'unread'} ${m.id}`).join('\n'));
    },
  },
  {
    name: 'reply',
    summary: 'Reply to a message (the original quoted), or to everyone with --all',
    usage: '<message_id> (--body text | --body-file f) [--all] [--cc a,b] [--bcc a,b]',
    args: [1, 1],
    options: {
      ...BODY_OPTIONS,
      all: { type: 'boolean', description: 'Reply to everyone on the message' },
      cc: { type: 'string', multiple: true, description: 'Extra CC recipients', argument: 'address' },
      bcc: { type: 'string', multiple: true, description: 'BCC recipients', argument: 'address' },
    },
    examples: [
      'reply <message_id> --body "Thanks, booked for 6am."',
      'reply <message_id> --all --body-file answer.txt --cc vet@example.com',
    ],
    async run(ctx) {
      const answer = await ctx.client.post<{ sent: boolean; draftId: string }>(`/api/reply/${enc(ctx.args[0]!)}`, {
        body: await bodyText(ctx, true),
        all: flag(ctx, 'all'),
        cc: list(ctx, 'cc'),
        bcc: list(ctx, 'bcc'),
      });
      ctx.print(answer, () => 'Reply sent');
    },
  },
];
