import { z } from 'zod';
import { aesGcmKey, constantTimeEqual, fromBase64Url, hmacKey, hmacSha256, randomBytes, toBase64Url, utf8 } from '#shared/crypto.ts';

/**
 * Access and refresh tokens: `<kind>.<sealed payload>.<signature>`, base64url. The payload is
 * AES-GCM encrypted and the whole is signed with HMAC-SHA256, both under keys derived from
 * AUTH_TOKEN_SECRET and the token kind (the salt), so a refresh token never passes as an access
 * token and nobody but this service can read one (whoami is the only way to inspect it). Not
 * JWTs: no header, no algorithm choice, nothing a generic JWT tool can decode.
 */
type Kind = 'at' | 'rt';

const accessPayload = z.object({
  uid: z.number().int(),
  name: z.string(),
  perm: z.string(),
  exp: z.number().int(),
  n: z.string(),
});
const refreshPayload = z.object({ fam: z.string(), gen: z.number().int().nonnegative(), exp: z.number().int(), n: z.string() });

export type AccessClaims = Omit<z.output<typeof accessPayload>, 'n'>;
export type RefreshClaims = Omit<z.output<typeof refreshPayload>, 'n'>;

type TokenKeys = { signing: CryptoKey; sealing: CryptoKey };

/**
 * Derived once per isolate for each secret and kind, not per token: the derivation is five
 * WebCrypto calls, and the secret does not change while an isolate lives. Resolved keys only are
 * kept, so a request never waits on work started by another.
 */
const derivedKeys = new Map<string, TokenKeys>();

async function tokenKeys(secret: string, kind: Kind): Promise<TokenKeys> {
  const cacheKey = `${kind}:${secret}`;
  const cached = derivedKeys.get(cacheKey);
  if (cached) return cached;
  const master = await hmacKey(secret, 'SHA-256', ['sign']);
  const [mac, enc] = await Promise.all([
    hmacSha256(master, `racing-auth.${kind}.mac.v1`),
    hmacSha256(master, `racing-auth.${kind}.enc.v1`),
  ]);
  const [signing, sealing] = await Promise.all([hmacKey(mac, 'SHA-256', ['sign']), aesGcmKey(enc)]);
  const keys = { signing, sealing };
  derivedKeys.set(cacheKey, keys);
  return keys;
}

async function sign(kind: Kind, claims: object, secret: string): Promise<string> {
  const { signing, sealing } = await tokenKeys(secret, kind);
  const iv = randomBytes(12);
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, sealing, utf8(JSON.stringify({ ...claims, n: toBase64Url(randomBytes(6)) }))),
  );
  const payload = new Uint8Array(iv.length + sealed.length);
  payload.set(iv);
  payload.set(sealed, iv.length);
  const body = `${kind}.${toBase64Url(payload)}`;
  const signature = await crypto.subtle.sign('HMAC', signing, utf8(body));
  return `${body}.${toBase64Url(new Uint8Array(signature))}`;
}

/** The payload of a well-formed, correctly signed, unexpired token of this kind; null otherwise. */
async function open(kind: Kind, token: string, secret: string, nowMs: number): Promise<unknown> {
  if (token.length > 2048) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== kind) return null;
  const given = fromBase64Url(parts[2]!);
  const sealed = fromBase64Url(parts[1]!);
  if (!given || !sealed || sealed.length < 13) return null;
  const { signing, sealing } = await tokenKeys(secret, kind);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', signing, utf8(`${parts[0]}.${parts[1]}`)));
  if (!constantTimeEqual(given, expected)) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: sealed.subarray(0, 12) }, sealing, sealed.subarray(12));
    const payload: unknown = JSON.parse(new TextDecoder().decode(plain));
    const exp = typeof payload === 'object' && payload !== null ? Reflect.get(payload, 'exp') : undefined;
    return typeof exp === 'number' && exp * 1000 > nowMs ? payload : null;
  } catch {
    return null;
  }
}

export const signAccessToken = (claims: AccessClaims, secret: string) => sign('at', claims, secret);
export const signRefreshToken = (claims: RefreshClaims, secret: string) => sign('rt', claims, secret);

export async function openAccessToken(token: string, secret: string, nowMs = Date.now()): Promise<AccessClaims | null> {
  const parsed = accessPayload.safeParse(await open('at', token, secret, nowMs));
  return parsed.success ? parsed.data : null;
}

export async function openRefreshToken(token: string, secret: string, nowMs = Date.now()): Promise<RefreshClaims | null> {
  const parsed = refreshPayload.safeParse(await open('rt', token, secret, nowMs));
  return parsed.success ? parsed.data : null;
}
