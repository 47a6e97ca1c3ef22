// WebCrypto's global type names, which runtime code shared with scripts (workers/shared/crypto.ts,
// used by the migrate dev seed to seal a password) refers to; Node has the same API under node:crypto.
type CryptoKey = import('node:crypto').webcrypto.CryptoKey;
type SubtleCrypto = import('node:crypto').webcrypto.SubtleCrypto;
