/**
 * HTML mail as the reading pane shows it: the sender's markup sanitised here (belt) and drawn in a
 * sandboxed frame under a policy that runs and loads nothing of its own accord (braces).
 *
 * The sanitiser runs on workerd's HTMLRewriter (lol-html, a real HTML tokenizer, one linear pass):
 * it drops whatever runs, embeds, submits or navigates (script, iframe/frame/object/embed, form,
 * meta, base, link, svg/math, event handler attributes, `srcdoc`, `javascript:`/`vbscript:` and
 * non-image `data:` URLs, relative URLs that would point at this service), keeps the mail's inline
 * styles, opens links in a new tab with `rel="noopener noreferrer"`, replaces `cid:` images with
 * the message's inline attachments, and leaves remote images out until the reader asks for them.
 */

import { stripTags } from './attachment-text.ts';

/** Elements dropped with everything inside them. */
const DROPPED = new Set([
  'script',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'param',
  'noscript',
  'noembed',
  'noframes',
  'template',
  'svg',
  'math',
  'meta',
  'base',
  'link',
  'title',
  'portal',
  'fencedframe',
  'xml',
]);
/** Elements unwrapped: the tag goes, what is inside stays (the frame document has its own html/head/body; a form submits nothing). */
const UNWRAPPED = new Set(['html', 'head', 'body', 'form']);
/** Attributes never kept, besides every `on…` event handler. */
const DROPPED_ATTRIBUTES = new Set([
  'srcdoc',
  'action',
  'formaction',
  'formtarget',
  'ping',
  'autofocus',
  'http-equiv',
  'lowsrc',
  'dynsrc',
  'codebase',
  'srcset',
  'imagesrcset',
  'xmlns:xlink',
  'nonce',
]);
/** Attributes holding a link a reader follows. */
const LINK_ATTRIBUTES = new Set(['href', 'xlink:href']);
/** Attributes holding an image the frame would load. */
const IMAGE_ATTRIBUTES = new Set(['src', 'background', 'poster']);
/** Attributes holding any other URL: kept only as an http(s) or mailto address. */
const OTHER_URL_ATTRIBUTES = new Set(['cite', 'longdesc', 'data', 'usemap', 'manifest', 'profile', 'classid', 'archive']);

const LINK_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/=\s]*$/i;

const NAMED: Record<string, string> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  lpar: '(',
  rpar: ')',
  period: '.',
  comma: ',',
  semi: ';',
  nbsp: '\u00a0',
};

/**
 * An attribute value as the browser reads it, for the scheme check: character references decoded
 * (lol-html hands attributes over raw) and the characters a URL parser skips removed (ASCII
 * whitespace and control characters).
 */
export function urlForCheck(raw: string): string {
  const decoded = raw.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
  return decoded.replace(/[\u0000-\u0020\u007f-\u009f]+/g, '');
}

/** The URL's scheme in lower case, '' for a relative URL, null when it cannot be told (an unknown character reference in it). */
function schemeOf(url: string): string | null {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  if (match) return match[1]!.toLowerCase();
  const colon = url.indexOf(':');
  const stop = url.search(/[/?#]/);
  // A colon before any path, query or fragment that did not make a scheme: something is hidden in it.
  if (colon >= 0 && (stop < 0 || colon < stop)) return null;
  return '';
}

/** A `cid:` reference's content id as attachments name it: no angle brackets, percent-decoded, lower case. */
export function contentIdKey(value: string): string {
  let id = value.trim().replace(/^cid:/i, '');
  try {
    id = decodeURIComponent(id);
  } catch {
    // a malformed escape: compared as written
  }
  return id.replace(/^<|>$/g, '').trim().toLowerCase();
}

export interface SanitiseOptions {
  /** `blocked` (the default): remote images left out; `remote`: http(s) images kept (the reader asked). */
  images?: 'blocked' | 'remote';
  /** Inline images by content id (`contentIdKey`): the data: URL of each. */
  inline?: ReadonlyMap<string, string>;
}

export interface Sanitised {
  html: string;
  /** Remote images (and backgrounds) left out; 0 when they were allowed or there were none. */
  blockedImages: number;
  /** `cid:` references that named no inline image of the message. */
  missingInline: number;
  /** True when the markup could not be parsed in one streaming pass and is shown as text instead. */
  asText: boolean;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
/** Text as the frame shows it: escaped, preformatted. */
export const textDocumentBody = (text: string) => `<pre>${escapeHtml(text)}</pre>`;

/** The mail's HTML with nothing left that runs, submits, navigates this page or loads of its own accord (remote images only when allowed). */
export async function sanitiseMailHtml(html: string, options: SanitiseOptions = {}): Promise<Sanitised> {
  const remote = options.images === 'remote';
  const inline = options.inline ?? new Map<string, string>();
  let blockedImages = 0;
  let missingInline = 0;
  let styleText = '';
  const rewriter = new HTMLRewriter()
    .on('*', {
      element(element) {
        const tag = element.tagName.toLowerCase();
        if (DROPPED.has(tag)) {
          element.remove();
          return;
        }
        if (UNWRAPPED.has(tag)) {
          element.removeAndKeepContent();
          return;
        }
        const names = [...element.attributes].map((pair) => pair[0] ?? '');
        for (const original of names) {
          const name = original.toLowerCase();
          const value = element.getAttribute(original) ?? '';
          if (name.startsWith('on') || DROPPED_ATTRIBUTES.has(name) || (name.includes(':') && !LINK_ATTRIBUTES.has(name))) {
            element.removeAttribute(original);
            continue;
          }
          if (LINK_ATTRIBUTES.has(name)) {
            const url = urlForCheck(value);
            const scheme = schemeOf(url);
            // Links of the mail go out (http, https, mailto, tel) or stay in it (#fragment); never to this service's own paths.
            if (!(scheme && LINK_SCHEMES.has(scheme)) && !(scheme === '' && url.startsWith('#'))) element.removeAttribute(original);
            continue;
          }
          if (IMAGE_ATTRIBUTES.has(name)) {
            const url = urlForCheck(value);
            const scheme = schemeOf(url);
            if (scheme === 'cid') {
              const found = inline.get(contentIdKey(url));
              if (found) element.setAttribute(original, found);
              else {
                missingInline++;
                element.removeAttribute(original);
              }
            } else if (scheme === 'data' && name !== 'background' && DATA_IMAGE.test(url)) {
              // an image written into the mail itself: kept
            } else if (scheme === 'http' || scheme === 'https') {
              if (!remote) {
                blockedImages++;
                element.removeAttribute(original);
              }
            } else element.removeAttribute(original);
            continue;
          }
          if (name === 'style') {
            if (/position\s*:\s*(fixed|sticky)/i.test(value)) element.setAttribute(original, unpinned(value));
            continue;
          }
          if (OTHER_URL_ATTRIBUTES.has(name)) {
            const scheme = schemeOf(urlForCheck(value));
            if (!(scheme === 'http' || scheme === 'https' || scheme === 'mailto')) element.removeAttribute(original);
          }
        }
        if (tag === 'a' || tag === 'area') {
          element.setAttribute('target', '_blank');
          element.setAttribute('rel', 'noopener noreferrer');
        }
      },
    })
    .on('style', {
      // A style element's text comes in chunks: gathered, then written back once, unpinned.
      text(chunk) {
        styleText += chunk.text;
        if (chunk.lastInTextNode) {
          chunk.replace(unpinned(styleText), { html: true });
          styleText = '';
        } else chunk.remove();
      },
    })
    .onDocument({
      comments(comment) {
        // Conditional comments and anything else hidden in them.
        comment.remove();
      },
    });
  try {
    const out = await rewriter.transform(new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } })).text();
    return { html: out, blockedImages, missingInline, asText: false };
  } catch {
    // Markup the streaming parser cannot place (a script inside a select, …): never a 500, and
    // nothing of it guessed at — the mail is shown as its text.
    return { html: textDocumentBody(stripTags(html)), blockedImages: 0, missingInline: 0, asText: true };
  }
}

/** Styles of the frame document itself (the mail's own inline styles follow and may override them). */
const FRAME_STYLE =
  'html{color-scheme:light}body{margin:0;padding:12px 14px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1b1b;background:#fff;overflow-wrap:anywhere}img{max-width:100%;height:auto}table{max-width:100%}pre{white-space:pre-wrap}';

/** The document the reading pane's frame shows: the sanitised body, links to a new tab. */
export function frameDocument(body: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><base target="_blank"><meta name="referrer" content="no-referrer"><style>${FRAME_STYLE}</style></head><body>${body}</body></html>`;
}

/**
 * The frame's policy: a sandbox (no script, no forms, no same-origin; only links opening in a new,
 * unsandboxed tab), nothing loaded but the inline images and the mail's inline styles, remote
 * images only once the reader asked; framed only by this service's own pages.
 */
export function frameCsp(images: 'blocked' | 'remote'): string {
  return [
    'sandbox allow-popups allow-popups-to-escape-sandbox',
    "default-src 'none'",
    `img-src data:${images === 'remote' ? ' https:' : ''}`,
    "style-src 'unsafe-inline'",
    "font-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** Image types embedded from a message's inline attachments (raster only: no SVG). */
export const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
/** The largest inline image embedded, and all of a message's together. */
export const MAX_INLINE_IMAGE_BYTES = 3 * 1024 * 1024;
export const MAX_INLINE_TOTAL_BYTES = 10 * 1024 * 1024;

/**
 * A mail's CSS with fixed and sticky positioning made static: a mail may lay itself out, not lay
 * a layer over the reading pane (the frame holds it in anyway; this keeps its own links usable).
 */
export const unpinned = (css: string): string => css.replace(/position\s*:\s*(fixed|sticky)/gi, 'position:static');

/** The content ids (`contentIdKey`) a mail's HTML refers to with `cid:`: a quick look before any attachment is read. */
export function contentIdsIn(html: string): Set<string> {
  const ids = new Set<string>();
  for (const match of html.matchAll(/cid:([^"'\s>)]+)/gi)) ids.add(contentIdKey(match[1]!));
  return ids;
}

/** Bytes as a base64 data: URL. */
export function dataUrl(type: string, bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes);
  let binary = '';
  for (let i = 0; i < view.length; i += 0x8000) binary += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return `data:${type};base64,${btoa(binary)}`;
}
