import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { CliError, EXIT } from './client.ts';
import { enc, str, flag, type Command } from './command.ts';

/** A message's attachments: listed, downloaded into a folder, or read as text by the service. */

export const ATTACHMENT_COMMANDS: Command[] = [
  {
    name: 'list-attachments',
    summary: 'A message’s attachments (names, types, sizes, ids)',
    usage: '<message_id>',
    args: [1, 1],
    examples: ['list-attachments <message_id>'],
    async run(ctx) {
      const answer = await ctx.client.get<{
        attachments: { id: string; name: string; contentType: string; size: number; isInline: boolean }[];
      }>(`/api/email/${enc(ctx.args[0]!)}/attachments`);
      ctx.print(answer.attachments, (list) =>
        list.length
          ? list
              .map(
                (a) =>
                  `${a.name.padEnd(32)} ${a.contentType.padEnd(26)} ${String(a.size).padStart(9)} bytes${a.isInline ? ' inline' : ''}\n    ${a.id}`,
              )
              .join('\n')
          : '(no attachments)',
      );
    },
  },
  {
    name: 'attachments',
    summary: 'Download a message’s attachments into a folder',
    usage: '<message_id> [--out dir] [--name file] [--force]',
    args: [1, 1],
    options: {
      out: { type: 'string', description: 'Folder to save into (default the current one; made if missing)', argument: 'dir' },
      name: { type: 'string', description: 'Only the attachment of this name', argument: 'file' },
      force: { type: 'boolean', description: 'Overwrite files that exist' },
    },
    examples: ['attachments <message_id> --out ./downloads', 'attachments <message_id> --name racecard.pdf'],
    async run(ctx) {
      const id = ctx.args[0]!;
      const out = resolve(str(ctx, 'out') ?? '.');
      const { attachments } = await ctx.client.get<{ attachments: { id: string; name: string; size: number }[] }>(
        `/api/email/${enc(id)}/attachments`,
      );
      const only = str(ctx, 'name');
      const chosen = only === undefined ? attachments : attachments.filter((a) => a.name === only);
      if (only !== undefined && !chosen.length)
        throw new CliError(
          `The message has no attachment named "${only}" (it has: ${attachments.map((a) => a.name).join(', ') || 'none'})`,
          EXIT.failed,
        );
      mkdirSync(out, { recursive: true });
      const saved: { name: string; path: string; bytes: number }[] = [];
      for (const [i, a] of chosen.entries()) {
        // Only the last part of the name, without anything that climbs out of the folder.
        const file = join(out, basename(a.name.replace(/[\\/]+/g, '_')).replace(/^\.+/, '_') || `attachment-${i + 1}`);
        if (existsSync(file) && !flag(ctx, 'force')) throw new CliError(`${file} exists (use --force to overwrite)`, EXIT.failed);
        ctx.progress(`downloading ${i + 1}/${chosen.length} ${a.name} (${a.size} bytes)`);
        const { bytes } = await ctx.client.bytes(`/api/email/${enc(id)}/attachments/${enc(a.id)}`);
        writeFileSync(file, bytes);
        saved.push({ name: a.name, path: file, bytes: bytes.length });
      }
      ctx.print(saved, (list) => (list.length ? list.map((s) => `saved ${s.path} (${s.bytes} bytes)`).join('\n') : '(no attachments)'));
    },
  },
  {
    name: 'extract-text',
    summary: 'The text of a message’s text, HTML and PDF attachments (read by the service)',
    usage: '<message_id> [--attachment id]',
    args: [1, 1],
    options: { attachment: { type: 'string', description: 'Only this attachment (its id from list-attachments)', argument: 'id' } },
    examples: ['extract-text <message_id>', 'extract-text <message_id> --attachment <attachment_id> --json'],
    async run(ctx) {
      const id = ctx.args[0]!;
      let ids: { id: string; name: string }[];
      const one = str(ctx, 'attachment');
      if (one) ids = [{ id: one, name: one }];
      else
        ids = (
          await ctx.client.get<{ attachments: { id: string; name: string; isInline: boolean }[] }>(`/api/email/${enc(id)}/attachments`)
        ).attachments.filter((a) => !a.isInline);
      const texts: { name: string; kind: string; text: string; truncated: boolean }[] = [];
      for (const a of ids) {
        try {
          texts.push(await ctx.client.get(`/api/email/${enc(id)}/attachments/${enc(a.id)}/text`));
        } catch (err) {
          // An attachment with no readable text is skipped when reading all of them.
          if (one || !(err instanceof CliError) || !/unsupported_type|unreadable_attachment|attachment_too_large/.test(err.message))
            throw err;
          ctx.progress(`skipped ${a.name}: ${err.message}`);
        }
      }
      ctx.print(texts, (list) =>
        list.length
          ? list.map((t) => `== ${t.name} (${t.kind}) ==\n${t.text}${t.truncated ? '\n[… cut]' : ''}`).join('\n\n')
          : '(no attachment with readable text)',
      );
    },
  },
];
