import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Message } from '@microsoft/microsoft-graph-types';
import { fromBase64Url, toBase64Url, utf8 } from '#shared/crypto.ts';
import { HttpError } from '#shared/http-error.ts';
import {
  type AssistantFields,
  DraftOrigin,
  MessageAssistantSchema,
  ThreadSummarySchema,
  assistantAllowed,
  assistantFields,
  storedThreadSummary,
} from '../assistant-fields.ts';
import type { MailEnv } from '../context.ts';
import { folderTree, resolveFolder } from '../folders.ts';
import {
  AddressSchema,
  FolderInTreeSchema,
  FolderSchema,
  MessageSchema,
  MessageSummarySchema,
  folderView,
  messageView,
  summaryView,
} from '../mail-views.ts';
import { folderName, json, messageId, readErrors, readGuards, security, text } from './api-common.ts';

/** The mailbox's reads: folders, a folder's messages, a message and its thread, conversation counts, people. */
export const messagesApi = new OpenAPIHono<MailEnv>();

// ---- folders -----------------------------------------------------------------------------

messagesApi.openapi(
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

messagesApi.openapi(
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

messagesApi.openapi(
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

messagesApi.openapi(
  createRoute({
    method: 'get',
    path: '/api/thread/{message_id}',
    tags: ['Mail'],
    summary: 'The whole conversation of a message, across inbox, sent items and drafts, oldest first',
    security,
    middleware: readGuards,
    request: {
      params: z.object({ message_id: messageId }),
      query: z.object({
        conversation: z
          .string()
          .regex(/^[A-Za-z0-9=+/_.:-]{1,1024}$/, 'must be a Graph conversation id')
          .optional()
          .openapi({
            description:
              'The conversation id the caller already knows (the list has it): the conversation is read beside the message instead of after it',
          }),
      }),
    },
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
    const known = c.req.valid('query').conversation;
    const graph = c.var.graph;
    // With the conversation id given, its messages are read beside the message (one Graph round
    // trip less before the reading pane is drawn); a wrong guess is read again after.
    const [first, wellKnown, allowed, guessed] = await Promise.all([
      graph.message(message_id),
      c.var.mailbox.wellKnownFolders(),
      assistantAllowed(c),
      known ? graph.conversation(known) : undefined,
    ]);
    const conversationId = first.conversationId;
    const messages = !conversationId ? [first] : guessed && conversationId === known ? guessed : await graph.conversation(conversationId);
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

messagesApi.openapi(
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

messagesApi.openapi(
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
