import type { FileAttachment, MailFolder, Message, Person, Subscription, User } from '@microsoft/microsoft-graph-types';
import { HttpError } from '#shared/http-error.ts';
import type { GraphRequest, GraphResult } from './transport.ts';

/** A page of a Graph collection. */
interface Collection<T> {
  value: T[];
  '@odata.nextLink'?: string;
  '@odata.count'?: number;
}

/** Where Graph calls go: the mailbox Durable Object (RPC), or anything that answers the same. */
export interface GraphTransport {
  graph(request: GraphRequest): Promise<GraphResult>;
}

/** The same transport with every call marked background work: reads of the mailbox go first (see Semaphore). */
export const inBackground = (transport: GraphTransport): GraphTransport => ({
  graph: (request) => transport.graph({ ...request, priority: 'background' }),
});

export const WELL_KNOWN_FOLDERS = ['inbox', 'sentitems', 'drafts', 'deleteditems', 'archive', 'junkemail'] as const;
type WellKnownFolder = (typeof WELL_KNOWN_FOLDERS)[number];

/** Fields of a message in a list: small payloads (no body). */
export const LIST_FIELDS = [
  'id',
  'conversationId',
  'subject',
  'bodyPreview',
  'from',
  'toRecipients',
  'receivedDateTime',
  'sentDateTime',
  'isRead',
  'isDraft',
  'hasAttachments',
  'importance',
  'parentFolderId',
] as const;
/** Fields of a whole message. */
export const DETAIL_FIELDS = [
  ...LIST_FIELDS,
  'body',
  'sender',
  'ccRecipients',
  'bccRecipients',
  'replyTo',
  'internetMessageId',
  'webLink',
] as const;
const FOLDER_FIELDS = ['id', 'displayName', 'parentFolderId', 'childFolderCount', 'unreadItemCount', 'totalItemCount'] as const;
/** Fields of an attachment without its content. */
const ATTACHMENT_FIELDS = 'id,name,contentType,size,isInline';

/** Most pages followed for one answer (nextLink paging is bounded, never endless). */
const MAX_PAGES = 20;
/** Levels of child folders walked below the top level. */
const MAX_FOLDER_DEPTH = 16;

const select = (fields: readonly string[]) => fields.join(',');
const enc = encodeURIComponent;

function query(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${enc(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Graph's failure as this service's answer: 401 not connected, 404/400 passed on, 503 busy, 502 otherwise. */
export function graphHttpError(result: Extract<GraphResult, { ok: false }>): HttpError {
  if (result.kind === 'busy') return new HttpError(503, result.code, result.message, { retryAfterSeconds: result.retryAfterSeconds ?? 1 });
  if (result.kind === 'not_connected')
    return new HttpError(
      401,
      'mailbox_not_connected',
      'No mailbox is connected (or its authorisation was withdrawn): connect it at /connect.',
    );
  if (result.kind === 'rejected') {
    if (result.status === 404) return new HttpError(404, 'not_found', `Graph has no such item (${result.message}).`);
    return new HttpError(400, 'graph_rejected', `Graph refused the request: ${result.message}`, {
      graph_code: result.code,
      graph_status: result.status,
    });
  }
  return new HttpError(502, 'graph_unavailable', `The mail service failed: ${result.message}`, {
    graph_code: result.code,
    graph_status: result.status,
    ...(result.retryAfterSeconds !== undefined ? { retryAfterSeconds: result.retryAfterSeconds } : {}),
  });
}

/**
 * The item, or undefined when Graph has no such item (404); every other failure (outage,
 * throttling past the retries, a timeout, a refusal) is thrown as it is, so it never reads as "none".
 */
export async function unlessMissing<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
}

/** Typed Microsoft Graph calls for one mailbox (types from @microsoft/microsoft-graph-types). */
export class GraphClient {
  constructor(
    private readonly transport: GraphTransport,
    /** GRAPH_BASE_URL: nextLinks must start with it. */
    private readonly baseUrl: string,
    /** GRAPH_READ_CACHE_MS for a person's reads: how old a shared answer of the mailbox's cache its GETs accept (none by default). */
    private readonly readCacheMs = 0,
  ) {}

  private async call<T>(request: GraphRequest): Promise<T> {
    const result = await this.transport.graph(request);
    if (!result.ok) throw graphHttpError(result);
    return result.json as T;
  }

  private get<T>(path: string): Promise<T> {
    return this.call<T>({ method: 'GET', path, ...(this.readCacheMs > 0 ? { maxAgeMs: this.readCacheMs } : {}) });
  }

  /** A nextLink as a path under the base URL; anything pointing elsewhere is refused. */
  relativeLink(link: string): string {
    if (!link.startsWith(`${this.baseUrl}/`))
      throw new HttpError(502, 'graph_unavailable', 'Graph answered a next page outside its own address.');
    return link.slice(this.baseUrl.length);
  }

  /** Every item of a collection, following @odata.nextLink (at most `limit` items, MAX_PAGES pages). */
  async all<T>(path: string, limit = 1000): Promise<T[]> {
    const items: T[] = [];
    let next: string | undefined = path;
    for (let page = 0; next && page < MAX_PAGES && items.length < limit; page++) {
      const answer: Collection<T> = await this.get<Collection<T>>(next);
      items.push(...answer.value);
      next = answer['@odata.nextLink'] ? this.relativeLink(answer['@odata.nextLink']) : undefined;
    }
    return items.slice(0, limit);
  }

  page<T>(path: string): Promise<Collection<T>> {
    return this.get<Collection<T>>(path);
  }

  me(): Promise<User> {
    return this.get<User>(`/me${query({ $select: 'id,displayName,mail,userPrincipalName' })}`);
  }

  /** Every folder of the mailbox at any depth, with counts: the top level, then each level's children. */
  async folders(): Promise<MailFolder[]> {
    const all = await this.all<MailFolder>(`/me/mailFolders${query({ $top: 100, $select: select(FOLDER_FIELDS) })}`);
    let level = all;
    // Bounded like paging: a folder tree deeper than this is not walked further.
    for (let depth = 0; depth < MAX_FOLDER_DEPTH && level.length; depth++) {
      const parents = level.filter((folder) => (folder.childFolderCount ?? 0) > 0 && folder.id);
      const children = await Promise.all(
        parents.map((folder) =>
          this.all<MailFolder>(`/me/mailFolders/${enc(folder.id!)}/childFolders${query({ $top: 100, $select: select(FOLDER_FIELDS) })}`),
        ),
      );
      level = children.flat();
      all.push(...level);
    }
    return all;
  }

  folder(id: string): Promise<MailFolder> {
    return this.get<MailFolder>(`/me/mailFolders/${enc(id)}${query({ $select: select(FOLDER_FIELDS) })}`);
  }

  /** A folder's messages: newest first, or Graph's relevance order with a search (no $skip, $orderby, $count then). */
  messagesPath(folderId: string, options: { top: number; skip?: number; search?: string; fields?: readonly string[] }): string {
    const search = options.search ? `"${options.search.replace(/["\\]/g, ' ')}"` : undefined;
    return `/me/mailFolders/${enc(folderId)}/messages${query({
      $top: options.top,
      $select: select(options.fields ?? LIST_FIELDS),
      ...(search ? { $search: search } : { $orderby: 'receivedDateTime desc', $skip: options.skip || undefined, $count: 'true' }),
    })}`;
  }

  messages(
    folderId: string,
    options: { top: number; skip?: number; search?: string; fields?: readonly string[] },
  ): Promise<Collection<Message>> {
    return this.page<Message>(this.messagesPath(folderId, options));
  }

  message(id: string, options: { attachments?: boolean } = {}): Promise<Message> {
    return this.get<Message>(
      `/me/messages/${enc(id)}${query({ $select: select(DETAIL_FIELDS), $expand: options.attachments ? `attachments($select=${ATTACHMENT_FIELDS})` : undefined })}`,
    );
  }

  /** Every message of a conversation, in every folder. */
  conversation(conversationId: string, fields: readonly string[] = DETAIL_FIELDS): Promise<Message[]> {
    return this.all<Message>(
      `/me/messages${query({ $filter: `conversationId eq '${conversationId.replace(/'/g, "''")}'`, $select: select(fields), $top: 100 })}`,
      500,
    );
  }

  /** conversationId of the newest `limit` messages of the mailbox. */
  recentConversationIds(limit: number): Promise<Pick<Message, 'id' | 'conversationId'>[]> {
    return this.all<Message>(
      `/me/messages${query({ $select: 'id,conversationId', $orderby: 'receivedDateTime desc', $top: Math.min(limit, 1000) })}`,
      limit,
    );
  }

  /** The raw bytes at a path (a `$value`). */
  private async bytes(path: string): Promise<ArrayBuffer> {
    const result = await this.transport.graph({ method: 'GET', path, accept: 'bytes' });
    if (!result.ok) throw graphHttpError(result);
    return result.bytes ?? new ArrayBuffer(0);
  }

  /** The message as RFC 822 MIME. */
  mime(id: string): Promise<ArrayBuffer> {
    return this.bytes(`/me/messages/${enc(id)}/$value`);
  }

  /** A message's attachments, without their content. */
  attachments(messageId: string, limit = 500): Promise<FileAttachment[]> {
    return this.all<FileAttachment>(`/me/messages/${enc(messageId)}/attachments?$select=${ATTACHMENT_FIELDS}`, limit);
  }

  /** One attachment of a message, without its content. */
  attachment(messageId: string, attachmentId: string): Promise<FileAttachment> {
    return this.get<FileAttachment>(`/me/messages/${enc(messageId)}/attachments/${enc(attachmentId)}?$select=${ATTACHMENT_FIELDS}`);
  }

  /** An attachment's content. */
  attachmentBytes(messageId: string, attachmentId: string): Promise<ArrayBuffer> {
    return this.bytes(`/me/messages/${enc(messageId)}/attachments/${enc(attachmentId)}/$value`);
  }

  /** A new draft in Drafts (not a reply). */
  createDraft(message: Message): Promise<Message> {
    return this.call<Message>({ method: 'POST', path: '/me/messages', body: message });
  }

  update(id: string, changes: Partial<Message>): Promise<Message> {
    return this.call<Message>({ method: 'PATCH', path: `/me/messages/${enc(id)}`, body: changes });
  }

  move(id: string, destinationId: string): Promise<Message> {
    return this.call<Message>({ method: 'POST', path: `/me/messages/${enc(id)}/move`, body: { destinationId } });
  }

  createReply(id: string, all: boolean): Promise<Message> {
    return this.call<Message>({ method: 'POST', path: `/me/messages/${enc(id)}/${all ? 'createReplyAll' : 'createReply'}`, body: {} });
  }

  async send(id: string): Promise<void> {
    await this.call<unknown>({ method: 'POST', path: `/me/messages/${enc(id)}/send` });
  }

  async deleteMessage(id: string): Promise<void> {
    await this.call<unknown>({ method: 'DELETE', path: `/me/messages/${enc(id)}` });
  }

  async sendMail(message: Message): Promise<void> {
    await this.call<unknown>({ method: 'POST', path: '/me/sendMail', body: { message, saveToSentItems: true } });
  }

  async people(search: string, top = 10): Promise<Person[]> {
    const answer = await this.page<Person>(`/me/people${query({ $search: `"${search.replace(/["\\]/g, ' ')}"`, $top: top })}`);
    return answer.value;
  }

  createSubscription(body: Subscription): Promise<Subscription> {
    return this.call<Subscription>({ method: 'POST', path: '/subscriptions', body });
  }

  renewSubscription(id: string, expirationDateTime: string): Promise<Subscription> {
    return this.call<Subscription>({ method: 'PATCH', path: `/subscriptions/${enc(id)}`, body: { expirationDateTime } });
  }

  async deleteSubscription(id: string): Promise<void> {
    await this.call<unknown>({ method: 'DELETE', path: `/subscriptions/${enc(id)}` });
  }
}
