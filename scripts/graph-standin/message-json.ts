import { createHash } from 'node:crypto';
import type { GraphCall } from './graph-call.ts';
import { htmlToText } from './http.ts';
import { bodyText, textToHtml, type StoredMessage } from './mailbox.ts';
import { internetMessageHeaders } from './unsubscribe.ts';

/** A stored message as Graph's JSON (ids, change keys, body conversion, uniqueBody). */

export const MESSAGE_PROPERTIES = [
  'id',
  'createdDateTime',
  'lastModifiedDateTime',
  'changeKey',
  'categories',
  'receivedDateTime',
  'sentDateTime',
  'hasAttachments',
  'internetMessageId',
  'subject',
  'bodyPreview',
  'importance',
  'parentFolderId',
  'conversationId',
  'conversationIndex',
  'isDeliveryReceiptRequested',
  'isReadReceiptRequested',
  'isRead',
  'isDraft',
  'webLink',
  'inferenceClassification',
  'body',
  'uniqueBody',
  'sender',
  'from',
  'toRecipients',
  'ccRecipients',
  'bccRecipients',
  'replyTo',
  'flag',
  'internetMessageHeaders',
] as const;

export function messageId(immutable: boolean, message: StoredMessage): string {
  return immutable ? message.immutableId : message.restId;
}

export function idOf(call: GraphCall, message: StoredMessage): string {
  return messageId(call.immutableIds, message);
}

function changeKey(message: StoredMessage): string {
  return 'CQAAABYAAA' + createHash('sha1').update(`${message.immutableId}:${message.version}`).digest('base64url').slice(0, 22);
}

export function messageJson(call: Pick<GraphCall, 'immutableIds' | 'bodyType'>, message: StoredMessage): Record<string, unknown> {
  const text = bodyText(message);
  const id = messageId(call.immutableIds, message);
  const body =
    call.bodyType === 'text' && message.body.contentType === 'html'
      ? { contentType: 'text', content: text }
      : call.bodyType === 'html' && message.body.contentType === 'text'
        ? { contentType: 'html', content: textToHtml(message.body.content) }
        : { ...message.body };
  return {
    '@odata.etag': `W/"${changeKey(message)}"`,
    id,
    createdDateTime: message.createdDateTime,
    lastModifiedDateTime: message.lastModifiedDateTime,
    changeKey: changeKey(message),
    categories: [...message.categories],
    receivedDateTime: message.receivedDateTime,
    sentDateTime: message.sentDateTime,
    hasAttachments: message.attachments.some((a) => !a.isInline),
    internetMessageId: message.internetMessageId,
    subject: message.subject,
    bodyPreview: text.replace(/\s+/g, ' ').trim().slice(0, 255),
    importance: message.importance,
    parentFolderId: message.folderId,
    conversationId: message.conversationId,
    conversationIndex: Buffer.from(createHash('sha1').update(message.conversationId).digest()).toString('base64').slice(0, 30),
    isDeliveryReceiptRequested: false,
    isReadReceiptRequested: false,
    isRead: message.isRead,
    isDraft: message.isDraft,
    webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(id)}&exvsurl=1&viewmodel=ReadMessageItem`,
    inferenceClassification: 'focused',
    body,
    sender: message.sender,
    from: message.from,
    toRecipients: message.toRecipients,
    ccRecipients: message.ccRecipients,
    bccRecipients: message.bccRecipients,
    replyTo: message.replyTo,
    flag: { flagStatus: message.flagStatus },
  };
}

/** The part of a body that is the message's own, without the quoted original below it (Graph's uniqueBody). */
function uniqueBody(message: StoredMessage): { contentType: string; content: string } {
  if (message.body.contentType === 'text') return { ...message.body };
  const content = message.body.content;
  const cut = content.search(/<hr[^>]*>\s*<div id="divRplyFwdMsg"/i);
  const own =
    cut < 0
      ? (/<body[^>]*>([\s\S]*)<\/body>/i.exec(content)?.[1] ?? content)
      : (/<body[^>]*>([\s\S]*)$/i.exec(content.slice(0, cut))?.[1] ?? content.slice(0, cut));
  return { contentType: 'html', content: `<html><body>${own}</body></html>` };
}

/** Graph returns uniqueBody (and internetMessageHeaders) only when $select names it. */
export function withUniqueBody(
  entity: Record<string, unknown>,
  message: StoredMessage,
  select: string[] | null,
  bodyType: GraphCall['bodyType'],
): Record<string, unknown> {
  // as Graph: the headers only when $select names them
  if (select?.includes('internetMessageHeaders')) entity.internetMessageHeaders = internetMessageHeaders(message);
  if (!select?.includes('uniqueBody')) return entity;
  const unique = uniqueBody(message);
  entity.uniqueBody =
    bodyType === 'text' && unique.contentType === 'html' ? { contentType: 'text', content: htmlToText(unique.content) } : unique;
  return entity;
}
