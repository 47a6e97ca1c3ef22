import type { Attachment, MailFolder, Message, Recipient } from '@microsoft/microsoft-graph-types';
import { z } from '@hono/zod-openapi';

/** What the JSON routes answer: Graph's messages and folders in this service's smaller shapes. */

export const AddressSchema = z.object({ name: z.string(), address: z.string() }).openapi('Address');
export const FolderSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    parentId: z.string().nullable(),
    unread: z.number().int(),
    total: z.number().int(),
    children: z.number().int(),
    wellKnown: z.string().nullable(),
  })
  .openapi('Folder');
/** A folder in the tree /api/folders answers: `depth` 0 at the top level, its parent's + 1 below. */
export const FolderInTreeSchema = FolderSchema.extend({ depth: z.number().int() }).openapi('FolderInTree');
export const MessageSummarySchema = z
  .object({
    id: z.string(),
    conversationId: z.string().nullable(),
    subject: z.string(),
    preview: z.string(),
    from: AddressSchema.nullable(),
    to: z.array(AddressSchema),
    receivedAt: z.string().nullable(),
    sentAt: z.string().nullable(),
    isRead: z.boolean(),
    isDraft: z.boolean(),
    hasAttachments: z.boolean(),
    importance: z.string(),
    folderId: z.string().nullable(),
    /** inbox, sentitems, drafts, … or null for a folder of the user's own. */
    folder: z.string().nullable(),
  })
  .openapi('MessageSummary');
export const AttachmentSchema = z
  .object({ id: z.string(), name: z.string(), contentType: z.string(), size: z.number().int(), isInline: z.boolean() })
  .openapi('Attachment');
export const MessageSchema = MessageSummarySchema.extend({
  cc: z.array(AddressSchema),
  bcc: z.array(AddressSchema),
  replyTo: z.array(AddressSchema),
  body: z.object({ contentType: z.string(), content: z.string() }),
  attachments: z.array(AttachmentSchema),
  internetMessageId: z.string().nullable(),
  webLink: z.string().nullable(),
}).openapi('Message');

export type Address = z.infer<typeof AddressSchema>;
export type FolderView = z.infer<typeof FolderSchema>;
export type MessageSummary = z.infer<typeof MessageSummarySchema>;
export type MessageView = z.infer<typeof MessageSchema>;
export type AttachmentView = z.infer<typeof AttachmentSchema>;

const address = (recipient: Recipient | null | undefined): Address | null =>
  recipient?.emailAddress ? { name: recipient.emailAddress.name ?? '', address: recipient.emailAddress.address ?? '' } : null;
const addresses = (list: Recipient[] | null | undefined): Address[] => (list ?? []).map(address).filter((a): a is Address => a !== null);

/** Well-known name of a folder id, given the mailbox's well-known folder ids. */
export function wellKnownName(folderId: string | null | undefined, wellKnown: Record<string, string>): string | null {
  if (!folderId) return null;
  for (const [name, id] of Object.entries(wellKnown)) if (id === folderId) return name;
  return null;
}

export function folderView(folder: MailFolder, wellKnown: Record<string, string>): FolderView {
  return {
    id: folder.id ?? '',
    name: folder.displayName ?? '',
    parentId: folder.parentFolderId ?? null,
    unread: folder.unreadItemCount ?? 0,
    total: folder.totalItemCount ?? 0,
    children: folder.childFolderCount ?? 0,
    wellKnown: wellKnownName(folder.id, wellKnown),
  };
}

export function summaryView(message: Message, wellKnown: Record<string, string>): MessageSummary {
  return {
    id: message.id ?? '',
    conversationId: message.conversationId ?? null,
    subject: message.subject ?? '',
    preview: message.bodyPreview ?? '',
    from: address(message.from),
    to: addresses(message.toRecipients),
    receivedAt: message.receivedDateTime ?? null,
    sentAt: message.sentDateTime ?? null,
    isRead: message.isRead ?? false,
    isDraft: message.isDraft ?? false,
    hasAttachments: message.hasAttachments ?? false,
    importance: message.importance ?? 'normal',
    folderId: message.parentFolderId ?? null,
    folder: wellKnownName(message.parentFolderId, wellKnown),
  };
}

/** An attachment without its content. */
export function attachmentView(attachment: Attachment): AttachmentView {
  return {
    id: attachment.id ?? '',
    name: attachment.name ?? '',
    contentType: attachment.contentType ?? 'application/octet-stream',
    size: attachment.size ?? 0,
    isInline: attachment.isInline ?? false,
  };
}

export function messageView(message: Message, wellKnown: Record<string, string>): MessageView {
  return {
    ...summaryView(message, wellKnown),
    cc: addresses(message.ccRecipients),
    bcc: addresses(message.bccRecipients),
    replyTo: addresses(message.replyTo),
    body: { contentType: message.body?.contentType ?? 'text', content: message.body?.content ?? '' },
    attachments: (message.attachments ?? []).map(attachmentView),
    internetMessageId: message.internetMessageId ?? null,
    webLink: message.webLink ?? null,
  };
}

const htmlEscape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
/** Plain text (typed in the client, or the model's reply) as Graph's HTML body: escaped, line breaks kept. */
export const asHtml = (s: string) => `<div>${htmlEscape(s).replace(/\r?\n/g, '<br>')}</div>`;
