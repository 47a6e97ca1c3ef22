/**
 * The reply text of a reply draft, found by the draft's element structure: Graph rewrites the
 * HTML it is given (entities, attribute order, whitespace, a document wrapper), so the reply
 * and the quoted original below it are told apart by elements, never by comparing strings.
 */

/** The element the assistant's reply text sits in (Graph keeps element ids of a draft's body). */
export const REPLY_CONTAINER_ID = 'mail-assistant-reply';

const container = (replyHtml: string) => `<div id="${REPLY_CONTAINER_ID}">${replyHtml}</div>`;

interface Tag {
  start: number;
  end: number;
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attrs: string;
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);
// Comments, doctype and tags; an attribute value in quotes may hold '>'. Linear: the branches start differently.
const TAG = /<!--[\s\S]*?(?:-->|$)|<(\/?)([A-Za-z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<[!?][^>]*>/g;

/** The tags of an HTML text in order (raw-text elements' content skipped). */
function* tagsOf(html: string): Generator<Tag> {
  const re = new RegExp(TAG.source, 'g');
  for (let match = re.exec(html); match; match = re.exec(html)) {
    if (!match[2]) continue;
    const name = match[2].toLowerCase();
    const attrs = match[3] ?? '';
    const tag = {
      start: match.index,
      end: match.index + match[0].length,
      name,
      closing: match[1] === '/',
      selfClosing: /\/\s*$/.test(attrs),
      attrs,
    };
    yield tag;
    if (!tag.closing && RAW_TEXT.has(name)) {
      const close = html.toLowerCase().indexOf(`</${name}`, tag.end);
      re.lastIndex = close < 0 ? html.length : close;
    }
  }
}

function attribute(attrs: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(attrs);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** Where the content of the first element with that id starts and ends. */
function elementById(html: string, id: string): { innerStart: number; innerEnd: number } | undefined {
  let open: Tag | undefined;
  let depth = 0;
  for (const tag of tagsOf(html)) {
    if (!open) {
      if (tag.closing || attribute(tag.attrs, 'id') !== id) continue;
      if (VOID.has(tag.name) || tag.selfClosing) return { innerStart: tag.end, innerEnd: tag.end };
      open = tag;
      depth = 1;
      continue;
    }
    // Only the element's own name is counted: other elements may leave end tags out.
    if (tag.name !== open.name || tag.selfClosing) continue;
    depth += tag.closing ? -1 : 1;
    if (depth === 0) return { innerStart: open.end, innerEnd: tag.start };
  }
  return open ? { innerStart: open.end, innerEnd: bodyEnd(html) } : undefined;
}

function bodyEnd(html: string): number {
  for (const tag of tagsOf(html)) if (tag.closing && (tag.name === 'body' || tag.name === 'html')) return tag.start;
  return html.length;
}

/** Where the quoted original begins: Outlook's reply header (with the rule before it), else a quote element. */
function quoteStart(html: string): number | undefined {
  let rule: Tag | undefined;
  for (const tag of tagsOf(html)) {
    if (tag.closing) continue;
    const id = attribute(tag.attrs, 'id');
    if (id === 'divRplyFwdMsg') return rule && /^\s*$/.test(html.slice(rule.end, tag.start)) ? rule.start : tag.start;
    if (id === 'appendonsend' || tag.name === 'blockquote' || /(?:^|\s)gmail_quote(?:\s|$)/.test(attribute(tag.attrs, 'class') ?? ''))
      return tag.start;
    rule = tag.name === 'hr' ? tag : undefined;
  }
  return undefined;
}

/** The document's start (its `<html>` tag, when it has one) and where its body's content begins. */
function bodyStart(html: string): { documentStart: number; contentStart: number } {
  let documentStart = 0;
  for (const tag of tagsOf(html)) {
    if (tag.closing) continue;
    if (tag.name === 'html') documentStart = tag.start;
    if (tag.name === 'body') return { documentStart, contentStart: tag.end };
  }
  return { documentStart: 0, contentStart: 0 };
}

/** A new reply draft's HTML: the reply in its container at the top of the body Graph made (the quote below). */
export function withReply(draftHtml: string, replyHtml: string): string {
  const { contentStart } = bodyStart(draftHtml);
  return `${draftHtml.slice(0, contentStart)}${container(replyHtml)}${draftHtml.slice(contentStart)}`;
}

/**
 * The draft's HTML with its reply text replaced and everything else kept: the reply container's
 * content when Graph kept the container; else everything above the quoted original (a draft made
 * before the container existed); a draft with neither gets the reply alone.
 */
export function replaceReply(draftHtml: string, replyHtml: string): string {
  const own = elementById(draftHtml, REPLY_CONTAINER_ID);
  if (own) return `${draftHtml.slice(0, own.innerStart)}${replyHtml}${draftHtml.slice(own.innerEnd)}`;
  const quote = quoteStart(draftHtml);
  if (quote === undefined) return container(replyHtml);
  const { documentStart, contentStart } = bodyStart(draftHtml);
  const head = contentStart <= quote ? draftHtml.slice(documentStart, contentStart) : '';
  return `${head}${container(replyHtml)}${draftHtml.slice(quote)}`;
}
