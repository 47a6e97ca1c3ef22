import { z } from 'zod';
import { constantTimeEqual, fromBase64Url, randomBytes, toBase64Url, utf8 } from './encoding';

/**
 * Access and refresh tokens: `<kind>.<payload>.<signature>`, base64url, signed with HMAC-SHA256
 * under a key derived from AUTH_TOKEN_SECRET and the token kind (the salt), so a refresh token
 * can never pass as an access token. Each payload carries a random nonce. Not JWTs: there is no
 * header, no algorithm choice, nothing a generic JWT tool can decode.
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

async function signingKey(secret: string, kind: Kind) {
  const master = await crypto.subtle.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const derived = await crypto.subtle.sign('HMAC', master, utf8(`racing-auth.${kind}.v1`));
  return crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

async function sign(kind: Kind, claims: object, secret: string): Promise<string> {
  const body = `${kind}.${toBase64Url(utf8(JSON.stringify({ ...claims, n: toBase64Url(randomBytes(9)) })))}`;
  const signature = await crypto.subtle.sign('HMAC', await signingKey(secret, kind), utf8(body));
  return `${body}.${toBase64Url(new Uint8Array(signature))}`;
}

/** The payload of a well-formed, correctly signed, unexpired token of this kind; null otherwise. */
async function open(kind: Kind, token: string, secret: string, nowMs: number): Promise<unknown> {
  if (token.length > 2048) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== kind) return null;
  const given = fromBase64Url(parts[2]!);
  if (!given) return null;
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', await signingKey(secret, kind), utf8(`${parts[0]}.${parts[1]}`)));
  if (!constantTimeEqual(given, expected)) return null;
  try {
    const payload: unknown = JSON.parse(new TextDecoder().decode(fromBase64Url(parts[1]!) ?? new Uint8Array()));
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
