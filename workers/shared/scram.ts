import { fromBase64Url, hmacKey, hmacSha256, toBase64, utf8 } from './crypto.ts';

// SCRAM-SHA-256 (RFC 5802, RFC 7677), the client's half of PostgreSQL's password login: the
// client-final-message and the server signature to expect, from the password and the server's first
// message. SaltedPassword is one PBKDF2 call of the runtime (`crypto.subtle.deriveBits`); the
// serverless driver's own code runs the same 4,096 HMAC rounds one awaited `sign` at a time, which
// took about 30 ms of CPU per connection in a Worker (the migration app opens two per step).

/** What the server's first message carries (`r=<nonce>,s=<salt>,i=<iterations>`). */
export interface ScramServerFirst {
  nonce: string;
  salt: Uint8Array<ArrayBuffer>;
  iterations: number;
}

/** The attributes of a server-first-message, checked as the driver checks them; throws on anything else. */
export function parseServerFirst(message: string, clientNonce: string): ScramServerFirst {
  const attributes = new Map<string, string>();
  for (const pair of message.split(',')) {
    if (!/^[a-zA-Z]=/.test(pair)) throw new Error('SASL: invalid attribute pair entry');
    attributes.set(pair[0]!, pair.slice(2));
  }
  const nonce = attributes.get('r');
  const salt = attributes.get('s');
  const iterations = attributes.get('i');
  if (!nonce || !/^[!-+--~]+$/.test(nonce)) throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: nonce missing/unprintable');
  if (!nonce.startsWith(clientNonce)) throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: server nonce does not start with client nonce');
  if (nonce.length === clientNonce.length) throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: server nonce is too short');
  if (!salt || !/^(?:[a-zA-Z0-9+/]{4})*(?:[a-zA-Z0-9+/]{2}==|[a-zA-Z0-9+/]{3}=)?$/.test(salt))
    throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: salt missing/not base64');
  if (!iterations || !/^[1-9][0-9]{0,9}$/.test(iterations))
    throw new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: missing/invalid iteration count');
  return { nonce, salt: fromBase64Url(salt)!, iterations: Number(iterations) };
}

/**
 * The runtime's PBKDF2 refuses iteration counts above this (workerd's limit); a server asking for
 * more is answered by the driver's own code instead.
 */
export const PBKDF2_MAX_ITERATIONS = 100_000;

export interface ScramClientFinal {
  /** The client-final-message (`c=biws,r=<nonce>,p=<proof>`). */
  response: string;
  /** The `v=` the server must answer with, base64. */
  serverSignature: string;
}

/**
 * The client-final-message for `password`, given the client-first-message-bare (`n=…,r=<client
 * nonce>`) and the server-first-message as received, without channel binding (`c=biws`, "n,,").
 */
export async function scramClientFinal(
  password: string,
  clientFirstBare: string,
  serverFirst: string,
  server: ScramServerFirst,
): Promise<ScramClientFinal> {
  const subtle = crypto.subtle;
  const passwordKey = await subtle.importKey('raw', utf8(password), 'PBKDF2', false, ['deriveBits']);
  const salted = await hmacKey(
    new Uint8Array(
      await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: server.salt, iterations: server.iterations }, passwordKey, 256),
    ),
  );
  const clientKey = await hmacSha256(salted, 'Client Key');
  const storedKey = await hmacKey(new Uint8Array(await subtle.digest('SHA-256', clientKey)));
  const withoutProof = `c=biws,r=${server.nonce}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const clientSignature = await hmacSha256(storedKey, authMessage);
  const proof = clientKey.map((byte, i) => byte ^ clientSignature[i]!);
  const serverSignature = await hmacSha256(await hmacKey(await hmacSha256(salted, 'Server Key')), authMessage);
  return { response: `${withoutProof},p=${toBase64(proof)}`, serverSignature: toBase64(serverSignature) };
}
