import { GraphError, escapeHtml, exchangeHtml, isRecord } from './http.ts';
import { requestBodyRead, unknownProperty } from './graph-call.ts';
import { guid } from './ids.ts';
import { EMAIL_PATTERN, type Mailbox, type Recipient, type StoredFolder, type StoredMessage } from './mailbox.ts';
import { MESSAGE_PROPERTIES } from './message-json.ts';

/** Changes to messages: PATCH rules, sending a draft, copies, and reply/forward drafts. */

const ALWAYS_PATCHABLE = new Set(['isRead', 'categories', 'importance', 'flag', 'inferenceClassification']);
const DRAFT_PATCHABLE = new Set(['subject', 'body', 'toRecipients', 'ccRecipients', 'bccRecipients', 'replyTo', 'from', 'sender']);

/** PATCH semantics: recipients, subject and body only on drafts; read-only or unknown names refused. */
export function applyPatch(mailbox: Mailbox, message: StoredMessage, input: unknown, options: { attachments?: boolean } = {}) {
  if (!isRecord(input)) throw requestBodyRead('The request body must be a JSON object.');
  const changes: (() => void)[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key.startsWith('@odata.')) continue;
    if (key === 'attachments' && options.attachments) {
      const list = parseAttachments(value);
      changes.push(() => {
        message.attachments.push(
          ...list.map((a, i) => ({
            id: 'AAMkAGatt' + guid(`${message.immutableId}:${message.attachments.length + i}:${mailbox.nextSeed()}`).replace(/-/g, ''),
            isInline: false,
            contentId: null,
            lastModifiedDateTime: mailbox.nowIso(),
            ...a,
          })),
        );
      });
      continue;
    }
    if (DRAFT_PATCHABLE.has(key)) {
      if (!message.isDraft)
        throw new GraphError(400, 'ErrorInvalidPropertyUpdateSentMessage', 'Update operation is not allowed for property of sent message.');
    } else if (!ALWAYS_PATCHABLE.has(key)) {
      if ((MESSAGE_PROPERTIES as readonly string[]).includes(key))
        throw new GraphError(400, 'ErrorInvalidPropertySet', `The property '${key}' is read-only and cannot be set.`);
      throw unknownProperty(key, 'message');
    }
    switch (key) {
      case 'isRead':
        if (typeof value !== 'boolean') throw requestBodyRead("Cannot convert the literal to the expected type 'Edm.Boolean'.");
        changes.push(() => (message.isRead = value));
        break;
      case 'categories':
        if (!Array.isArray(value) || !value.every((c) => typeof c === 'string'))
          throw requestBodyRead("Cannot convert the value to 'Collection(Edm.String)'.");
        changes.push(() => (message.categories = [...value]));
        break;
      case 'importance':
        if (value !== 'low' && value !== 'normal' && value !== 'high')
          throw requestBodyRead(`The value '${String(value)}' is not valid for importance.`);
        changes.push(() => (message.importance = value));
        break;
      case 'flag':
        if (!isRecord(value) || !['notFlagged', 'flagged', 'complete'].includes(String(value.flagStatus)))
          throw requestBodyRead('The flag is not valid.');
        changes.push(() => (message.flagStatus = value.flagStatus as StoredMessage['flagStatus']));
        break;
      case 'inferenceClassification':
        break;
      case 'subject':
        if (typeof value !== 'string') throw requestBodyRead("Cannot convert the literal to the expected type 'Edm.String'.");
        changes.push(() => (message.subject = value));
        break;
      case 'body': {
        if (!isRecord(value) || typeof value.content !== 'string')
          throw requestBodyRead('The body must be an itemBody {contentType, content}.');
        const type = String(value.contentType ?? 'text').toLowerCase();
        if (type !== 'html' && type !== 'text')
          throw requestBodyRead(`The value '${String(value.contentType)}' is not valid for contentType.`);
        const content = type === 'html' && mailbox.rewriteHtml ? exchangeHtml(value.content) : value.content;
        changes.push(() => (message.body = { contentType: type, content }));
        break;
      }
      case 'from':
      case 'sender': {
        const list = parseRecipients([value], key);
        changes.push(() => {
          message.from = list[0]!;
          message.sender = list[0]!;
        });
        break;
      }
      default: {
        const list = parseRecipients(value, key);
        const field = key as 'toRecipients' | 'ccRecipients' | 'bccRecipients' | 'replyTo';
        changes.push(() => (message[field] = list));
      }
    }
  }
  for (const change of changes) change();
}

function parseRecipients(value: unknown, field: string): Recipient[] {
  if (!Array.isArray(value)) throw requestBodyRead(`The property '${field}' must be a collection of recipients.`);
  return value.map((item) => {
    if (!isRecord(item) || !isRecord(item.emailAddress) || typeof item.emailAddress.address !== 'string') {
      throw requestBodyRead(`Each item of '${field}' must be a recipient {emailAddress:{address,name}}.`);
    }
    const name = item.emailAddress.name;
    if (name !== undefined && name !== null && typeof name !== 'string') throw requestBodyRead('A recipient name must be a string.');
    return {
      emailAddress: { name: typeof name === 'string' && name ? name : item.emailAddress.address, address: item.emailAddress.address },
    };
  });
}

function parseAttachments(value: unknown): { name: string; contentType: string; bytes: Buffer }[] {
  if (!Array.isArray(value)) throw requestBodyRead("The property 'attachments' must be a collection.");
  return value.map((item) => {
    if (
      !isRecord(item) ||
      item['@odata.type'] !== '#microsoft.graph.fileAttachment' ||
      typeof item.name !== 'string' ||
      typeof item.contentBytes !== 'string'
    ) {
      throw requestBodyRead('Only #microsoft.graph.fileAttachment with name and contentBytes is supported.');
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(item.contentBytes)) throw requestBodyRead('contentBytes is not valid base64.');
    return {
      name: item.name,
      contentType: typeof item.contentType === 'string' ? item.contentType : 'application/octet-stream',
      bytes: Buffer.from(item.contentBytes, 'base64'),
    };
  });
}

export function checkRecipients(message: StoredMessage) {
  const all = [...message.toRecipients, ...message.ccRecipients, ...message.bccRecipients];
  if (all.length === 0) throw new GraphError(400, 'ErrorInvalidRecipients', 'The message must have at least one recipient.');
  if (all.some((r) => !EMAIL_PATTERN.test(r.emailAddress.address)))
    throw new GraphError(400, 'ErrorInvalidRecipients', "At least one recipient isn't valid.");
}

/** Sends a draft: to Sent Items (or gone), and a copy to the Inbox when the owner is among the recipients. */
export function sendDraft(mailbox: Mailbox, draft: StoredMessage, options: { saveToSentItems?: boolean } = {}) {
  checkRecipients(draft);
  const now = mailbox.nowIso();
  draft.isDraft = false;
  draft.isRead = true;
  draft.sentDateTime = now;
  draft.receivedDateTime = now;
  draft.from = draft.from ?? mailbox.me();
  draft.sender = draft.from;
  if (options.saveToSentItems === false) {
    mailbox.messages.delete(draft.immutableId);
  } else if (mailbox.messages.has(draft.immutableId) && draft.folderId !== mailbox.wellKnown('sentitems').id) {
    mailbox.moveMessage(draft, mailbox.wellKnown('sentitems'));
  }
  if ([...draft.toRecipients, ...draft.ccRecipients, ...draft.bccRecipients].some((r) => mailbox.isMe(r))) {
    mailbox.addMessage({
      folderId: mailbox.wellKnown('inbox').id,
      subject: draft.subject,
      body: { ...draft.body },
      from: draft.from,
      toRecipients: draft.toRecipients,
      ccRecipients: draft.ccRecipients,
      conversationId: draft.conversationId,
      internetMessageId: draft.internetMessageId,
      inReplyTo: draft.inReplyTo,
      receivedDateTime: now,
      sentDateTime: now,
      attachments: draft.attachments.map((a) => ({ name: a.name, contentType: a.contentType, bytes: a.bytes })),
    });
  }
}

export function copyMessage(mailbox: Mailbox, message: StoredMessage, destination: StoredFolder): StoredMessage {
  return mailbox.addMessage({
    ...message,
    folderId: destination.id,
    body: { ...message.body },
    attachments: message.attachments.map((a) => ({ name: a.name, contentType: a.contentType, bytes: a.bytes })),
  });
}

/** createReply / createReplyAll / createForward: a draft in Drafts quoting the original. */
export function createResponse(
  mailbox: Mailbox,
  original: StoredMessage,
  kind: 'reply' | 'replyall' | 'forward',
  input: unknown,
): StoredMessage {
  if (!isRecord(input)) throw requestBodyRead('The request body must be a JSON object.');
  for (const key of Object.keys(input))
    if (key !== 'comment' && key !== 'message' && key !== 'toRecipients') throw unknownProperty(key, kind);
  if (input.comment !== undefined && typeof input.comment !== 'string')
    throw requestBodyRead("Cannot convert the literal to the expected type 'Edm.String'.");
  const comment = typeof input.comment === 'string' ? input.comment : '';
  const fromMe = original.from ? mailbox.isMe(original.from) : true;
  const notMe = (r: Recipient) => !mailbox.isMe(r);
  let to: Recipient[] = [];
  let cc: Recipient[] = [];
  if (kind !== 'forward') {
    to = fromMe ? original.toRecipients : original.replyTo.length > 0 ? original.replyTo : original.from ? [original.from] : [];
    if (kind === 'replyall') {
      const seen = new Set(to.map((r) => r.emailAddress.address.toLowerCase()));
      to = [...to, ...original.toRecipients.filter((r) => notMe(r) && !seen.has(r.emailAddress.address.toLowerCase()))];
      cc = original.ccRecipients.filter(notMe);
    }
  }
  const prefix = kind === 'forward' ? 'FW: ' : 'RE: ';
  const subject = original.subject.toUpperCase().startsWith(prefix) ? original.subject : prefix + original.subject;
  const quotedBody =
    original.body.contentType === 'html'
      ? (/<body[^>]*>([\s\S]*)<\/body>/i.exec(original.body.content)?.[1] ?? original.body.content)
      : `<pre>${escapeHtml(original.body.content)}</pre>`;
  const header = [
    original.from
      ? `<b>From:</b> ${escapeHtml(original.from.emailAddress.name)} &lt;${escapeHtml(original.from.emailAddress.address)}&gt;<br>`
      : '',
    `<b>Sent:</b> ${new Date(original.sentDateTime ?? original.receivedDateTime).toUTCString()}<br>`,
    original.toRecipients.length ? `<b>To:</b> ${original.toRecipients.map((r) => escapeHtml(r.emailAddress.name)).join('; ')}<br>` : '',
    original.ccRecipients.length ? `<b>Cc:</b> ${original.ccRecipients.map((r) => escapeHtml(r.emailAddress.name)).join('; ')}<br>` : '',
    `<b>Subject:</b> ${escapeHtml(original.subject)}`,
  ].join('');
  const content = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head><body>${
    comment ? `<div>${escapeHtml(comment).replace(/\n/g, '<br>')}</div>` : ''
  }<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000">${header}</font><div>&nbsp;</div></div>${quotedBody}</body></html>`;
  const draft = mailbox.addMessage({
    folderId: mailbox.wellKnown('drafts').id,
    subject,
    body: { contentType: 'html', content: mailbox.rewriteHtml ? exchangeHtml(content) : content },
    from: mailbox.me(),
    toRecipients: to,
    ccRecipients: cc,
    conversationId: original.conversationId,
    inReplyTo: original.internetMessageId,
    isDraft: true,
    isRead: true,
    sentDateTime: null,
    attachments: kind === 'forward' ? original.attachments.map((a) => ({ name: a.name, contentType: a.contentType, bytes: a.bytes })) : [],
  });
  try {
    if (isRecord(input.message)) applyPatch(mailbox, draft, input.message, { attachments: true });
    if (input.toRecipients !== undefined) applyPatch(mailbox, draft, { toRecipients: input.toRecipients });
  } catch (err) {
    mailbox.removeMessage(draft);
    throw err;
  }
  return draft;
}
