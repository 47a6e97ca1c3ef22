import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { accountSql, devSeedSql, DEV_ACCOUNT } from '../workers/auth/src/account-sql.ts';
import { qrAscii } from '../workers/auth/src/enrolment.ts';
import { devVar } from './dev-vars.ts';
import { devStateDir, executeD1 } from './workers.ts';

const CONFIG = 'workers/auth/wrangler.toml';
const ISSUER = 'Racing back-office';

/** Runs SQL statements against the auth D1 database through the local D1 path (scripts/d1-local.ts) or, with --remote, wrangler (local state or the deployed database). */
export function executeSql(statements: string[], target: { remote: boolean; persistTo?: string }) {
  executeD1(CONFIG, 'DB', statements, target.remote ? { remote: true } : { persistTo: target.persistTo ?? devStateDir('auth') });
}

/** A value from the environment, else (for local work) from workers/auth/.dev.vars, then .dev.vars.example. */
function authVar(name: string, remote: boolean): string {
  if (remote && !process.env[name]) throw new Error(`${name} is not set (the production value is needed for --remote)`);
  return devVar('auth', name);
}

/**
 * The development account (idempotent): `npm run dev` calls this after applying migrations. Returns
 * the backup codes it enrolled, which hold when the account was new (an existing one keeps its own).
 */
export async function seedAuthDevAccount(persistTo: string): Promise<string[]> {
  const { statements, enrolment } = await devSeedSql(authVar('AUTH_TOTP_ENCRYPTION_KEY', false), ISSUER);
  executeSql(statements, { remote: false, persistTo });
  return enrolment.backupCodes;
}

async function createAdmin(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      first: { type: 'string', default: '' },
      last: { type: 'string', default: '' },
      remote: { type: 'boolean', default: false },
      'persist-to': { type: 'string' },
    },
  });
  if (!values.email) throw new Error('--email is required');
  let password = process.env.AUTH_ADMIN_PASSWORD;
  if (!password) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    password = await rl.question('Password (at least 12 characters): ');
    rl.close();
  }
  if (password.length < 12) throw new Error('The password needs at least 12 characters');
  const { statements, enrolment } = await accountSql({
    email: values.email,
    firstName: values.first,
    lastName: values.last,
    role: 'admin',
    password,
    totpEncryptionKey: authVar('AUTH_TOTP_ENCRYPTION_KEY', values.remote),
    issuer: ISSUER,
    mode: 'replace',
  });
  executeSql(statements, { remote: values.remote, persistTo: values['persist-to'] });
  console.log(`✓ admin ${values.email.toLowerCase()} ${values.remote ? 'in the deployed database' : 'in local D1'}`);
  console.log('\nScan with an authenticator app (shown once):\n');
  console.log(qrAscii(enrolment.otpauthUri));
  console.log(enrolment.otpauthUri);
  console.log(`\nBackup codes (each works once):\n  ${enrolment.backupCodes.join('\n  ')}`);
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'create-admin') return createAdmin(rest);
  if (command === 'seed-dev') {
    const { values } = parseArgs({ args: rest, options: { 'persist-to': { type: 'string' } } });
    await seedAuthDevAccount(values['persist-to'] ?? devStateDir('auth'));
    console.log(`✓ development account ${DEV_ACCOUNT.email} present`);
    return;
  }
  console.error(
    'usage: npx tsx scripts/auth-admin.ts create-admin --email ADDRESS [--first NAME] [--last NAME] [--remote] [--persist-to DIR]',
  );
  console.error('       npx tsx scripts/auth-admin.ts seed-dev [--persist-to DIR]');
  process.exit(2);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/scripts\//, '/scripts/'))) {
  main().catch((err) => {
    console.error(`✗ ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
