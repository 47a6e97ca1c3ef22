import type { Account, Reply } from './account.ts';
import { isRecord } from './http.ts';
import { recipient, textToHtml } from './mailbox.ts';
import { textPdf } from './pdf.ts';
import { inboundMessage } from './seed.ts';
import { parseHeaders } from './unsubscribe.ts';
import { invalid, optionalString } from './control-input.ts';

/** `POST /_standin/deliver`: mail that arrives in a mailbox, as a test describes it (sender, body, headers, attachments). */
export function deliver(account: Account, input: Record<string, unknown>): Reply {
  const mailbox = account.mailbox;
  const count = input.count ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 500) throw invalid('count must be 1–500');
  const folder = mailbox.resolveFolder(optionalString(input, 'folder') ?? 'inbox');
  if (!folder) throw invalid('folder not found');
  const from = input.from;
  let sender = null;
  if (from !== undefined) {
    if (!isRecord(from) || typeof from.address !== 'string') throw invalid('from must be {name?, address}');
    sender = recipient(typeof from.name === 'string' ? from.name : from.address, from.address);
  }
  const cc = input.cc;
  if (cc !== undefined && (!Array.isArray(cc) || !cc.every((c) => isRecord(c) && typeof c.address === 'string')))
    throw invalid('cc must be [{name?, address}]');
  const attachments = parseDeliveredAttachments(input.attachments);
  const headers = parseHeaders(input.headers);
  const replyTo = optionalString(input, 'inReplyTo');
  const original = replyTo ? mailbox.findMessage(replyTo) : undefined;
  if (replyTo && !original) throw invalid('inReplyTo: no such message');
  const created = [];
  for (let i = 0; i < count; i++) {
    const sample = inboundMessage(mailbox, mailbox.messages.size + i);
    const text = optionalString(input, 'body') ?? sample.text;
    // Mail as it arrives: a raw HTML body is stored as given (scripts, styles and all), not escaped.
    const html = optionalString(input, 'html');
    const subject = optionalString(input, 'subject') ?? (original ? `RE: ${original.subject.replace(/^RE:\s*/i, '')}` : sample.subject);
    const message = mailbox.addMessage({
      folderId: folder.id,
      subject: count > 1 && input.subject !== undefined ? `${subject} (${i + 1})` : subject,
      body: { contentType: 'html', content: html ?? textToHtml(text) },
      from: sender ?? sample.from,
      toRecipients: [mailbox.me()],
      ccRecipients: Array.isArray(cc) ? cc.map((c) => recipient(String(c.name ?? c.address), String(c.address))) : [],
      conversationId: original?.conversationId,
      inReplyTo: original?.internetMessageId ?? null,
      extraHeaders: headers,
      isRead: false,
      attachments: [
        ...(input.attachment === true
          ? [{ name: 'Update.pdf', contentType: 'application/pdf', bytes: textPdf(subject, text.split('\n')) }]
          : []),
        ...attachments,
      ],
    });
    created.push({
      id: message.restId,
      immutableId: message.immutableId,
      conversationId: message.conversationId,
      subject: message.subject,
      receivedDateTime: message.receivedDateTime,
    });
  }
  return { status: 201, json: { value: created } };
}

function parseDeliveredAttachments(
  value: unknown,
): { name: string; contentType: string; bytes: Buffer; isInline?: boolean; contentId?: string | null }[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 10)
    throw invalid('attachments must be a list of at most 10 {name, contentType?, contentBytes}');
  return value.map((a) => {
    if (
      !isRecord(a) ||
      typeof a.name !== 'string' ||
      !a.name ||
      typeof a.contentBytes !== 'string' ||
      !/^[A-Za-z0-9+/]*={0,2}$/.test(a.contentBytes)
    ) {
      throw invalid('each attachment needs a name and base64 contentBytes');
    }
    if (a.contentId !== undefined && (typeof a.contentId !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(a.contentId)))
      throw invalid('contentId must be 1–200 printable characters');
    if (a.isInline !== undefined && typeof a.isInline !== 'boolean') throw invalid('isInline must be true or false');
    // An inline part (an image of an HTML body, `cid:<contentId>`) or an attachment.
    const inline = typeof a.contentId === 'string' ? { isInline: a.isInline ?? true, contentId: a.contentId } : {};
    return {
      name: a.name,
      contentType: typeof a.contentType === 'string' ? a.contentType : 'application/octet-stream',
      bytes: Buffer.from(a.contentBytes, 'base64'),
      ...inline,
    };
  });
}
