import { conversationId as newConversationId, folderId as newFolderId, guid, immutableItemId, restItemId } from './ids.ts';
import { escapeHtml, htmlToText } from './http.ts';

export type EmailAddress = { name: string; address: string };
export type Recipient = { emailAddress: EmailAddress };

export type StoredAttachment = {
  id: string;
  name: string;
  contentType: string;
  bytes: Buffer;
  isInline: boolean;
  contentId: string | null;
  lastModifiedDateTime: string;
};

export type StoredMessage = {
  immutableId: string;
  restId: string;
  folderId: string;
  conversationId: string;
  internetMessageId: string;
  subject: string;
  body: { contentType: 'html' | 'text'; content: string };
  from: Recipient | null;
  sender: Recipient | null;
  toRecipients: Recipient[];
  ccRecipients: Recipient[];
  bccRecipients: Recipient[];
  replyTo: Recipient[];
  createdDateTime: string;
  lastModifiedDateTime: string;
  receivedDateTime: string;
  sentDateTime: string | null;
  isRead: boolean;
  isDraft: boolean;
  importance: 'low' | 'normal' | 'high';
  categories: string[];
  flagStatus: 'notFlagged' | 'flagged' | 'complete';
  attachments: StoredAttachment[];
  /** internetMessageId of the message this one answers, for MIME's In-Reply-To */
  inReplyTo: string | null;
  /** Headers beyond the ones built from the fields (List-Unsubscribe, …): `internetMessageHeaders` (unsubscribe.ts) */
  extraHeaders?: { name: string; value: string }[];
  version: number;
};

export type StoredFolder = {
  id: string;
  displayName: string;
  parentFolderId: string;
  wellKnownName: string | null;
  isHidden: boolean;
};

export type MailUser = {
  id: string;
  displayName: string;
  givenName: string;
  surname: string;
  mail: string;
  userPrincipalName: string;
  jobTitle: string;
  officeLocation: string;
};

/** A change to a message, as change notifications describe it. */
export type MailboxChange = {
  changeType: 'created' | 'updated' | 'deleted';
  message: StoredMessage;
  /** the folder the change happened in (a move is "deleted" in the old one, "created" in the new) */
  folderId: string;
  /** the id the message had in that folder (regular ids change on a move) */
  restId: string;
  /** one half of a move (a "deleted" in the old folder, then a "created" in the new one) */
  move?: boolean;
};

/** Well-known folder names Graph accepts in place of ids, with their display names. */
export const WELL_KNOWN_FOLDERS = {
  inbox: 'Inbox',
  drafts: 'Drafts',
  sentitems: 'Sent Items',
  deleteditems: 'Deleted Items',
  archive: 'Archive',
  junkemail: 'Junk Email',
  outbox: 'Outbox',
  conversationhistory: 'Conversation History',
} as const;
export type WellKnownFolder = keyof typeof WELL_KNOWN_FOLDERS;

export const EMAIL_PATTERN = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/** One user's mailbox: folders, messages, and a clock that control calls can move. */
export class Mailbox {
  readonly folders = new Map<string, StoredFolder>();
  readonly messages = new Map<string, StoredMessage>();
  private readonly restIndex = new Map<string, string>();
  private readonly listeners = new Set<(change: MailboxChange) => void>();
  readonly rootFolderId: string;
  clockOffsetMs = 0;
  /** HTML bodies stored the way Exchange rewrites them (exchangeHtml in http.ts); off: stored as given. */
  rewriteHtml = false;
  private counter = 0;

  constructor(
    readonly key: string,
    readonly user: MailUser,
  ) {
    this.rootFolderId = newFolderId(`${key}:msgfolderroot`);
    for (const [name, displayName] of Object.entries(WELL_KNOWN_FOLDERS)) {
      const id = newFolderId(`${key}:${name}`);
      this.folders.set(id, { id, displayName, parentFolderId: this.rootFolderId, wellKnownName: name, isHidden: false });
    }
  }

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  nowIso(): string {
    return isoSeconds(this.now());
  }

  /** A fresh, per-mailbox deterministic seed for ids (the seed data gets the same ids every time). */
  nextSeed(): string {
    this.counter += 1;
    return `${this.key}:${this.counter}`;
  }

  onChange(listener: (change: MailboxChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: MailboxChange) {
    for (const listener of this.listeners) listener(change);
  }

  // ---------------------------------------------------------------- folders

  wellKnown(name: WellKnownFolder): StoredFolder {
    return this.resolveFolder(name)!;
  }

  /** A folder by id or by well-known name (case-insensitive, as Graph accepts them). */
  resolveFolder(idOrName: string): StoredFolder | undefined {
    const direct = this.folders.get(idOrName);
    if (direct) return direct;
    const lower = idOrName.toLowerCase();
    if (lower === 'msgfolderroot') return this.rootFolder();
    for (const folder of this.folders.values()) if (folder.wellKnownName === lower) return folder;
    return undefined;
  }

  rootFolder(): StoredFolder {
    return {
      id: this.rootFolderId,
      displayName: 'Top of Information Store',
      parentFolderId: guid(`${this.key}:root-parent`),
      wellKnownName: 'msgfolderroot',
      isHidden: false,
    };
  }

  childFolders(parentId: string, includeHidden = false): StoredFolder[] {
    return [...this.folders.values()]
      .filter((f) => f.parentFolderId === parentId && (includeHidden || !f.isHidden))
      .sort((a, b) => a.displayName.localeCompare(b.displayName));
  }

  createFolder(parentId: string, displayName: string, isHidden = false): StoredFolder {
    const id = newFolderId(this.nextSeed());
    const folder = { id, displayName, parentFolderId: parentId, wellKnownName: null, isHidden };
    this.folders.set(id, folder);
    return folder;
  }

  folderCounts(folderId: string) {
    let total = 0;
    let unread = 0;
    let size = 0;
    for (const m of this.messages.values()) {
      if (m.folderId !== folderId) continue;
      total += 1;
      if (!m.isRead) unread += 1;
      size += m.body.content.length + m.attachments.reduce((n, a) => n + a.bytes.length, 0);
    }
    const childFolderCount = [...this.folders.values()].filter((f) => f.parentFolderId === folderId).length;
    return { totalItemCount: total, unreadItemCount: unread, sizeInBytes: size, childFolderCount };
  }

  // ---------------------------------------------------------------- messages

  /** A message by its regular id or its immutable id; a regular id from before a move is gone. */
  findMessage(id: string): StoredMessage | undefined {
    const immutable = this.restIndex.get(id) ?? id;
    return this.messages.get(immutable);
  }

  addMessage(fields: NewMessage, options: { notify?: boolean } = {}): StoredMessage {
    const seed = this.nextSeed();
    const now = this.nowIso();
    const message: StoredMessage = {
      immutableId: immutableItemId(seed),
      restId: restItemId(seed),
      folderId: fields.folderId,
      conversationId: fields.conversationId ?? newConversationId(seed),
      internetMessageId:
        fields.internetMessageId ??
        `<${guid(seed).replace(/-/g, '').slice(0, 24)}@${domainOf(fields.from?.emailAddress.address ?? this.user.mail)}>`,
      subject: fields.subject,
      body: fields.body,
      from: fields.from,
      sender: fields.from,
      toRecipients: fields.toRecipients ?? [],
      ccRecipients: fields.ccRecipients ?? [],
      bccRecipients: fields.bccRecipients ?? [],
      replyTo: fields.replyTo ?? [],
      createdDateTime: fields.createdDateTime ?? fields.receivedDateTime ?? now,
      lastModifiedDateTime: fields.receivedDateTime ?? now,
      receivedDateTime: fields.receivedDateTime ?? now,
      sentDateTime: fields.sentDateTime === undefined ? (fields.receivedDateTime ?? now) : fields.sentDateTime,
      isRead: fields.isRead ?? false,
      isDraft: fields.isDraft ?? false,
      importance: fields.importance ?? 'normal',
      categories: fields.categories ?? [],
      flagStatus: 'notFlagged',
      attachments: (fields.attachments ?? []).map((a, i) => ({
        id: 'AAMkAGatt' + immutableItemId(`${seed}:att:${i}`).slice(6),
        name: a.name,
        contentType: a.contentType,
        bytes: a.bytes,
        isInline: a.isInline ?? false,
        contentId: a.contentId ?? null,
        lastModifiedDateTime: fields.receivedDateTime ?? now,
      })),
      inReplyTo: fields.inReplyTo ?? null,
      ...(fields.extraHeaders?.length ? { extraHeaders: fields.extraHeaders } : {}),
      version: 1,
    };
    this.messages.set(message.immutableId, message);
    this.restIndex.set(message.restId, message.immutableId);
    if (options.notify !== false) this.emit({ changeType: 'created', message, folderId: message.folderId, restId: message.restId });
    return message;
  }

  touch(message: StoredMessage) {
    message.version += 1;
    message.lastModifiedDateTime = this.nowIso();
    this.emit({ changeType: 'updated', message, folderId: message.folderId, restId: message.restId });
  }

  /** Moves a message: a new regular id (the old one stops resolving), the same immutable id. */
  moveMessage(message: StoredMessage, destination: StoredFolder): StoredMessage {
    if (message.folderId === destination.id) return message;
    const old = { folderId: message.folderId, restId: message.restId };
    this.restIndex.delete(message.restId);
    message.restId = restItemId(this.nextSeed());
    this.restIndex.set(message.restId, message.immutableId);
    message.folderId = destination.id;
    message.version += 1;
    message.lastModifiedDateTime = this.nowIso();
    this.emit({ changeType: 'deleted', message, folderId: old.folderId, restId: old.restId, move: true });
    this.emit({ changeType: 'created', message, folderId: message.folderId, restId: message.restId, move: true });
    return message;
  }

  removeMessage(message: StoredMessage) {
    this.messages.delete(message.immutableId);
    this.restIndex.delete(message.restId);
    this.emit({ changeType: 'deleted', message, folderId: message.folderId, restId: message.restId });
  }

  /** The mailbox owner as a recipient. */
  me(): Recipient {
    return { emailAddress: { name: this.user.displayName, address: this.user.mail } };
  }

  isMe(recipient: Recipient): boolean {
    return recipient.emailAddress.address.toLowerCase() === this.user.mail.toLowerCase();
  }
}

export type NewMessage = {
  folderId: string;
  subject: string;
  body: { contentType: 'html' | 'text'; content: string };
  from: Recipient | null;
  toRecipients?: Recipient[];
  ccRecipients?: Recipient[];
  bccRecipients?: Recipient[];
  replyTo?: Recipient[];
  conversationId?: string;
  internetMessageId?: string;
  inReplyTo?: string | null;
  createdDateTime?: string;
  receivedDateTime?: string;
  sentDateTime?: string | null;
  isRead?: boolean;
  isDraft?: boolean;
  importance?: 'low' | 'normal' | 'high';
  categories?: string[];
  attachments?: { name: string; contentType: string; bytes: Buffer; isInline?: boolean; contentId?: string | null }[];
  extraHeaders?: { name: string; value: string }[];
};

export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function domainOf(address: string): string {
  return address.slice(address.indexOf('@') + 1) || 'localhost';
}

export function recipient(name: string, address: string): Recipient {
  return { emailAddress: { name, address } };
}

/** Plain text of a body, as bodyPreview and search see it. */
export function bodyText(message: StoredMessage): string {
  return message.body.contentType === 'html' ? htmlToText(message.body.content) : message.body.content;
}

export function textToHtml(text: string): string {
  return `<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head><body>${text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('')}</body></html>`;
}
