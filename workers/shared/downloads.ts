// How a service serves a file someone else chose the type of (a mail attachment, an uploaded
// photo): one rule for every service. A type is shown as itself only when it is on the inline
// allow-list below (passive media no browser runs as a page); anything else — HTML, SVG, XHTML,
// XML, JavaScript, and every type not thought of — is answered as `application/octet-stream`
// with `Content-Disposition: attachment`. Every file answer also carries a sandbox policy and
// `nosniff`, so even a mislabelled file never runs with the service's origin.

/** The policy of every served file: an opaque origin (no script, no cookies, no storage), nothing loaded. */
export const FILE_CSP = "sandbox; default-src 'none'";

/** Passive types a browser may show in place: raster images, PDF, plain text, audio and video. */
const INLINE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'application/pdf',
  'text/plain',
  'text/csv',
  'audio/mpeg',
  'audio/mp4',
  'audio/ogg',
  'audio/wav',
  'audio/webm',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
]);

/** Text types answered with a charset (the declared one when it is a known safe name, else UTF-8). */
const TEXT_TYPES: ReadonlySet<string> = new Set(['text/plain', 'text/csv']);
const SAFE_CHARSET = /^(utf-8|us-ascii|iso-8859-(1[0-6]|[1-9])|windows-125[0-8])$/i;

/** `type/subtype` of a Content-Type, lower-cased; '' when the text is not one. */
export function mediaTypeOf(contentType: string): string {
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(essence) ? essence : '';
}

/** True when a file of this Content-Type may be shown as itself (the inline allow-list). */
export const isInlineType = (contentType: string): boolean => INLINE_TYPES.has(mediaTypeOf(contentType));

function charsetOf(contentType: string): string {
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1] ?? '';
  return SAFE_CHARSET.test(declared) ? declared.toLowerCase() : 'utf-8';
}

/** `attachment` or `inline`, with the file name as a quoted ASCII fallback and as RFC 8187 UTF-8. */
export function contentDisposition(kind: 'inline' | 'attachment', name?: string): string {
  const plain = (name ?? '')
    .replace(/[^\w .()-]+/g, '_')
    .trim()
    .slice(0, 120);
  if (!plain) return kind;
  const encoded = encodeURIComponent(name!.slice(0, 200)).replace(/['()*!]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${plain}"; filename*=UTF-8''${encoded}`;
}

/**
 * The headers of a served file whose type was declared by whoever supplied it. `disposition` is
 * what an allow-listed type gets (`inline` to show it, `attachment` for a download route); any
 * other type is always an octet-stream download.
 */
export function fileHeaders(
  declared: string,
  options: { name?: string; disposition?: 'inline' | 'attachment' } = {},
): Record<string, string> {
  const type = mediaTypeOf(declared);
  const shown = INLINE_TYPES.has(type);
  return {
    'Content-Type': !shown ? 'application/octet-stream' : TEXT_TYPES.has(type) ? `${type}; charset=${charsetOf(declared)}` : type,
    'Content-Disposition': contentDisposition(shown ? (options.disposition ?? 'inline') : 'attachment', options.name),
    'Content-Security-Policy': FILE_CSP,
    'X-Content-Type-Options': 'nosniff',
  };
}

/** A download whose type the service itself names (an `.eml` export): always `attachment`, same policy. */
export function downloadHeaders(contentType: string, name: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Disposition': contentDisposition('attachment', name),
    'Content-Security-Policy': FILE_CSP,
    'X-Content-Type-Options': 'nosniff',
  };
}
