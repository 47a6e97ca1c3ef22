import { internetMessageHeaders } from './unsubscribe.ts';
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Account, Reply } from './account.ts';
import { handleMasterCategories } from './categories.ts';
import { GraphError, escapeHtml, exchangeHtml, htmlToText, isRecord, parseJsonBody } from './http.ts';
import type { AccessToken } from './identity.ts';
import { guid } from './ids.ts';
import { EMAIL_PATTERN, bodyText, textToHtml, type Mailbox, type Recipient, type StoredFolder, type StoredMessage } from './mailbox.ts';
import { messageMime } from './mime.ts';
import {
  applySelect,
  checkFilterWithOrder,
  decodeSkipToken,
  encodeSkipToken,
  nextLink,
  option,
  parseCount,
  parseFilter,
  parseOrderBy,
  parseSelect,
  parseSkip,
  parseTop,
  sortBy,
  type Properties,
} from './odata.ts';
import type { SubscriptionHub } from './subscriptions.ts';

/** One authenticated Graph request, after the token check. */
export type GraphCall = {
  method: string;
  /** path segments after `/v1.0`, `users/{me}` folded into `me`, `name('x')` split in two */
  segments: string[];
  query: URLSearchParams;
  body: Buffer;
  headers: IncomingHttpHeaders;
  account: Account;
  token: AccessToken;
  /** e.g. http://127.0.0.1:8796/v1.0 */
  graphBase: string;
  /** the request path after the version, for nextLink */
  path: string;
  immutableIds: boolean;
  bodyType: 'html' | 'text' | null;
};

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

const FOLDER_PROPERTIES = [
  'id',
  'displayName',
  'parentFolderId',
  'childFolderCount',
  'unreadItemCount',
  'totalItemCount',
  'sizeInBytes',
  'isHidden',
] as const;

const MESSAGE_FILTER: Properties<StoredMessage> = {
  conversationId: (m) => m.conversationId,
  subject: (m) => m.subject,
  importance: (m) => m.importance,
  parentFolderId: (m) => m.folderId,
  internetMessageId: (m) => m.internetMessageId,
  isRead: (m) => m.isRead,
  isDraft: (m) => m.isDraft,
  hasAttachments: (m) => m.attachments.length > 0,
  receivedDateTime: (m) => m.receivedDateTime,
  sentDateTime: (m) => m.sentDateTime,
  createdDateTime: (m) => m.createdDateTime,
  lastModifiedDateTime: (m) => m.lastModifiedDateTime,
  'from/emailAddress/address': (m) => m.from?.emailAddress.address ?? null,
  'from/emailAddress/name': (m) => m.from?.emailAddress.name ?? null,
  'sender/emailAddress/address': (m) => m.sender?.emailAddress.address ?? null,
  'flag/flagStatus': (m) => m.flagStatus,
  inferenceClassification: () => 'focused',
};

const FOLDER_FILTER: Properties<StoredFolder> = {
  displayName: (f) => f.displayName,
  parentFolderId: (f) => f.parentFolderId,
  isHidden: (f) => f.isHidden,
};

/** Graph caps the result set of a mailbox `$search`. */
const SEARCH_RESULT_LIMIT = 1000;

const READ = ['Mail.Read', 'Mail.ReadWrite'];
const WRITE = ['Mail.ReadWrite'];
const SEND = ['Mail.Send'];

export class GraphApi {
  constructor(private readonly subscriptions: SubscriptionHub) {}

  async handle(call: GraphCall): Promise<Reply> {
    const s = call.segments;
    const m = call.method;
    const lower = s.map((x, i) => (isFixedSegment(i, s) ? x.toLowerCase() : x));
    const at = (i: number) => lower[i];

    if (at(0) === 'subscriptions') {
      need(call, READ);
      if (s.length === 1 && m === 'GET') return this.subscriptions.list(call);
      if (s.length === 1 && m === 'POST') return this.subscriptions.create(call);
      if (s.length === 2 && m === 'GET') return this.subscriptions.get(call, s[1]!);
      if (s.length === 2 && m === 'PATCH') return this.subscriptions.update(call, s[1]!);
      if (s.length === 2 && m === 'DELETE') return this.subscriptions.remove(call, s[1]!);
      throw badMethodOrPath(call);
    }
    if (at(0) !== 'me') throw notFoundSegment(s[0] ?? '');
    if (s.length === 1) {
      if (m !== 'GET') throw badMethodOrPath(call);
      need(call, ['User.Read']);
      return this.me(call);
    }
    switch (at(1)) {
      case 'mailfolders':
        return this.mailFolders(call, s.slice(2), lower.slice(2));
      case 'messages':
        return this.messages(call, s.slice(2), lower.slice(2), null);
      case 'sendmail':
        if (s.length !== 2 || m !== 'POST') throw badMethodOrPath(call);
        need(call, SEND);
        return this.sendMail(call);
      case 'outlook':
        return handleMasterCategories(call, call.account.mailbox, s.slice(2));
      case 'people':
        if (s.length !== 2 || m !== 'GET') throw badMethodOrPath(call);
        need(call, ['People.Read']);
        return this.people(call);
      default:
        throw notFoundSegment(s[1]!);
    }
  }

  // ------------------------------------------------------------------ user

  private me(call: GraphCall): Reply {
    const u = call.account.mailbox.user;
    const entity = {
      id: u.id,
      businessPhones: [],
      displayName: u.displayName,
      givenName: u.givenName,
      jobTitle: u.jobTitle,
      mail: u.mail,
      mobilePhone: null,
      officeLocation: u.officeLocation,
      preferredLanguage: 'en-AU',
      surname: u.surname,
      userPrincipalName: u.userPrincipalName,
    };
    const select = parseSelect(call.query, Object.keys(entity), 'user');
    return ok({ '@odata.context': `${call.graphBase}/$metadata#users/$entity`, ...applySelect(entity, select) });
  }

  // ------------------------------------------------------------------ folders

  private mailFolders(call: GraphCall, rest: string[], lower: string[]): Reply | Promise<Reply> {
    const mailbox = call.account.mailbox;
    if (rest.length === 0) {
      if (call.method === 'GET') {
        need(call, READ);
        return this.folderList(call, mailbox.rootFolderId);
      }
      if (call.method === 'POST') {
        need(call, WRITE);
        return this.createFolder(call, mailbox.rootFolderId);
      }
      throw badMethodOrPath(call);
    }
    const folder = mailbox.resolveFolder(rest[0]!);
    if (!folder) throw new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
    if (rest.length === 1) {
      if (call.method !== 'GET') throw badMethodOrPath(call);
      need(call, READ);
      const select = parseSelect(call.query, FOLDER_PROPERTIES, 'mailFolder');
      return ok({
        '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/mailFolders/$entity`,
        ...applySelect(folderJson(mailbox, folder), select),
      });
    }
    if (lower[1] === 'childfolders' && rest.length === 2) {
      if (call.method === 'GET') {
        need(call, READ);
        return this.folderList(call, folder.id);
      }
      if (call.method === 'POST') {
        need(call, WRITE);
        return this.createFolder(call, folder.id);
      }
      throw badMethodOrPath(call);
    }
    if (lower[1] === 'messages') return this.messages(call, rest.slice(2), lower.slice(2), folder);
    throw notFoundSegment(rest[1]!);
  }

  private folderList(call: GraphCall, parentId: string): Reply {
    const mailbox = call.account.mailbox;
    const includeHidden = call.query.get('includeHiddenFolders') === 'true';
    let folders = mailbox.childFolders(parentId, includeHidden);
    const filterText = option(call.query, 'filter');
    if (filterText) {
      const filter = parseFilter(filterText, FOLDER_FILTER);
      folders = folders.filter((f) => filter.test(f));
    }
    const select = parseSelect(call.query, FOLDER_PROPERTIES, 'mailFolder');
    const top = parseTop(call.query, 10);
    const skip = parseSkip(call.query);
    const page = folders.slice(skip, skip + top);
    const body: Record<string, unknown> = { '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/mailFolders` };
    if (parseCount(call.query)) body['@odata.count'] = folders.length;
    body.value = page.map((f) => applySelect(folderJson(mailbox, f), select));
    if (skip + top < folders.length)
      body['@odata.nextLink'] = nextLink(`${call.graphBase}${call.path}`, call.query, { $skip: String(skip + top) });
    return ok(body);
  }

  private createFolder(call: GraphCall, parentId: string): Reply {
    const mailbox = call.account.mailbox;
    const input = parseJsonBody(call.body);
    if (!isRecord(input)) throw requestBodyRead('The request body must be a JSON object.');
    for (const key of Object.keys(input)) if (key !== 'displayName' && key !== 'isHidden') throw unknownProperty(key, 'mailFolder');
    const name = input.displayName;
    if (typeof name !== 'string' || !name.trim())
      throw new GraphError(400, 'ErrorInvalidRequest', 'The folder name must be a non-empty string.');
    if (name.length > 255) throw new GraphError(400, 'ErrorInvalidRequest', 'The folder name is too long.');
    if (input.isHidden !== undefined && typeof input.isHidden !== 'boolean')
      throw requestBodyRead("Cannot convert the literal to the expected type 'Edm.Boolean'.");
    if (mailbox.childFolders(parentId, true).some((f) => f.displayName.toLowerCase() === name.trim().toLowerCase())) {
      throw new GraphError(409, 'ErrorFolderExists', 'A folder with the specified name already exists.');
    }
    const folder = mailbox.createFolder(parentId, name.trim(), input.isHidden === true);
    return {
      status: 201,
      json: {
        '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/mailFolders/$entity`,
        ...folderJson(mailbox, folder),
      },
    };
  }

  // ------------------------------------------------------------------ messages

  private messages(call: GraphCall, rest: string[], lower: string[], folder: StoredFolder | null): Reply | Promise<Reply> {
    const mailbox = call.account.mailbox;
    if (rest.length === 0) {
      if (call.method === 'GET') {
        need(call, READ);
        const items = [...mailbox.messages.values()].filter((msg) => !folder || msg.folderId === folder.id);
        return this.messageList(call, items);
      }
      if (call.method === 'POST') {
        need(call, WRITE);
        return this.createDraft(call, folder ?? mailbox.wellKnown('drafts'));
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
    if (action === 'attachments' && rest.length === 2 && call.method === 'POST') {
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
    if (action === 'attachments' && rest.length === 3 && call.method === 'DELETE') {
      need(call, WRITE);
      if (!message.isDraft) throw new GraphError(400, 'ErrorInvalidOperation', 'Attachments can only be removed from a draft.');
      const index = message.attachments.findIndex((a) => a.id === rest[2]);
      if (index < 0) throw itemNotFound();
      message.attachments.splice(index, 1);
      mailbox.touch(message);
      return { status: 204 };
    }
    if (action === 'attachments') {
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
        return {
          status: 201,
          json: {
            '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages/$entity`,
            ...messageJson(call, result),
          },
        };
      }
      case 'createreply':
      case 'createreplyall':
      case 'createforward': {
        need(call, WRITE);
        const draft = createResponse(mailbox, message, action.slice(6) as 'reply' | 'replyall' | 'forward', parseJsonBody(call.body));
        return {
          status: 201,
          json: {
            '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages/$entity`,
            ...messageJson(call, draft),
          },
        };
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

  private messageList(call: GraphCall, items: StoredMessage[]): Reply {
    const mailbox = call.account.mailbox;
    const select = parseSelect(call.query, MESSAGE_PROPERTIES, 'message');
    const expand = parseExpand(call.query);
    const top = parseTop(call.query, 10);
    const count = parseCount(call.query);
    const searchText = option(call.query, 'search');
    const filterText = option(call.query, 'filter');
    const order = parseOrderBy(call.query, MESSAGE_FILTER);
    const base = `${call.graphBase}${call.path}`;
    const context = `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages`;
    let matched: StoredMessage[];
    let page: StoredMessage[];
    let link: string | null = null;
    if (searchText !== null) {
      for (const name of ['orderby', 'skip', 'filter']) {
        if (option(call.query, name) !== null) {
          throw new GraphError(400, 'ErrorInvalidUrlQuery', `The query parameter '$${name}' is not supported with '$search'.`);
        }
      }
      const search = parseSearch(searchText);
      matched = sortBy(
        items.filter((msg) => search(msg)),
        [{ property: 'receivedDateTime', descending: true }],
        MESSAGE_FILTER,
      ).slice(0, SEARCH_RESULT_LIMIT);
      const tokenText = option(call.query, 'skiptoken');
      const offset = tokenText === null ? 0 : decodeSkipToken(tokenText);
      page = matched.slice(offset, offset + top);
      if (offset + top < matched.length) link = nextLink(base, call.query, { $skiptoken: encodeSkipToken(offset + top) });
    } else {
      const skip = parseSkip(call.query);
      matched = items;
      if (filterText) {
        const filter = parseFilter(filterText, MESSAGE_FILTER);
        if (order) checkFilterWithOrder(filter, order);
        matched = matched.filter((msg) => filter.test(msg));
      }
      matched = sortBy(matched, order ?? [{ property: 'receivedDateTime', descending: true }], MESSAGE_FILTER);
      page = matched.slice(skip, skip + top);
      if (skip + top < matched.length) link = nextLink(base, call.query, { $skip: String(skip + top) });
    }
    const body: Record<string, unknown> = { '@odata.context': select ? `${context}(${select.join(',')})` : context };
    if (count) body['@odata.count'] = matched.length;
    body.value = page.map((msg) => {
      const entity = withUniqueBody(applySelect(messageJson(call, msg), select), msg, select, call.bodyType);
      if (expand) entity.attachments = msg.attachments.map((a) => attachmentJson(msg, a, true));
      return entity;
    });
    if (link) body['@odata.nextLink'] = link;
    return ok(body);
  }

  private createDraft(call: GraphCall, folder: StoredFolder): Reply {
    const mailbox = call.account.mailbox;
    const input = parseJsonBody(call.body);
    const draft = mailbox.addMessage({
      folderId: folder.id,
      subject: '',
      body: { contentType: 'html', content: '' },
      from: mailbox.me(),
      isDraft: true,
      isRead: true,
      sentDateTime: null,
    });
    try {
      applyPatch(mailbox, draft, input, { attachments: true });
    } catch (err) {
      mailbox.removeMessage(draft);
      throw err;
    }
    return {
      status: 201,
      json: { '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/messages/$entity`, ...messageJson(call, draft) },
    };
  }

  private sendMail(call: GraphCall): Reply {
    const mailbox = call.account.mailbox;
    const input = parseJsonBody(call.body);
    if (!isRecord(input) || !isRecord(input.message))
      throw new GraphError(400, 'ErrorInvalidRequest', "The 'message' parameter is required.");
    for (const key of Object.keys(input)) if (key !== 'message' && key !== 'saveToSentItems') throw unknownProperty(key, 'sendMail');
    const save = input.saveToSentItems;
    if (save !== undefined && typeof save !== 'boolean' && save !== 'true' && save !== 'false')
      throw requestBodyRead("Cannot convert the literal to the expected type 'Edm.Boolean'.");
    const draft = mailbox.addMessage(
      {
        folderId: mailbox.wellKnown('drafts').id,
        subject: '',
        body: { contentType: 'html', content: '' },
        from: mailbox.me(),
        isDraft: true,
        isRead: true,
        sentDateTime: null,
      },
      { notify: false },
    );
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

  // ------------------------------------------------------------------ people

  private people(call: GraphCall): Reply {
    const mailbox = call.account.mailbox;
    const contacts = new Map<string, { name: string; address: string; score: number }>();
    for (const msg of mailbox.messages.values()) {
      for (const r of [msg.from, ...msg.toRecipients, ...msg.ccRecipients]) {
        if (!r || mailbox.isMe(r)) continue;
        const key = r.emailAddress.address.toLowerCase();
        const entry = contacts.get(key) ?? {
          name: r.emailAddress.name || r.emailAddress.address,
          address: r.emailAddress.address,
          score: 0,
        };
        entry.score += msg.folderId === mailbox.wellKnown('sentitems').id ? 3 : 1;
        contacts.set(key, entry);
      }
    }
    let people = [...contacts.values()].sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
    const searchText = option(call.query, 'search');
    if (searchText !== null) {
      const q = searchText.replace(/^"|"$/g, '').trim().toLowerCase();
      if (q) {
        people = people.filter(
          (p) =>
            p.address.toLowerCase().startsWith(q) ||
            p.name
              .toLowerCase()
              .split(/[\s.'-]+/)
              .some((word) => word.startsWith(q)) ||
            p.name.toLowerCase().startsWith(q),
        );
      }
    }
    const top = parseTop(call.query, 10);
    const skip = parseSkip(call.query);
    const max = people[0]?.score ?? 1;
    const all = people.map((p) => {
      const [givenName = '', ...rest] = p.name.split(' ');
      return {
        id: guid(`person:${p.address.toLowerCase()}`),
        displayName: p.name,
        givenName,
        surname: rest.join(' '),
        birthday: '',
        personNotes: '',
        isFavorite: false,
        jobTitle: null,
        companyName: null,
        yomiCompany: '',
        department: null,
        officeLocation: null,
        profession: '',
        userPrincipalName: '',
        imAddress: null,
        scoredEmailAddresses: [
          { address: p.address, relevanceScore: Math.round((p.score / max) * 100), selectionLikelihood: 'notSpecified' },
        ],
        phones: [],
        postalAddresses: [],
        websites: [],
        personType: { class: 'Person', subclass: 'PersonalContact' },
      };
    });
    const select = parseSelect(call.query, all[0] ? Object.keys(all[0]) : ['id', 'displayName', 'scoredEmailAddresses'], 'person');
    const page = all.slice(skip, skip + top);
    const body: Record<string, unknown> = {
      '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/people`,
      value: page.map((p) => applySelect(p, select)),
    };
    if (skip + top < all.length)
      body['@odata.nextLink'] = nextLink(`${call.graphBase}${call.path}`, call.query, { $skip: String(skip + top) });
    return ok(body);
  }
}

// ------------------------------------------------------------------ JSON forms

export function messageId(immutable: boolean, message: StoredMessage): string {
  return immutable ? message.immutableId : message.restId;
}

function idOf(call: GraphCall, message: StoredMessage): string {
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
function withUniqueBody(
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

function folderJson(mailbox: Mailbox, folder: StoredFolder): Record<string, unknown> {
  const counts = mailbox.folderCounts(folder.id);
  return {
    id: folder.id,
    displayName: folder.displayName,
    parentFolderId: folder.parentFolderId,
    childFolderCount: counts.childFolderCount,
    unreadItemCount: counts.unreadItemCount,
    totalItemCount: counts.totalItemCount,
    sizeInBytes: counts.sizeInBytes,
    isHidden: folder.isHidden,
  };
}

function attachmentJson(_message: StoredMessage, a: StoredMessage['attachments'][number], withContent: boolean): Record<string, unknown> {
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

// ------------------------------------------------------------------ changes

const ALWAYS_PATCHABLE = new Set(['isRead', 'categories', 'importance', 'flag', 'inferenceClassification']);
const DRAFT_PATCHABLE = new Set(['subject', 'body', 'toRecipients', 'ccRecipients', 'bccRecipients', 'replyTo', 'from', 'sender']);

/** PATCH semantics: recipients, subject and body only on drafts; read-only or unknown names refused. */
function applyPatch(mailbox: Mailbox, message: StoredMessage, input: unknown, options: { attachments?: boolean } = {}) {
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

function checkRecipients(message: StoredMessage) {
  const all = [...message.toRecipients, ...message.ccRecipients, ...message.bccRecipients];
  if (all.length === 0) throw new GraphError(400, 'ErrorInvalidRecipients', 'The message must have at least one recipient.');
  if (all.some((r) => !EMAIL_PATTERN.test(r.emailAddress.address)))
    throw new GraphError(400, 'ErrorInvalidRecipients', "At least one recipient isn't valid.");
}

/** Sends a draft: to Sent Items (or gone), and a copy to the Inbox when the owner is among the recipients. */
function sendDraft(mailbox: Mailbox, draft: StoredMessage, options: { saveToSentItems?: boolean } = {}) {
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

function copyMessage(mailbox: Mailbox, message: StoredMessage, destination: StoredFolder): StoredMessage {
  return mailbox.addMessage({
    ...message,
    folderId: destination.id,
    body: { ...message.body },
    attachments: message.attachments.map((a) => ({ name: a.name, contentType: a.contentType, bytes: a.bytes })),
  });
}

/** createReply / createReplyAll / createForward: a draft in Drafts quoting the original. */
function createResponse(mailbox: Mailbox, original: StoredMessage, kind: 'reply' | 'replyall' | 'forward', input: unknown): StoredMessage {
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

// ------------------------------------------------------------------ $search, $expand

/**
 * `$search="…"` in KQL's simple form: words (all must match subject, body or sender), quoted
 * phrases, `from:`, `to:`, `cc:`, `subject:`, `body:`, `participants:`, `hasattachments:`, and OR.
 */
function parseSearch(raw: string): (m: StoredMessage) => boolean {
  let text = raw.trim();
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) text = text.slice(1, -1);
  text = text.trim();
  if (!text) throw new GraphError(400, 'BadRequest', 'The $search query is empty.');
  const terms = text.match(/(\w+:)?"[^"]*"|\S+/g) ?? [];
  const groups: { field: string | null; value: string }[][] = [[]];
  for (const term of terms) {
    if (term === 'AND') continue;
    if (term === 'OR') {
      groups.push([]);
      continue;
    }
    const match = /^(\w+):(.*)$/.exec(term);
    const field = match ? match[1]!.toLowerCase() : null;
    const value = (match ? match[2]! : term).replace(/^"|"$/g, '').toLowerCase();
    if (field && !['from', 'to', 'cc', 'subject', 'body', 'participants', 'hasattachments', 'hasattachment'].includes(field)) {
      groups.at(-1)!.push({ field: null, value: term.toLowerCase() });
    } else if (value) {
      groups.at(-1)!.push({ field, value });
    }
  }
  const names = (rs: (Recipient | null)[]) =>
    rs
      .filter((r): r is Recipient => r !== null)
      .map((r) => `${r.emailAddress.name} ${r.emailAddress.address}`.toLowerCase())
      .join(' ');
  return (m) =>
    groups.some(
      (group) =>
        group.length > 0 &&
        group.every(({ field, value }) => {
          switch (field) {
            case 'from':
              return names([m.from]).includes(value);
            case 'to':
              return names(m.toRecipients).includes(value);
            case 'cc':
              return names(m.ccRecipients).includes(value);
            case 'participants':
              return names([m.from, ...m.toRecipients, ...m.ccRecipients]).includes(value);
            case 'subject':
              return m.subject.toLowerCase().includes(value);
            case 'body':
              return bodyText(m).toLowerCase().includes(value);
            case 'hasattachments':
            case 'hasattachment':
              return m.attachments.length > 0 === (value === 'true');
            default:
              return (
                m.subject.toLowerCase().includes(value) || bodyText(m).toLowerCase().includes(value) || names([m.from]).includes(value)
              );
          }
        }),
    );
}

function parseExpand(query: URLSearchParams): boolean {
  const raw = option(query, 'expand');
  if (raw === null || raw.trim() === '') return false;
  if (/^attachments(\(.*\))?$/i.test(raw.trim())) return true;
  throw new GraphError(
    400,
    'BadRequest',
    `Parsing OData Select and Expand failed: Could not find a property named '${raw.trim()}' on type 'microsoft.graph.message'.`,
  );
}

// ------------------------------------------------------------------ errors and helpers

function ok(json: unknown): Reply {
  return { status: 200, json };
}

function need(call: GraphCall, anyOf: string[]) {
  if (!anyOf.some((scope) => call.token.scopes.includes(scope)))
    throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
}

function itemNotFound(): GraphError {
  return new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
}

function notFoundSegment(segment: string): GraphError {
  return new GraphError(400, 'BadRequest', `Resource not found for the segment '${segment}'.`);
}

function badMethodOrPath(call: GraphCall): GraphError {
  return new GraphError(405, 'Request_BadRequest', `The ${call.method} method is not supported for this resource.`);
}

function requestBodyRead(message: string): GraphError {
  return new GraphError(400, 'RequestBodyRead', message);
}

function unknownProperty(name: string, type: string): GraphError {
  return new GraphError(
    400,
    'RequestBodyRead',
    `The property '${name}' does not exist on type 'microsoft.graph.${type}'. Make sure to only use property names that are defined by the type or mark the type as open type.`,
  );
}

/** Segment names (not ids) compare case-insensitively, as Graph's do. */
function isFixedSegment(i: number, s: string[]): boolean {
  if (i <= 1) return true;
  const prev = s[i - 1]!.toLowerCase();
  return !(prev === 'mailfolders' || prev === 'messages' || prev === 'attachments' || prev === 'childfolders' || prev === 'subscriptions');
}
