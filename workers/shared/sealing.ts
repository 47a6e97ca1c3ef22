import { derivedKey, fromBase64Url, randomBytes, toBase64Url, utf8 } from './crypto.ts';

/**
 * The one sealing of secrets kept at rest or handed to a browser (refresh tokens, configuration
 * passwords, the OAuth state cookie): AES-256-GCM under a key derived from a service secret with a
 * label per use (HKDF-SHA256, `derivedKey`), and associated data that binds a sealed value to where
 * it belongs (a session, a row, a mailbox), so a value copied elsewhere does not open.
 *
 * Format: `v1.<iv, 12 bytes, base64url>.<ciphertext and tag, base64url>`, the format every service
 * has stored since its first sealed row.
 */

const VERSION = 'v1';
const IV_BYTES = 12;
/** AES-GCM appends a 16-byte tag: anything shorter was never sealed here. */
const TAG_BYTES = 16;

/** A sealing key: one secret and one label (its use), e.g. `cms-session-refresh-token`. */
export type SealingKey = { secret: string; label: string };

/** Why a sealed value did not open. */
export type OpenFailure = 'malformed' | 'not_authentic';

/**
 * What `open` answers: the plain text, or why not. `malformed`: not a sealed value of this format.
 * `not_authentic`: tampered with, sealed under another key or label, or bound to somewhere else.
 */
export type Opened = { ok: true; value: string } | { ok: false; reason: OpenFailure };

const aesKey = ({ secret, label }: SealingKey) => derivedKey(secret, label, { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);

export async function seal(key: SealingKey, associated: string, plain: string): Promise<string> {
  const iv = randomBytes(IV_BYTES);
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8(associated) }, await aesKey(key), utf8(plain));
  return `${VERSION}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

/** Never throws for what it is given: every value that does not open is a typed failure. */
export async function open(key: SealingKey, associated: string, sealed: string): Promise<Opened> {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
  const iv = fromBase64Url(parts[1]!);
  const data = fromBase64Url(parts[2]!);
  if (!iv || iv.length !== IV_BYTES || !data || data.length < TAG_BYTES) return { ok: false, reason: 'malformed' };
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: utf8(associated) }, await aesKey(key), data);
  } catch {
    return { ok: false, reason: 'not_authentic' };
  }
  return { ok: true, value: new TextDecoder().decode(plain) };
}

/** The plain text, or undefined for anything that does not open (for callers that treat both alike). */
export async function openOrUndefined(key: SealingKey, associated: string, sealed: string): Promise<string | undefined> {
  const opened = await open(key, associated, sealed);
  return opened.ok ? opened.value : undefined;
}
