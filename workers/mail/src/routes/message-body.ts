import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { downloadHeaders } from '#shared/downloads.ts';
import type { MailEnv } from '../context.ts';
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
import { messageId, readErrors, readGuards, security } from './api-common.ts';

/** A message's content as files: its body as a sandboxed document, and the whole message as .eml. */
export const messageBodyApi = new OpenAPIHono<MailEnv>();

// The body as the reading pane draws it: a document of its own, for a sandboxed frame.
const FRAME_ATTACHMENT_FIELDS = 'id,name,contentType,size,isInline,contentId';

messageBodyApi.openapi(
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

messageBodyApi.openapi(
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
