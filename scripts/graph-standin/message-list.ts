import type { Reply } from './account.ts';
import { attachmentJson } from './attachments.ts';
import { type GraphCall, ok } from './graph-call.ts';
import { GraphError } from './http.ts';
import { bodyText, type Recipient, type StoredMessage } from './mailbox.ts';
import { MESSAGE_PROPERTIES, messageJson, withUniqueBody } from './message-json.ts';
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

/** Listing messages: `$filter`, `$orderby`, `$search` (KQL), paging and `$expand=attachments`. */

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

/** Graph caps the result set of a mailbox `$search`. */
const SEARCH_RESULT_LIMIT = 1000;

export function messageList(call: GraphCall, items: StoredMessage[]): Reply {
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

export function parseExpand(query: URLSearchParams): boolean {
  const raw = option(query, 'expand');
  if (raw === null || raw.trim() === '') return false;
  if (/^attachments(\(.*\))?$/i.test(raw.trim())) return true;
  throw new GraphError(
    400,
    'BadRequest',
    `Parsing OData Select and Expand failed: Could not find a property named '${raw.trim()}' on type 'microsoft.graph.message'.`,
  );
}
