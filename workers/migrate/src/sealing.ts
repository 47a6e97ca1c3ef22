import { HttpError } from '#shared/http-error.ts';
import { open, seal, type SealingKey } from '#shared/sealing.ts';

/**
 * How the migration app keys the shared sealing (workers/shared/sealing.ts): configuration
 * passwords under CONFIG_ENCRYPTION_KEY, upstream refresh tokens under SESSION_SECRET, each with
 * its own label; the associated data binds a sealed value to its row.
 */
export const PASSWORD_LABEL = 'migrate-configuration-password';
export const REFRESH_TOKEN_LABEL = 'migrate-session-refresh-token';

export const refreshTokenKey = (sessionSecret: string): SealingKey => ({ secret: sessionSecret, label: REFRESH_TOKEN_LABEL });
const passwordKey = (encryptionKey: string): SealingKey => ({ secret: encryptionKey, label: PASSWORD_LABEL });

type ConnectionAddress = { host: string; port: number; database: string; username: string };

// A sealed password is bound to its connection's address and user: copied to another row it does not open.
const passwordBinding = (row: ConnectionAddress) => `${row.host}:${row.port}/${row.database}/${row.username}`;

/** A configuration's password sealed for storage (also used by the development seed). */
export const sealPassword = (key: string, row: ConnectionAddress, password: string): Promise<string> =>
  seal(passwordKey(key), passwordBinding(row), password);

/**
 * A configuration's stored password. One that does not open (CONFIG_ENCRYPTION_KEY changed, the row
 * edited by hand) is a 409 that says what to do, never a 500.
 */
export async function openPassword(key: string, row: ConnectionAddress, sealed: string): Promise<string> {
  const opened = await open(passwordKey(key), passwordBinding(row), sealed);
  if (opened.ok) return opened.value;
  throw new HttpError(
    409,
    'password_unreadable',
    `The stored password of ${row.username}@${row.host}:${row.port}/${row.database} cannot be opened with this service's CONFIG_ENCRYPTION_KEY: edit the configuration and enter the password again.`,
  );
}
