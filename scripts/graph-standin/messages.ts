import type { Reply } from './account.ts';
import { attachmentJson, attachments } from './attachments.ts';
import {
  type GraphCall,
  READ,
  SEND,
  WRITE,
  badMethodOrPath,
  itemNotFound,
  need,
  notFoundSegment,
  ok,
  requestBodyRead,
  unknownProperty,
} from './graph-call.ts';
import { GraphError, isRecord, parseJsonBody } from './http.ts';
import type { Mailbox, StoredFolder, StoredMessage } from './mailbox.ts';
import { applyPatch, checkRecipients, copyMessage, createResponse, sendDraft } from './message-changes.ts';
import { MESSAGE_PROPERTIES, messageJson, withUniqueBody } from './message-json.ts';
import { messageList, parseExpand } from './message-list.ts';
import { messageMime } from './mime.ts';
import { applySelect, parseSelect } from './odata.ts';

/** `/me/messages` and `/me/mailFolders/{id}/messages`: one message, its actions, drafts and sendMail. */

export function messages(call: GraphCall, rest: string[], lower: string[], folder: StoredFolder | null): Reply | Promise<Reply> {
  const mailbox = call.account.mailbox;
  if (rest.length === 0) {
    if (call.method === 'GET') {
      need(call, READ);
      const items = [...mailbox.messages.values()].filter((msg) => !folder || msg.folderId === folder.id);
      return messageList(call, items);
    }
    if (call.method === 'POST') {
      need(call, WRITE);
      return createDraft(call, folder ?? mailbox.wellKnown('drafts'));
    }
    throw badMethodOrPath(call);
  }
  const message = mailbox.findMessage(rest[0]!);
  if (!message) throw itemNotFound();
  if (rest.length === 1) {
    if (call.method === 'GET') {
      need(call, READ);
      const select = parseSelect(call.query, MESSAGE_PROPERTIES, 'message');
      const expand = parseExpand(call.query);
      const entity = withUniqueBody(applySelect(messageJson(call, message), select), message, select, call.bodyType);
      if (expand) entity.attachments = message.attachments.map((a) => attachmentJson(message, a, true));
      return ok({ '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages/$entity`, ...entity });
    }
    if (call.method === 'PATCH') {
      need(call, WRITE);
      applyPatch(mailbox, message, parseJsonBody(call.body));
      mailbox.touch(message);
      return ok({
        '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages/$entity`,
        ...messageJson(call, message),
      });
    }
    if (call.method === 'DELETE') {
      need(call, WRITE);
      const deleted = mailbox.wellKnown('deleteditems');
      if (message.folderId === deleted.id) mailbox.removeMessage(message);
      else mailbox.moveMessage(message, deleted);
      return { status: 204 };
    }
    throw badMethodOrPath(call);
  }
  const action = lower[1]!;
  if (action === '$value' && rest.length === 2 && call.method === 'GET') {
    need(call, READ);
    return { status: 200, contentType: 'text/plain', bytes: Buffer.from(messageMime(message), 'utf8') };
  }
  if (action === 'attachments') return attachments(call, message, rest, lower);
  if (rest.length !== 2 || call.method !== 'POST') throw badMethodOrPath(call);
  switch (action) {
    case 'move':
    case 'copy': {
      need(call, WRITE);
      const input = parseJsonBody(call.body);
      if (!isRecord(input) || typeof input.destinationId !== 'string' || !input.destinationId) {
        throw new GraphError(400, 'ErrorInvalidRequest', "The 'destinationId' parameter is required.");
      }
      const destination = mailbox.resolveFolder(input.destinationId);
      if (!destination) throw new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      const result = action === 'move' ? mailbox.moveMessage(message, destination) : copyMessage(mailbox, message, destination);
      return created(call, result);
    }
    case 'createreply':
    case 'createreplyall':
    case 'createforward': {
      need(call, WRITE);
      const draft = createResponse(mailbox, message, action.slice(6) as 'reply' | 'replyall' | 'forward', parseJsonBody(call.body));
      return created(call, draft);
    }
    case 'reply':
    case 'replyall':
    case 'forward': {
      need(call, SEND);
      const draft = createResponse(mailbox, message, action as 'reply' | 'replyall' | 'forward', parseJsonBody(call.body));
      sendDraft(mailbox, draft);
      return { status: 202 };
    }
    case 'send': {
      need(call, SEND);
      if (!message.isDraft) throw new GraphError(400, 'ErrorInvalidOperation', 'Only a draft message can be sent.');
      sendDraft(mailbox, message);
      return { status: 202 };
    }
    default:
      throw notFoundSegment(rest[1]!);
  }
}

function createDraft(call: GraphCall, folder: StoredFolder): Reply {
  const mailbox = call.account.mailbox;
  const input = parseJsonBody(call.body);
  const draft = emptyDraft(mailbox, folder);
  try {
    applyPatch(mailbox, draft, input, { attachments: true });
  } catch (err) {
    mailbox.removeMessage(draft);
    throw err;
  }
  return created(call, draft);
}

/** An empty HTML draft from the mailbox's owner, which the caller then fills from the request. */
function emptyDraft(mailbox: Mailbox, folder: StoredFolder, options: { notify?: boolean } = {}): StoredMessage {
  return mailbox.addMessage(
    {
      folderId: folder.id,
      subject: '',
      body: { contentType: 'html', content: '' },
      from: mailbox.me(),
      isDraft: true,
      isRead: true,
      sentDateTime: null,
    },
    options,
  );
}

/** 201 with the new (or moved) message, as Graph answers a create, copy or move. */
function created(call: GraphCall, message: StoredMessage): Reply {
  return {
    status: 201,
    json: {
      '@odata.context': `${call.graphBase}/$metadata#users('${call.account.mailbox.user.id}')/messages/$entity`,
      ...messageJson(call, message),
    },
  };
}

export function sendMail(call: GraphCall): Reply {
  const mailbox = call.account.mailbox;
  const input = parseJsonBody(call.body);
  if (!isRecord(input) || !isRecord(input.message))
    throw new GraphError(400, 'ErrorInvalidRequest', "The 'message' parameter is required.");
  for (const key of Object.keys(input)) if (key !== 'message' && key !== 'saveToSentItems') throw unknownProperty(key, 'sendMail');
  const save = input.saveToSentItems;
  if (save !== undefined && typeof save !== 'boolean' && save !== 'true' && save !== 'false')
    throw requestBodyRead("Cannot convert the literal to the expected type 'Edm.Boolean'.");
  const draft = emptyDraft(mailbox, mailbox.wellKnown('drafts'), { notify: false });
  try {
    applyPatch(mailbox, draft, input.message, { attachments: true });
    checkRecipients(draft);
  } catch (err) {
    mailbox.messages.delete(draft.immutableId);
    throw err;
  }
  sendDraft(mailbox, draft, { saveToSentItems: save !== false && save !== 'false' });
  return { status: 202 };
}
