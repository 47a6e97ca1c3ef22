// Quotation removal: planer (a port of Mailgun's talon quotation parser); signature removal:
// talon's brute-force signature extractor. Both are plain JavaScript and run in workerd.
import planer from 'planer';
import bruteforce from 'talon/lib/bruteforce.js';
import { decodeEntities, stripTags } from '../attachment-text.ts';

/** The most of a body's text that is cleaned: the model reads far less (MAX_INPUT_CHARS). */
const MAX_CLEAN_CHARS = 100_000;

/** Text of an HTML body: blocks become lines, tags and scripts go, entities are decoded (linear). */
export function htmlToText(html: string): string {
  return decodeEntities(stripTags(html, { blockStarts: true, hr: '\n________________________________\n' }))
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Words that mark a legal or confidentiality disclaimer paragraph. */
const DISCLAIMER = [
  /\b(this|the) (e-?mail|message|communication|transmission)(,| and| including)? (any |its )?(attachments?|files?)?.{0,60}\b(confidential|privileged|intended (solely |only )?for)/i,
  /\bif you (are not|have received this).{0,80}\b(intended recipient|in error)/i,
  /\b(disclaimer|confidentiality notice|legal notice)\s*:/i,
  /\bplease consider the environment before printing\b/i,
  /\bviews expressed .{0,80}\b(not necessarily|do not necessarily)\b/i,
];

/** Drops disclaimer paragraphs (and anything after the first one: they close a message). */
function removeDisclaimer(text: string): string {
  const paragraphs = text.split(/\n\s*\n/);
  const at = paragraphs.findIndex((p, i) => i > 0 && DISCLAIMER.some((re) => re.test(p.replace(/\s+/g, ' '))));
  return (at < 0 ? paragraphs : paragraphs.slice(0, at)).join('\n\n').trim();
}

/** Mobile and client sign-offs talon leaves when the message is a single line. */
const MOBILE =
  /\n\s*(sent from my (iphone|ipad|android|samsung|galaxy|mobile|phone|blackberry)|sent from (outlook|mail) for (ios|android)|get outlook for (ios|android)|sent via [\w ]{2,30}|sent from yahoo mail)[^\n]*$/i;

export interface Cleaned {
  /** The message's own words: no quoted reply, signature or disclaimer. */
  text: string;
  signature: string | null;
  quoteRemoved: boolean;
}

/** The new part of a message body (HTML or text), for the model. */
export function cleanBody(body: string, contentType: 'html' | 'text' = 'text'): Cleaned {
  const plain = (contentType === 'html' ? htmlToText(body) : body).slice(0, MAX_CLEAN_CHARS).replace(/\r\n/g, '\n');
  const withoutQuote = planer.extractFromPlain(plain).trim();
  const quoteRemoved = withoutQuote.length < plain.trim().length;
  const noDisclaimer = removeDisclaimer(withoutQuote);
  const extracted = bruteforce.extractSignature(noDisclaimer) as { text: string; signature: string | null };
  let text = (extracted.text ?? noDisclaimer).trim();
  let signature = extracted.signature;
  const mobile = MOBILE.exec(`\n${text}`);
  if (mobile) {
    signature = [mobile[0].trim(), signature].filter(Boolean).join('\n');
    text = `\n${text}`.slice(0, mobile.index).trim();
  }
  return { text: text || plain.trim().slice(0, 2000), signature, quoteRemoved };
}
