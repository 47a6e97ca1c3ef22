import { utf8 } from './encoding.ts';

type KeyAlgorithmParams = Parameters<SubtleCrypto['deriveKey']>[2];

const keys = new Map<string, Promise<CryptoKey>>();

/**
 * A WebCrypto key derived from a secret with HKDF-SHA256, the label as salt, so one secret gives
 * independent keys for independent uses. Derived once per isolate for each secret and label.
 */
export function derivedKey(secret: string, label: string, algorithm: KeyAlgorithmParams, usages: Parameters<SubtleCrypto['deriveKey']>[4]): Promise<CryptoKey> {
  const cacheKey = `${label}\u0000${secret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = crypto.subtle
      .importKey('raw', utf8(secret), 'HKDF', false, ['deriveKey'])
      .then((base) => crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: utf8(label), info: new Uint8Array() }, base, algorithm, false, usages));
    keys.set(cacheKey, key);
  }
  return key;
}
