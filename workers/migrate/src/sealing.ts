import { derivedKey, fromBase64Url, randomBytes, toBase64Url, utf8 } from '#shared/crypto.ts';

/**
 * AES-256-GCM sealing for values kept at rest (configuration passwords, upstream refresh tokens).
 * The key is derived from a secret with its own label per use; the associated data binds a
 * sealed value to its row, so a value copied to another row does not open.
 */
const key = (secret: string, label: string) => derivedKey(secret, label, { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);

export async function seal(secret: string, label: string, associated: string, plain: string): Promise<string> {
  const iv = randomBytes(12);
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8(associated) }, await key(secret, label), utf8(plain));
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

export async function open(secret: string, label: string, associated: string, sealed: string): Promise<string> {
  const [version, ivText, dataText, extra] = sealed.split('.');
  const iv = fromBase64Url(ivText ?? '');
  const data = fromBase64Url(dataText ?? '');
  if (version !== 'v1' || !iv || !data || extra !== undefined) throw new Error('unknown sealed value format');
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: utf8(associated) }, await key(secret, label), data);
  return new TextDecoder().decode(plain);
}

export const PASSWORD_LABEL = 'migrate-configuration-password';
export const REFRESH_TOKEN_LABEL = 'migrate-session-refresh-token';

type ConnectionAddress = { host: string; port: number; database: string; username: string };

// A sealed password is bound to its connection's address and user: copied to another row it does not open.
const passwordBinding = (row: ConnectionAddress) => `${row.host}:${row.port}/${row.database}/${row.username}`;

/** A configuration's password sealed for storage (also used by the development seed). */
export const sealPassword = (key: string, row: ConnectionAddress, password: string) => seal(key, PASSWORD_LABEL, passwordBinding(row), password);

export const openPassword = (key: string, row: ConnectionAddress, sealed: string) => open(key, PASSWORD_LABEL, passwordBinding(row), sealed);
