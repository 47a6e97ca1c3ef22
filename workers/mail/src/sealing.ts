import { derivedKey, fromBase64Url, randomBytes, toBase64Url, utf8 } from '#shared/crypto.ts';

/**
 * AES-256-GCM for values kept at rest or handed to the browser (the mailbox refresh token, the
 * OAuth state cookie): a key per purpose derived from MAIL_TOKEN_SECRET, and associated data that
 * binds a sealed value to where it belongs, so it does not open anywhere else.
 */
const key = (secret: string, purpose: string) => derivedKey(secret, `mail-${purpose}`, { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);

export async function seal(secret: string, purpose: string, binding: string, plain: string): Promise<string> {
  const iv = randomBytes(12);
  const data = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8(binding) }, await key(secret, purpose), utf8(plain));
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(data))}`;
}

/** The plain text, or undefined for anything forged, damaged or sealed for another purpose. */
export async function open(secret: string, purpose: string, binding: string, sealed: string): Promise<string | undefined> {
  const [version, ivText, dataText, extra] = sealed.split('.');
  const iv = fromBase64Url(ivText ?? '');
  const data = fromBase64Url(dataText ?? '');
  if (version !== 'v1' || !iv || iv.length !== 12 || !data || extra !== undefined) return undefined;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: utf8(binding) }, await key(secret, purpose), data);
    return new TextDecoder().decode(plain);
  } catch {
    return undefined;
  }
}
