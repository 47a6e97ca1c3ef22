import type { Account, Reply } from './account.ts';
import { GraphError, isRecord } from './http.ts';
import { EMAIL_PATTERN, type StoredMessage, recipient, textToHtml } from './mailbox.ts';

/**
 * Mailing-list mail and mail sent from elsewhere:
 * - `internetMessageHeaders` of a message (Graph returns them when `$select` names them): the
 *   headers built from its fields, then its own (List-Unsubscribe, List-Unsubscribe-Post, …);
 * - the seed's newsletters carry RFC 2369 / RFC 8058 headers (`newsletterHeaders`);
 * - `[scope]/list-unsubscribe[/{token}]`: a mailing list's one-click endpoint. A POST is recorded
 *   as received (method, content type, body) and answered 200; GET lists what was received;
 * - `[scope]/send-elsewhere {inReplyTo, body?, subject?, to?}`: a message the owner sent from
 *   another client (Outlook, a phone) lands straight in Sent Items, in the conversation of
 *   `inReplyTo` (notifying Sent Items subscriptions), as Exchange records it.
 */

type Header = { name: string; value: string };

export function internetMessageHeaders(message: StoredMessage): Header[] {
  const addresses = (list: StoredMessage['toRecipients']) =>
    list.map((r) => `${r.emailAddress.name} <${r.emailAddress.address}>`).join(', ');
  return [
    { name: 'Message-ID', value: message.internetMessageId },
    { name: 'Subject', value: message.subject },
    ...(message.from ? [{ name: 'From', value: addresses([message.from]) }] : []),
    ...(message.toRecipients.length ? [{ name: 'To', value: addresses(message.toRecipients) }] : []),
    { name: 'Date', value: new Date(message.sentDateTime ?? message.receivedDateTime).toUTCString() },
    ...(message.inReplyTo ? [{ name: 'In-Reply-To', value: message.inReplyTo }] : []),
    ...(message.extraHeaders ?? []),
  ];
}

/** A newsletter's list headers: a web and a mailto: way out, and one-click (RFC 8058). */
export function newsletterHeaders(listAddress: string, memberId: string): Header[] {
  const domain = listAddress.split('@')[1] ?? 'lists.example';
  return [
    { name: 'List-Id', value: `<news.${domain}>` },
    {
      name: 'List-Unsubscribe',
      value: `<mailto:unsubscribe@${domain}?subject=unsubscribe%20${memberId}>, <https://${domain}/unsubscribe/${memberId}>`,
    },
    { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
  ];
}

/** Headers a delivered message is given (`deliver {headers}`): names and values of printable text. */
export function parseHeaders(value: unknown): Header[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 20) throw invalid('headers must be a list of at most 20 {name, value}');
  return value.map((h) => {
    if (!isRecord(h) || typeof h.name !== 'string' || typeof h.value !== 'string' || !/^[!-9;-~]{1,100}$/.test(h.name))
      throw invalid('each header needs a name (printable, no colon) and a value');
    if (h.value.length > 4000 || /[\r\n\0]/.test(h.value)) throw invalid('a header value is one line of at most 4000 characters');
    return { name: h.name, value: h.value };
  });
}

interface Received {
  time: string;
  token: string | null;
  method: string;
  contentType: string | null;
  body: string;
}

const received = new WeakMap<Account, Received[]>();

/** `[scope]/list-unsubscribe[/{token}]`. */
export function listUnsubscribe(
  account: Account,
  method: string,
  token: string | undefined,
  body: Buffer,
  contentType: string | null,
): Reply {
  const log = received.get(account) ?? [];
  received.set(account, log);
  if (method === 'GET') return { status: 200, json: { value: log } };
  if (method === 'DELETE') {
    log.length = 0;
    return { status: 204 };
  }
  if (method !== 'POST') throw new GraphError(405, 'MethodNotAllowed', 'method not allowed on this control endpoint');
  log.push({ time: new Date().toISOString(), token: token ?? null, method, contentType, body: body.toString('utf8').slice(0, 10_000) });
  if (log.length > 500) log.shift();
  return { status: 200, json: { unsubscribed: true } };
}

/** `[scope]/send-elsewhere`: the owner's message straight into Sent Items. */
export function sendElsewhere(account: Account, input: unknown): Reply {
  if (!isRecord(input)) throw invalid('the body must be a JSON object');
  const mailbox = account.mailbox;
  const replyTo = typeof input.inReplyTo === 'string' ? mailbox.findMessage(input.inReplyTo) : undefined;
  if (input.inReplyTo !== undefined && !replyTo) throw invalid('inReplyTo: no such message');
  const to =
    input.to === undefined
      ? replyTo?.from
        ? [replyTo.from]
        : []
      : Array.isArray(input.to) && input.to.every((a) => typeof a === 'string' && EMAIL_PATTERN.test(a))
        ? (input.to as string[]).map((a) => recipient(a, a))
        : undefined;
  if (!to || to.length === 0) throw invalid('to must be a list of addresses (or inReplyTo a received message)');
  const text = typeof input.body === 'string' ? input.body : 'Thanks — sent from my phone.';
  const subject =
    typeof input.subject === 'string' ? input.subject : replyTo ? `RE: ${replyTo.subject.replace(/^RE:\s*/i, '')}` : 'Sent from elsewhere';
  const now = mailbox.nowIso();
  const message = mailbox.addMessage({
    folderId: mailbox.wellKnown('sentitems').id,
    subject,
    body: { contentType: 'html', content: textToHtml(text) },
    from: mailbox.me(),
    toRecipients: to,
    conversationId: replyTo?.conversationId,
    inReplyTo: replyTo?.internetMessageId ?? null,
    isRead: true,
    isDraft: false,
    receivedDateTime: now,
    sentDateTime: now,
  });
  return {
    status: 201,
    json: {
      id: message.restId,
      immutableId: message.immutableId,
      conversationId: message.conversationId,
      sentDateTime: message.sentDateTime,
    },
  };
}

function invalid(message: string): GraphError {
  return new GraphError(400, 'BadRequest', message);
}
