/**
 * The byte and crypto helpers every service uses (Web APIs only): encodings (base64url, base32,
 * hex, UTF-8), random bytes, constant-time comparison, key derivation and key import for tokens,
 * sessions, TOTP codes and signatures. No service keeps its own copy.
 */

/** Standard base64, padded. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Null for anything that is not base64/base64url. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(text)) return null;
  const normal = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (normal.length % 4 === 1) return null;
  const binary = atob(normal + '='.repeat((4 - (normal.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export const utf8 = (text: string): Uint8Array<ArrayBuffer> => new Uint8Array(new TextEncoder().encode(text));

export function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(length));
}

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', utf8(text)));
}

/** Byte-wise comparison whose time does not depend on where the inputs differ. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/**
 * Compares two secrets in constant time: both are hashed first, so neither the content nor the
 * length of the expected value shows in the time taken.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([crypto.subtle.digest('SHA-256', utf8(given)), crypto.subtle.digest('SHA-256', utf8(expected))]);
  return constantTimeEqual(new Uint8Array(a), new Uint8Array(b));
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function toBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Null for anything that is not RFC 4648 base32 (spaces and padding tolerated, any case). */
export function fromBase32(text: string): Uint8Array<ArrayBuffer> | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  if (!/^[A-Z2-7]+$/.test(clean)) return null;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

type KeyAlgorithmParams = Parameters<SubtleCrypto['deriveKey']>[2];
/** The key type spelled through the call, so the module also type-checks in Node programs (scripts). */
type Key = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const derivedKeys = new Map<string, Promise<Key>>();

/**
 * A WebCrypto key derived from a secret with HKDF-SHA256, the label as salt, so one secret gives
 * independent keys for independent uses. Derived once per isolate for each secret and label.
 */
export function derivedKey(
  secret: string,
  label: string,
  algorithm: KeyAlgorithmParams,
  usages: Parameters<SubtleCrypto['deriveKey']>[4],
): Promise<Key> {
  const cacheKey = `${label}\u0000${secret}`;
  let key = derivedKeys.get(cacheKey);
  if (!key) {
    key = crypto.subtle
      .importKey('raw', utf8(secret), 'HKDF', false, ['deriveKey'])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: utf8(label), info: new Uint8Array() },
          base,
          algorithm,
          false,
          usages,
        ),
      );
    derivedKeys.set(cacheKey, key);
  }
  return key;
}

type HmacHash = 'SHA-1' | 'SHA-256' | 'SHA-512';

/** Raw bytes (or a string's UTF-8) as an HMAC key. */
export function hmacKey(
  material: Uint8Array<ArrayBuffer> | string,
  hash: HmacHash = 'SHA-256',
  usages: ('sign' | 'verify')[] = ['sign', 'verify'],
): Promise<Key> {
  return crypto.subtle.importKey('raw', typeof material === 'string' ? utf8(material) : material, { name: 'HMAC', hash }, false, usages);
}

/** Raw bytes (16 or 32) as an AES-GCM key. */
export function aesGcmKey(material: Uint8Array<ArrayBuffer> | ArrayBuffer): Promise<Key> {
  return crypto.subtle.importKey('raw', material, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** HMAC-SHA256 of a string under a key. */
export async function hmacSha256(key: Key, data: string | Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, typeof data === 'string' ? utf8(data) : data));
}
