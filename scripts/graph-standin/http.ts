import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply } from './account.ts';
import { guid } from './ids.ts';

/** Graph refuses request bodies above 4 MB; the stand-in does the same, counting bytes as they arrive. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class BodyTooLarge extends Error {}

/** Reads a request body with a byte cap (chunked bodies included: Content-Length is not trusted). */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new BodyTooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw new BodyTooLarge();
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** An error answered in Graph's shape: `{error:{code,message,innerError}}`. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/** Parses a JSON request body; Graph's own wording when it is not JSON. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new GraphError(
      400,
      'BadRequest',
      'Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format.',
    );
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

export function htmlToText(html: string): string {
  return html
    .replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|tr|li|h\d)>/gi, '\n')
    .replace(/<hr[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// ---- Exchange's rewriting of HTML bodies -------------------------------------------------

/**
 * What Exchange does to the HTML body of a draft it is given (with the mailbox's `rewriteHtml`
 * setting): the body wrapped in its own document, attributes in another order with double
 * quotes, characters written as other entities, whitespace between tags changed. The
 * content is the same; the string is not, so a client that finds its text by string equality fails.
 */

const DOCUMENT_HEAD =
  '<html><head>\r\n<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\r\n<style type="text/css" style="display:none">\r\nP {margin-top:0;margin-bottom:0;}\r\n</style>\r\n</head>\r\n<body dir="ltr">\r\n';
const DOCUMENT_TAIL = '\r\n</body>\r\n</html>\r\n';

const TAG = /<!--[\s\S]*?(?:-->|$)|<(\/?)([A-Za-z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<[!?][^>]*>/g;
const ATTRIBUTE = /([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

const decode = (text: string) =>
  text
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
// Exchange's spelling: numeric references for the apostrophe and the no-break space.
const encodeText = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/'/g, '&#39;')
    .replace(/\u00a0/g, '&#160;');
const encodeAttribute = (value: string) => encodeText(value).replace(/"/g, '&quot;');

function rewriteTag(closing: string, name: string, attrs: string): string {
  const tag = name.toLowerCase();
  if (closing) return `</${tag}>`;
  const list: [string, string | undefined][] = [];
  for (const match of attrs.matchAll(ATTRIBUTE)) {
    if (match[1] === '/') continue;
    const value = match[2] ?? match[3] ?? match[4];
    list.push([match[1]!.toLowerCase(), value === undefined ? undefined : decode(value)]);
  }
  list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `<${tag}${list.map(([key, value]) => (value === undefined ? ` ${key}` : ` ${key}="${encodeAttribute(value)}"`)).join('')}>`;
}

/** The HTML as Exchange stores it: the body's content re-serialised inside Exchange's document. */
export function exchangeHtml(html: string): string {
  const body = /<body[^>]*>([\s\S]*?)(?:<\/body>|$)/i.exec(html)?.[1] ?? html;
  let out = '';
  let last = 0;
  for (const match of body.matchAll(TAG)) {
    out += rewriteText(body.slice(last, match.index));
    out += match[2] ? rewriteTag(match[1] ?? '', match[2], match[3] ?? '') : match[0];
    last = match.index + match[0].length;
  }
  out += rewriteText(body.slice(last));
  return `${DOCUMENT_HEAD}${out.trim()}${DOCUMENT_TAIL}`;
}

/** Text between tags: entities re-spelt, a run of whitespace between tags a line break. */
function rewriteText(text: string): string {
  if (/^\s*$/.test(text)) return text ? '\r\n' : '';
  return encodeText(decode(text)).replace(/\s*\n\s*/g, '\r\n');
}

/** Writes a Reply: JSON, bytes, text or nothing, never cached. */
export function send(res: ServerResponse, reply: Reply) {
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...reply.headers };
  if (reply.json !== undefined) {
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(reply.json));
  } else if (reply.bytes !== undefined) {
    res.writeHead(reply.status, {
      'content-type': reply.contentType ?? 'application/octet-stream',
      'content-length': String(reply.bytes.length),
      ...headers,
    });
    res.end(reply.bytes);
  } else if (reply.text !== undefined) {
    res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain; charset=utf-8', ...headers });
    res.end(reply.text);
  } else {
    res.writeHead(reply.status, headers);
    res.end();
  }
}

/** A GraphError as Graph's error body, with the request ids it carries (or new ones). */
export function graphError(err: GraphError): Reply {
  return {
    status: err.status,
    headers: err.headers,
    json: {
      error: {
        code: err.code,
        message: err.message,
        innerError: {
          date: new Date().toISOString().slice(0, 19),
          'request-id': err.headers['request-id'] ?? guid(),
          'client-request-id': err.headers['client-request-id'] ?? guid(),
        },
      },
    },
  };
}
