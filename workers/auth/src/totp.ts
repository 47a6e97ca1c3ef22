import { aesGcmKey, fromBase32, fromBase64Url, hmacKey, randomBytes, sha256Hex, toBase32, toBase64Url, utf8 } from '#shared/crypto.ts';

export const TOTP_PERIOD_SECONDS = 30;
/** Codes one step either side of now are accepted (clock drift between phone and server). */
export const TOTP_WINDOW = 1;

type TotpHash = 'SHA-1' | 'SHA-256' | 'SHA-512';

/** RFC 6238 TOTP for one time step (RFC 4226 dynamic truncation over HMAC of the counter). */
export async function totpAt(secret: Uint8Array<ArrayBuffer>, step: number, digits = 6, hash: TotpHash = 'SHA-1'): Promise<string> {
  const key = await hmacKey(secret, hash, ['sign']);
  const counter = new Uint8Array(8);
  new DataView(counter.buffer).setBigUint64(0, BigInt(step));
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, counter));
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export const stepAt = (unixMs: number) => Math.floor(unixMs / 1000 / TOTP_PERIOD_SECONDS);

/** The time step whose code matches (within ±TOTP_WINDOW), or null. Every candidate is computed. */
export async function matchTotp(secretBase32: string, code: string, unixMs: number): Promise<number | null> {
  const secret = fromBase32(secretBase32);
  if (!secret || !/^\d{6}$/.test(code)) return null;
  const now = stepAt(unixMs);
  let matched: number | null = null;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    if ((await totpAt(secret, step)) === code && matched === null) matched = step;
  }
  return matched;
}

export function newTotpSecret(): string {
  return toBase32(randomBytes(20));
}

export function otpauthUri(issuer: string, account: string, secretBase32: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret: secretBase32, issuer, algorithm: 'SHA1', digits: '6', period: String(TOTP_PERIOD_SECONDS) });
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, '%20')}`;
}

/** Imported once per isolate for each key (resolved keys only, so no request waits on another's import). */
type AesKey = Awaited<ReturnType<typeof aesGcmKey>>;
const totpKeys = new Map<string, AesKey>();

/** TOTP secrets at rest: AES-256-GCM under AUTH_TOTP_ENCRYPTION_KEY, bound to the account e-mail. */
async function totpKey(keyBase64: string): Promise<AesKey> {
  const cached = totpKeys.get(keyBase64);
  if (cached) return cached;
  const raw = fromBase64Url(keyBase64);
  if (!raw || raw.length !== 32) throw new Error('AUTH_TOTP_ENCRYPTION_KEY must be 32 bytes, base64');
  const key = await aesGcmKey(raw);
  totpKeys.set(keyBase64, key);
  return key;
}

export async function encryptTotpSecret(secretBase32: string, email: string, keyBase64: string): Promise<string> {
  const iv = randomBytes(12);
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: utf8(email.toLowerCase()) },
    await totpKey(keyBase64),
    utf8(secretBase32),
  );
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

/** Null when the value is not ours or was moved to another account (the e-mail is bound in). */
export async function decryptTotpSecret(sealed: string, email: string, keyBase64: string): Promise<string | null> {
  const [version, ivText, dataText] = sealed.split('.');
  const iv = ivText ? fromBase64Url(ivText) : null;
  const data = dataText ? fromBase64Url(dataText) : null;
  if (version !== 'v1' || !iv || !data) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv, additionalData: utf8(email.toLowerCase()) },
      await totpKey(keyBase64),
      data,
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}

/** Backup codes: `xxxx-xxxx` from a 32-letter alphabet (40 bits each), stored as SHA-256. */
const BACKUP_ALPHABET = 'abcdefghjkmnpqrstuvwxyz023456789';
export function newBackupCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const chars = [...randomBytes(8)].map((b) => BACKUP_ALPHABET[b % BACKUP_ALPHABET.length]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4)}`;
  });
}

export function normaliseBackupCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export const hashBackupCode = (code: string) => sha256Hex(`backup:${normaliseBackupCode(code)}`);
