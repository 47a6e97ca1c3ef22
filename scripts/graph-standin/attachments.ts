import type { Reply } from './account.ts';
import { type GraphCall, READ, WRITE, badMethodOrPath, itemNotFound, need, ok } from './graph-call.ts';
import { GraphError, parseJsonBody } from './http.ts';
import type { StoredMessage } from './mailbox.ts';
import { applyPatch } from './message-changes.ts';
import { idOf } from './message-json.ts';

/** `/messages/{id}/attachments[/{id}[/$value]]`: list, read, and add or remove on a draft. */
export function attachments(call: GraphCall, message: StoredMessage, rest: string[], lower: string[]): Reply {
  const mailbox = call.account.mailbox;
  if (rest.length === 2 && call.method === 'POST') {
    need(call, WRITE);
    if (!message.isDraft) throw new GraphError(400, 'ErrorInvalidOperation', 'Attachments can only be added to a draft.');
    const input = parseJsonBody(call.body);
    const before = message.attachments.length;
    applyPatch(mailbox, message, { attachments: [input] }, { attachments: true });
    mailbox.touch(message);
    const added = message.attachments[before]!;
    return {
      status: 201,
      json: {
        '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages('${idOf(call, message)}')/attachments/$entity`,
        ...attachmentJson(message, added, true),
      },
    };
  }
  if (rest.length === 3 && call.method === 'DELETE') {
    need(call, WRITE);
    if (!message.isDraft) throw new GraphError(400, 'ErrorInvalidOperation', 'Attachments can only be removed from a draft.');
    const index = message.attachments.findIndex((a) => a.id === rest[2]);
    if (index < 0) throw itemNotFound();
    message.attachments.splice(index, 1);
    mailbox.touch(message);
    return { status: 204 };
  }
  if (call.method !== 'GET') throw badMethodOrPath(call);
  need(call, READ);
  if (rest.length === 2) {
    return ok({
      '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages('${idOf(call, message)}')/attachments`,
      value: message.attachments.map((a) => attachmentJson(message, a, true)),
    });
  }
  const attachment = message.attachments.find((a) => a.id === rest[2]);
  if (!attachment) throw itemNotFound();
  if (rest.length === 3)
    return ok({
      '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages('${idOf(call, message)}')/attachments/$entity`,
      ...attachmentJson(message, attachment, true),
    });
  if (rest.length === 4 && lower[3] === '$value') return { status: 200, contentType: attachment.contentType, bytes: attachment.bytes };
  throw badMethodOrPath(call);
}

export function attachmentJson(
  _message: StoredMessage,
  a: StoredMessage['attachments'][number],
  withContent: boolean,
): Record<string, unknown> {
  return {
    '@odata.type': '#microsoft.graph.fileAttachment',
    '@odata.mediaContentType': a.contentType,
    id: a.id,
    lastModifiedDateTime: a.lastModifiedDateTime,
    name: a.name,
    contentType: a.contentType,
    size: a.bytes.length,
    isInline: a.isInline,
    contentId: a.contentId,
    contentLocation: null,
    ...(withContent ? { contentBytes: a.bytes.toString('base64') } : {}),
  };
}
