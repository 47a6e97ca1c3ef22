import { normaliseEmail } from './email.ts';
import { enrol, type Enrolment } from './enrolment.ts';
import { hashPassword } from './passwords.ts';

/**
 * SQL that creates an account enrolled in 2FA, for tools that reach D1 only through
 * `wrangler d1 execute` (the first-admin command and the development seed).
 */
export interface AccountSqlInput {
  email: string;
  firstName: string;
  lastName: string;
  role: 'admin' | 'developer' | 'user';
  password: string;
  /** base32; a new random one when absent */
  totpSecret?: string;
  totpEncryptionKey: string;
  issuer: string;
  /** `ensure`: leave an existing account as it is (idempotent seed); `replace`: reset its password and 2FA. */
  mode: 'ensure' | 'replace';
  /** The password's hash in hashPassword's scheme, made elsewhere (the tests make it off the main thread); made here when absent. */
  passwordHash?: string;
}

const text = (value: string) => `'${value.replace(/'/g, "''")}'`;

export async function accountSql(input: AccountSqlInput): Promise<{ statements: string[]; enrolment: Enrolment }> {
  const email = normaliseEmail(input.email);
  const enrolment = await enrol(email, input.issuer, input.totpEncryptionKey, input.totpSecret);
  const now = Date.now();
  const user = `(SELECT id FROM users WHERE email = ${text(email)})`;
  const hash = text(input.passwordHash ?? hashPassword(input.password));
  const replace = input.mode === 'replace';
  const statements = [
    `INSERT INTO users (email, first_name, last_name, role, is_active, created_at) VALUES (${text(email)}, ${text(input.firstName)}, ${text(input.lastName)}, ${text(input.role)}, 1, ${now}) ON CONFLICT(email) DO ${replace ? `UPDATE SET role = excluded.role, is_active = 1` : 'NOTHING'}`,
    replace ? `DELETE FROM credentials WHERE user_id = ${user} AND site_id IS NULL` : '',
    `INSERT INTO credentials (user_id, site_id, password_hash, updated_at) SELECT ${user}, NULL, ${hash}, ${now} WHERE NOT EXISTS (SELECT 1 FROM credentials WHERE user_id = ${user} AND site_id IS NULL)`,
    `UPDATE users SET totp_secret = ${text(enrolment.sealedSecret)}, enrolled_at = ${now} WHERE email = ${text(email)}${replace ? '' : ' AND totp_secret IS NULL'}`,
    replace ? `DELETE FROM backup_codes WHERE user_id = ${user}` : '',
    ...enrolment.backupCodeHashes.map(
      (codeHash) =>
        `INSERT INTO backup_codes (user_id, code_hash) SELECT ${user}, ${text(codeHash)} WHERE (SELECT count(*) FROM backup_codes WHERE user_id = ${user}) < 10`,
    ),
    replace
      ? `INSERT INTO audit_log (at, event, user_id, email, detail) VALUES (${now}, 'enrolment', ${user}, ${text(email)}, 'command line')`
      : '',
  ].filter(Boolean);
  return { statements, enrolment };
}

/** The development account `npm run dev` seeds; development values only. */
export const DEV_ACCOUNT = {
  email: 'demo@example.com',
  password: 'demo-password-1',
  totpSecret: 'JBSWY3DPEHPK3PXP',
  role: 'admin',
  firstName: 'Demo',
  lastName: 'Admin',
} as const;

export const devSeedSql = (totpEncryptionKey: string, issuer: string) =>
  accountSql({ ...DEV_ACCOUNT, totpEncryptionKey, issuer, mode: 'ensure' });
