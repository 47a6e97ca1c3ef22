import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Message } from '@microsoft/microsoft-graph-types';
import type { Context, MiddlewareHandler } from 'hono';
import { fromBase64Url, toBase64Url, utf8 } from '#shared/crypto.ts';
import { downloadHeaders } from '#shared/downloads.ts';
import { HttpError } from '#shared/http-error.ts';
import { NUL_MESSAGE, hasNul } from '#shared/text.ts';
import type { MailEnv } from '../context.ts';
import { folderTree, resolveFolder } from '../folders.ts';
import { apiMailbox, apiSession, csrf, limitBody } from '../guards.ts';
import {
  AddressSchema,
  FolderInTreeSchema,
  FolderSchema,
  MessageSchema,
  MessageSummarySchema,
  asHtml,
  folderView,
  messageView,
  summaryView,
} from '../mail-views.ts';
import {
  type AssistantFields,
  DraftOrigin,
  MessageAssistantSchema,
  ThreadSummarySchema,
  assistantAllowed,
  assistantFields,
  storedThreadSummary,
} from '../assistant-fields.ts';
import {
  INLINE_IMAGE_TYPES,
  MAX_INLINE_IMAGE_BYTES,
  MAX_INLINE_TOTAL_BYTES,
  contentIdKey,
  contentIdsIn,
  dataUrl,
  frameCsp,
  frameDocument,
  sanitiseMailHtml,
  textDocumentBody,
} from '../html-mail.ts';

/** The mailbox's JSON routes (gate "token": a session and a connected mailbox). */

const noNul = (s: string) => !hasNul(s);
export const text = (max: number) => z.string().max(max, `must be at most ${max} characters`).refine(noNul, NUL_MESSAGE);
export const messageId = z
  .string()
  .regex(/^[A-Za-z0-9=+_.:-]{1,512}$/, 'must be a Graph message id')
  .openapi({ param: { name: 'message_id', in: 'path' } });
const folderName = z
  .string()
  .min(1)
  .max(255)
  .refine(noNul, NUL_MESSAGE)
  .openapi({ param: { name: 'folder_name', in: 'path' }, example: 'inbox' });

export const ErrorSchema = z
  .object({ error: z.string(), message: z.string(), request_id: z.string().optional() })
  .passthrough()
  .openapi('Error');
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
/** A route's required JSON body (`request` of createRoute). */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({ body: { content: { 'application/json': { schema } }, required: true } });
/** The `trace_id` of an answer of the assistant. */
export const TraceId = z.string().openapi({ description: 'The trace of this call: /trace/<trace_id>' });
export const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [code, json(ErrorSchema, ERROR_TEXT[code] ?? 'Error')]));
const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input, or Graph refused it',
  401: 'Not signed in, or no mailbox connected',
  403: 'Anti-forgery check failed, or not allowed',
  429: 'Too many requests',
  404: 'No such message or folder',
  413: 'Body too large',
  502: 'Graph failed, timed out or kept throttling',
  503: 'Too many reads of the mailbox are waiting for Graph: try again after Retry-After',
};
/** The failures of the mailbox's routes (reads, changes). */
export const readErrors = errors(400, 401, 404, 502, 503);
export const writeErrors = errors(400, 401, 403, 404, 413, 502, 503);

export const security = [{ session: [] }];
/** Gate "token" on a read. */
export const readGuards: MiddlewareHandler<MailEnv>[] = [apiSession, apiMailbox];
/** Gate "token" on a change: session, body cap, anti-forgery, mailbox. */
export const writeGuards = (maxBody = 64 * 1024): MiddlewareHandler<MailEnv>[] => [apiSession, limitBody(maxBody), csrf, apiMailbox];

export const api = new OpenAPIHono<MailEnv>();

// ---- folders -----------------------------------------------------------------------------

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/folders',
    tags: ['Mail'],
    summary: 'Folders with unread and total counts',
    security,
    middleware: readGuards,
    responses: {
      200: json(
        z.object({ folders: z.array(FolderInTreeSchema) }),
        'Every folder as Outlook draws it: each under its parent, well-known folders first, then by name',
      ),
      ...readErrors,
    },
  }),
  async (c) => {
    const [folders, wellKnown] = await Promise.all([c.var.graph.folders(), c.var.mailbox.wellKnownFolders()]);
    return c.json({ folders: folderTree(folders.map((f) => folderView(f, wellKnown))) }, 200);
  },
);

// ---- message lists -----------------------------------------------------------------------

const MAX_ALL = 1000;
const ListQuery = z.object({
  top: z
    .union([z.literal('all'), z.coerce.number().int().min(1).max(100)])
    .optional()
    .openapi({ description: 'Messages per page, 1–100 (default 25), or `all` (every message, at most 1000)' }),
  q: text(200).optional().openapi({ description: 'Search (subject, body, sender); relevance order, paged by `next`' }),
  skip: z.coerce.number().int().min(0).max(100_000).optional().openapi({ description: 'Offset, without `q`' }),
  next: z.string().max(2048).optional().openapi({ description: 'The `next` of the previous page' }),
});

// What the assistant adds to a message of the mailbox's answers (null for an account not allowed the assistant, or a message it has not read).
const assistantOfMessage = {
  assistant: MessageAssistantSchema.nullable().openapi({
    description:
      'The assistant’s stored category, summary and reply state; null when it has none (or the account may not use the assistant)',
  }),
  draftOrigin: DraftOrigin.nullable().openapi({
    description: 'For a reply draft of the assistant: "model draft" or "template reply"; null for any other message',
  }),
};
const ListItemSchema = MessageSummarySchema.extend(assistantOfMessage).openapi('MessageListItem');
const MessageWithAssistantSchema = MessageSchema.extend(assistantOfMessage).openapi('MessageWithAssistant');
const withAssistant = <T extends { id: string }>(view: T, fields: AssistantFields) => ({
  ...view,
  assistant: fields.messages.get(view.id) ?? null,
  draftOrigin: fields.drafts.get(view.id) ?? null,
});

const ListAnswer = z.object({
  folder: FolderSchema,
  items: z.array(ListItemSchema),
  assistant: z.boolean().openapi({ description: 'Whether the account may use the assistant (its fields are null when not)' }),
  top: z.number().int(),
  skip: z.number().int(),
  count: z.number().int().nullable().openapi({ description: 'Messages in the folder (without `q`)' }),
  next: z.string().nullable().openapi({ description: 'Cursor of the next page, or null' }),
});

/** The next page as an opaque cursor: the nextLink's path, kept to the same folder's messages. */
const encodeCursor = (path: string) => toBase64Url(utf8(path));
/** A `next` cursor's path, which must be of the folder (by its id, or by the well-known name it was asked by). */
function decodeCursor(cursor: string, folderIds: string[]): string {
  const bytes = fromBase64Url(cursor);
  const path = bytes ? new TextDecoder().decode(bytes) : '';
  if (!folderIds.some((id) => path.startsWith(`/me/mailFolders/${encodeURIComponent(id)}/messages?`)))
    throw new HttpError(400, 'invalid_request', 'query.next: not a cursor of this folder', {
      issues: [{ field: 'query.next', message: 'not a cursor of this folder' }],
    });
  return path;
}

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/emails/{folder_name}',
    tags: ['Mail'],
    summary: 'A folder’s messages: paged and searchable',
    security,
    middleware: readGuards,
    request: { params: z.object({ folder_name: folderName }), query: ListQuery },
    responses: { 200: json(ListAnswer, 'One page of messages, newest first (relevance order with `q`)'), ...readErrors },
  }),
  async (c) => {
    const { folder_name } = c.req.valid('param');
    const { top = 25, q, skip = 0, next } = c.req.valid('query');
    if (q !== undefined && skip)
      throw new HttpError(400, 'invalid_request', 'query.skip: search results are paged with `next`, not `skip`', {
        issues: [{ field: 'query.skip', message: 'not with q' }],
      });
    const graph = c.var.graph;
    const folderId = await resolveFolder(graph, folder_name);
    const search = q?.trim() || undefined;
    const allowed = assistantAllowed(c);
    // The first page is asked for beside the folder (by the id or well-known name it resolved to): one round trip, not two.
    const [folder, wellKnown, firstPage] = await Promise.all([
      graph.folder(folderId),
      c.var.mailbox.wellKnownFolders(),
      top === 'all' || next ? undefined : graph.messages(folderId, { top, skip, search }),
    ]);
    let items: Message[];
    let count: number | null = null;
    let nextLink: string | undefined;
    if (top === 'all') {
      items = await graph.all<Message>(graph.messagesPath(folderId, { top: 100, search }), MAX_ALL);
      count = search ? null : (folder.totalItemCount ?? null);
    } else {
      const page = firstPage ?? (await graph.page<Message>(decodeCursor(next ?? '', [folder.id ?? folderId, folderId])));
      items = page.value;
      count = search ? null : (page['@odata.count'] ?? folder.totalItemCount ?? null);
      nextLink = page['@odata.nextLink'];
    }
    const fields = await assistantFields(
      c,
      items.map((m) => m.id ?? ''),
      await allowed,
    );
    return c.json(
      {
        folder: folderView(folder, wellKnown),
        items: items.map((m) => withAssistant(summaryView(m, wellKnown), fields)),
        assistant: fields.allowed,
        top: top === 'all' ? items.length : top,
        skip: top === 'all' || search ? 0 : skip,
        count,
        next: nextLink ? encodeCursor(graph.relativeLink(nextLink)) : null,
      },
      200,
    );
  },
);

// ---- one message, its thread, its MIME ---------------------------------------------------

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/email/{message_id}',
    tags: ['Mail'],
    summary: 'A whole message: to, cc, bcc, body, attachments; in which folder (draft, sent, inbox, …)',
    security,
    middleware: readGuards,
    request: { params: z.object({ message_id: messageId }) },
    responses: { 200: json(MessageWithAssistantSchema, 'The message, with what the assistant knows of it'), ...readErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const [message, wellKnown, allowed] = await Promise.all([
      c.var.graph.message(message_id, { attachments: true }),
      c.var.mailbox.wellKnownFolders(),
      assistantAllowed(c),
    ]);
    const fields = await assistantFields(c, [message.id ?? message_id], allowed);
    return c.json(withAssistant(messageView(message, wellKnown), fields), 200);
  },
);

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/thread/{message_id}',
    tags: ['Mail'],
    summary: 'The whole conversation of a message, across inbox, sent items and drafts, oldest first',
    security,
    middleware: readGuards,
    request: { params: z.object({ message_id: messageId }) },
    responses: {
      200: json(
        z.object({
          conversationId: z.string(),
          messages: z.array(MessageWithAssistantSchema),
          assistant: z.boolean().openapi({ description: 'Whether the account may use the assistant' }),
          threadSummary: ThreadSummarySchema.nullable().openapi({
            description:
              'The conversation’s stored rolling summary (POST /api/threads/{thread_id}/update-summary makes or updates it); null when none yet',
          }),
        }),
        'The thread',
      ),
      ...readErrors,
    },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const graph = c.var.graph;
    const [first, wellKnown, allowed] = await Promise.all([
      graph.message(message_id),
      c.var.mailbox.wellKnownFolders(),
      assistantAllowed(c),
    ]);
    const conversationId = first.conversationId;
    const messages = conversationId ? await graph.conversation(conversationId) : [first];
    const time = (m: Message) => Date.parse(m.receivedDateTime ?? m.sentDateTime ?? '') || 0;
    messages.sort((a, b) => time(a) - time(b));
    const [fields, threadSummary] = await Promise.all([
      assistantFields(
        c,
        messages.map((m) => m.id ?? ''),
        allowed,
      ),
      storedThreadSummary(c, allowed, conversationId ?? ''),
    ]);
    return c.json(
      {
        conversationId: conversationId ?? '',
        messages: messages.map((m) => withAssistant(messageView(m, wellKnown), fields)),
        assistant: fields.allowed,
        threadSummary,
      },
      200,
    );
  },
);

// The body as the reading pane draws it: a document of its own, for a sandboxed frame.
const FRAME_ATTACHMENT_FIELDS = 'id,name,contentType,size,isInline,contentId';

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/email/{message_id}/html',
    tags: ['Mail'],
    summary:
      'The message body as a sandboxed document: sanitised HTML (nothing that runs, submits or navigates), cid: images from its inline attachments, remote images only with images=remote',
    description:
      "Drawn by the mail client in `<iframe sandbox>`; answered with its own policy (`sandbox`, `default-src 'none'`, images from `data:` — and `https:` with images=remote —, inline styles, framed by this service only). A text body is shown as preformatted text.",
    security,
    middleware: readGuards,
    request: {
      params: z.object({ message_id: messageId }),
      query: z.object({
        images: z
          .enum(['blocked', 'remote'])
          .optional()
          .openapi({ description: '`remote`: load the remote (https) images the reader asked for; blocked by default' }),
      }),
    },
    responses: { 200: { description: 'The frame document', content: { 'text/html': { schema: z.string() } } }, ...readErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const images = c.req.valid('query').images ?? 'blocked';
    const graph = c.var.graph;
    const message = await graph.message(message_id);
    const body = message.body?.content ?? '';
    let html: string;
    if ((message.body?.contentType ?? 'text').toLowerCase() !== 'html') {
      html = textDocumentBody(body);
    } else {
      const inline = await inlineImages(c, message_id, contentIdsIn(body));
      html = (await sanitiseMailHtml(body, { images, inline })).html;
    }
    return c.body(frameDocument(html), 200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': frameCsp(images),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
  },
);

/** The message's inline raster images the body names with `cid:`, as data: URLs (each and all of them size-capped). */
async function inlineImages(c: Context<MailEnv>, messageId: string, wanted: Set<string>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (!wanted.size) return found;
  const graph = c.var.graph;
  const list = await graph.all<{ id?: string; contentType?: string; size?: number; contentId?: string | null }>(
    `/me/messages/${encodeURIComponent(messageId)}/attachments?$select=${FRAME_ATTACHMENT_FIELDS}`,
    100,
  );
  let total = 0;
  const chosen = list.filter((a) => {
    const key = a.contentId ? contentIdKey(a.contentId) : '';
    const type = (a.contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
    const size = a.size ?? 0;
    if (
      !a.id ||
      !key ||
      !wanted.has(key) ||
      found.has(key) ||
      !INLINE_IMAGE_TYPES.has(type) ||
      size > MAX_INLINE_IMAGE_BYTES ||
      total + size > MAX_INLINE_TOTAL_BYTES
    )
      return false;
    total += size;
    found.set(key, '');
    return true;
  });
  found.clear();
  await Promise.all(
    chosen.map(async (a) => {
      const bytes = await graph.attachmentBytes(messageId, a.id!);
      if (bytes.byteLength <= MAX_INLINE_IMAGE_BYTES)
        found.set(contentIdKey(a.contentId!), dataUrl((a.contentType ?? '').split(';', 1)[0]!.trim().toLowerCase(), bytes));
    }),
  );
  return found;
}

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/email-download/{message_id}',
    tags: ['Mail'],
    summary: 'The message as an .eml file (Graph’s MIME content)',
    security,
    middleware: readGuards,
    request: { params: z.object({ message_id: messageId }) },
    responses: { 200: { description: 'RFC 822 message', content: { 'message/rfc822': { schema: z.string() } } }, ...readErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const graph = c.var.graph;
    const [mime, message] = await Promise.all([graph.mime(message_id), graph.message(message_id)]);
    const name =
      (message.subject ?? 'message')
        .replace(/[^\w .()-]+/g, '_')
        .trim()
        .slice(0, 80) || 'message';
    return c.body(mime, 200, downloadHeaders('message/rfc822', `${name}.eml`));
  },
);

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/conversation-counts',
    tags: ['Mail'],
    summary: 'Messages per conversation over the newest messages of the mailbox',
    security,
    middleware: readGuards,
    request: {
      query: z.object({
        top: z.coerce
          .number()
          .int()
          .min(1)
          .max(2000)
          .optional()
          .openapi({ description: 'How many of the newest messages to count (default 500)' }),
      }),
    },
    responses: {
      200: json(z.object({ counts: z.record(z.string(), z.number().int()), scanned: z.number().int() }), 'conversationId → count'),
      ...readErrors,
    },
  }),
  async (c) => {
    const { top = 500 } = c.req.valid('query');
    const messages = await c.var.graph.recentConversationIds(top);
    const counts: Record<string, number> = {};
    for (const m of messages) if (m.conversationId) counts[m.conversationId] = (counts[m.conversationId] ?? 0) + 1;
    return c.json({ counts, scanned: messages.length }, 200);
  },
);

api.openapi(
  createRoute({
    method: 'get',
    path: '/api/people',
    tags: ['Mail'],
    summary: 'Contact typeahead for the To, CC and BCC fields',
    security,
    middleware: readGuards,
    request: { query: z.object({ q: text(100).pipe(z.string().trim().min(2, 'must be at least 2 characters')) }) },
    responses: { 200: json(z.object({ people: z.array(AddressSchema) }), 'Matching correspondents'), ...readErrors },
  }),
  async (c) => {
    const { q } = c.req.valid('query');
    const people = await c.var.graph.people(q, 10);
    return c.json(
      {
        people: people.flatMap((p) => {
          const address = p.scoredEmailAddresses?.[0]?.address;
          return address ? [{ name: p.displayName ?? address, address }] : [];
        }),
      },
      200,
    );
  },
);

// ---- changes -----------------------------------------------------------------------------

const MovedSchema = z.object({ id: z.string(), folderId: z.string().nullable(), folder: z.string().nullable() });

async function moveTo(c: Context<MailEnv>, id: string, destination: string) {
  const graph = c.var.graph;
  const destinationId = await resolveFolder(graph, destination);
  const [moved, wellKnown] = await Promise.all([graph.move(id, destinationId), c.var.mailbox.wellKnownFolders()]);
  const view = summaryView(moved, wellKnown);
  return { id: view.id, folderId: view.folderId, folder: view.folder };
}

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/mark-read/{message_id}',
    tags: ['Mail'],
    summary: 'Marks a message read (or unread with `{"isRead": false}`)',
    security,
    middleware: writeGuards(4096),
    request: {
      params: z.object({ message_id: messageId }),
      body: { content: { 'application/json': { schema: z.object({ isRead: z.boolean().default(true) }) } }, required: false },
    },
    responses: { 200: json(z.object({ id: z.string(), isRead: z.boolean() }), 'The new state'), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const body = (c.req.header('content-type') ?? '').startsWith('application/json') ? c.req.valid('json') : { isRead: true };
    const updated = await c.var.graph.update(message_id, { isRead: body.isRead });
    return c.json({ id: updated.id ?? message_id, isRead: updated.isRead ?? body.isRead }, 200);
  },
);

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/move/{message_id}',
    tags: ['Mail'],
    summary: 'Moves a message to another folder',
    security,
    middleware: writeGuards(4096),
    request: {
      params: z.object({ message_id: messageId }),
      body: {
        content: { 'application/json': { schema: z.object({ dest_folder_id: text(255).pipe(z.string().min(1, 'is required')) }) } },
        required: true,
      },
    },
    responses: { 200: json(MovedSchema, 'The moved message (its id stays: immutable ids)'), ...writeErrors },
  }),
  async (c) => c.json(await moveTo(c, c.req.valid('param').message_id, c.req.valid('json').dest_folder_id), 200),
);

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/messages/{message_id}/delete',
    tags: ['Mail'],
    summary: 'Moves a message to Deleted Items',
    security,
    middleware: writeGuards(4096),
    request: { params: z.object({ message_id: messageId }) },
    responses: { 200: json(MovedSchema, 'The message in Deleted Items'), ...writeErrors },
  }),
  async (c) => c.json(await moveTo(c, c.req.valid('param').message_id, 'deleteditems'), 200),
);

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/messages/{message_id}/archive',
    tags: ['Mail'],
    summary: 'Moves a message to Archive',
    security,
    middleware: writeGuards(4096),
    request: { params: z.object({ message_id: messageId }) },
    responses: { 200: json(MovedSchema, 'The message in Archive'), ...writeErrors },
  }),
  async (c) => c.json(await moveTo(c, c.req.valid('param').message_id, 'archive'), 200),
);

// ---- sending -----------------------------------------------------------------------------

const MAX_BODY_CHARS = 1_000_000;
const addressList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value, ctx) => {
    const list = (Array.isArray(value) ? value : (value ?? '').split(/[,;]/)).map((a) => a.trim()).filter(Boolean);
    for (const a of list) {
      if (a.length > 320 || !z.email().safeParse(a).success)
        ctx.addIssue({ code: 'custom', message: `"${a.slice(0, 100)}" is not an e-mail address` });
    }
    if (list.length > 100) ctx.addIssue({ code: 'custom', message: 'at most 100 addresses' });
    return list;
  })
  .openapi({ description: 'Addresses: an array, or one string separated by commas', type: 'array', items: { type: 'string' } });

export const recipients = (list: string[]) => list.map((address) => ({ emailAddress: { address } }));

/** The fields of a new message: recipients, subject and body (compose, and new drafts). */
export const messageFields = {
  to: addressList,
  cc: addressList,
  bcc: addressList,
  subject: text(255).default(''),
  body: text(MAX_BODY_CHARS).default(''),
};

const ComposeBody = z
  .object(messageFields)
  .refine((b) => b.to.length + b.cc.length + b.bcc.length > 0, {
    message: 'at least one recipient (to, cc or bcc) is required',
    path: ['to'],
  })
  .openapi('Compose');

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/compose/send',
    tags: ['Mail'],
    summary: 'Sends a new message (To, CC, BCC, Subject, Body); a copy goes to Sent Items',
    security,
    middleware: writeGuards(2 * 1024 * 1024),
    request: jsonBody(ComposeBody),
    responses: {
      202: json(z.object({ sent: z.literal(true), recipients: z.number().int() }), 'Accepted by Graph for delivery'),
      ...writeErrors,
    },
  }),
  async (c) => {
    const mail = c.req.valid('json');
    await c.var.graph.sendMail({
      subject: mail.subject,
      body: { contentType: 'html', content: asHtml(mail.body) },
      toRecipients: recipients(mail.to),
      ccRecipients: recipients(mail.cc),
      bccRecipients: recipients(mail.bcc),
    });
    return c.json({ sent: true as const, recipients: mail.to.length + mail.cc.length + mail.bcc.length }, 202);
  },
);

const ReplyBody = z
  .object({
    body: text(MAX_BODY_CHARS).pipe(z.string().trim().min(1, 'is required')),
    all: z.boolean().default(false).openapi({ description: 'Reply to everyone on the message' }),
    cc: addressList,
    bcc: addressList,
  })
  .openapi('Reply');

api.openapi(
  createRoute({
    method: 'post',
    path: '/api/reply/{message_id}',
    tags: ['Mail'],
    summary: 'Replies to a message: createReply (quoting the original), the text and extra CC/BCC, then send',
    security,
    middleware: writeGuards(2 * 1024 * 1024),
    request: {
      params: z.object({ message_id: messageId }),
      body: { content: { 'application/json': { schema: ReplyBody } }, required: true },
    },
    responses: { 202: json(z.object({ sent: z.literal(true), draftId: z.string() }), 'Sent'), ...writeErrors },
  }),
  async (c) => {
    const { message_id } = c.req.valid('param');
    const reply = c.req.valid('json');
    const graph = c.var.graph;
    const draft = await graph.createReply(message_id, reply.all);
    if (!draft.id) throw new HttpError(502, 'graph_unavailable', 'Graph answered a reply draft without an id.');
    const quoted = draft.body?.content ?? '';
    const changes: Message = { body: { contentType: 'html', content: `${asHtml(reply.body)}${quoted}` } };
    if (reply.cc.length) changes.ccRecipients = [...(draft.ccRecipients ?? []), ...recipients(reply.cc)];
    if (reply.bcc.length) changes.bccRecipients = recipients(reply.bcc);
    try {
      await graph.update(draft.id, changes);
      await graph.send(draft.id);
    } catch (err) {
      // Nothing half-written: the unsent draft goes again.
      await graph.deleteMessage(draft.id).catch(() => undefined);
      throw err;
    }
    return c.json({ sent: true as const, draftId: draft.id }, 202);
  },
);
