import { openOrUndefined, seal as sealWith, type SealingKey } from '#shared/sealing.ts';

/**
 * How the mail assistant keys the shared sealing (workers/shared/sealing.ts): a key per purpose
 * (the session's and the mailbox's refresh tokens, the OAuth state cookie) derived from
 * MAIL_TOKEN_SECRET under the label `mail-<purpose>`; the binding is the associated data.
 */
const key = (secret: string, purpose: string): SealingKey => ({ secret, label: `mail-${purpose}` });

export const seal = (secret: string, purpose: string, binding: string, plain: string): Promise<string> =>
  sealWith(key(secret, purpose), binding, plain);

/** The plain text, or undefined for anything forged, damaged or sealed for another purpose. */
export const open = (secret: string, purpose: string, binding: string, sealed: string): Promise<string | undefined> =>
  openOrUndefined(key(secret, purpose), binding, sealed);
