import { randomBytes, scrypt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeSql } from '../../scripts/auth-admin';
import { applyLocalD1Migrations, startLocalWorker } from '../../scripts/local-worker';
import { accountSql } from '../../workers/auth/src/account-sql';
import { SCRYPT } from '../../workers/auth/src/passwords';
import type { EnrolledAccount } from './accounts';

const AUTH_CONFIG = 'workers/auth/wrangler.toml';

export type { EnrolledAccount } from './accounts';

export interface TestAuthService {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Each account's single-use backup codes, by the name it was given. */
  backupCodes: Record<string, string[]>;
  /** Its local D1's folder, for statements a test runs while it serves (executeSql). */
  persistTo: string;
  dispose(): Promise<void>;
}

/**
 * The real authentication Worker in local workerd with its own D1 (in a temporary folder) and
 * the given enrolled accounts, for tests of the services that sign in through it. With
 * `registry`, Workers started with the same registry folder reach it by service binding.
 */
export async function startTestAuthService(
  accounts: Record<string, EnrolledAccount>,
  vars: Record<string, string> & { AUTH_TOTP_ENCRYPTION_KEY: string },
  options: { registry?: string /** Further statements after the accounts (sites, site roles). */; sql?: string[] } = {},
): Promise<TestAuthService> {
  const persistTo = mkdtempSync(join(tmpdir(), 'auth-service-'));
  applyLocalD1Migrations(AUTH_CONFIG, 'DB', persistTo);
  const statements: string[] = [];
  const backupCodes: Record<string, string[]> = {};
  // All the accounts' password hashes at once, on Node's thread pool.
  const enrolled = await Promise.all(
    Object.entries(accounts).map(async ([name, account]) => ({
      name,
      ...(await accountSql({
        ...account,
        firstName: name,
        lastName: 'Tester',
        totpEncryptionKey: vars.AUTH_TOTP_ENCRYPTION_KEY,
        issuer: 'Racing back-office',
        mode: 'replace',
        passwordHash: await passwordHash(account.password),
      })),
    })),
  );
  for (const { name, statements: sql, enrolment } of enrolled) {
    statements.push(...sql);
    backupCodes[name] = enrolment.backupCodes;
  }
  statements.push(...(options.sql ?? []));
  executeSql(statements, { remote: false, persistTo });
  const worker = await startLocalWorker({ config: AUTH_CONFIG, vars, persistTo, logLevel: 'error', registry: options.registry });
  return {
    url: (await worker.url).origin,
    backupCodes,
    persistTo,
    dispose: async () => {
      await worker.dispose();
      rmSync(persistTo, { recursive: true, force: true });
    },
  };
}

/**
 * A stand-in for an AUTH service binding that forwards each request to the test auth service at
 * `origin`. A real binding reaches the Worker directly; this path crosses wrangler's local proxy,
 * which answers a POST it could not pass on (its connection to the Worker failed) with 503 "Your
 * worker restarted mid-request" and `Retry-After: 0` rather than retrying it. Only that answer is
 * tried once more, so the Worker's own answers (503s included) reach the caller unchanged.
 */
export function forwardToAuthService(origin: () => string): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    const send = () => fetch(new URL(url.pathname + url.search, origin()), { method: request.method, headers: request.headers, body });
    const response = await send();
    if (response.status !== 503 || response.headers.get('retry-after') !== '0') return response;
    const text = await response.text();
    return text.startsWith('Your worker restarted mid-request') ? send() : new Response(text, response);
  };
}

/**
 * scrypt parameters for the test accounts' stored hashes: far cheaper than the Worker's (SCRYPT), so
 * that no project's set-up spends minutes hashing on a busy machine. The auth Worker takes any valid
 * parameters and stores its own at the account's first sign-in (`rehash`, as for an imported hash),
 * so a sign-in still checks the password through scrypt and costs what it costs in production.
 */
export const TEST_SCRYPT = { N: 2 ** 10, r: 8, p: 1 } as const;

/**
 * A password hash in the auth Worker's scheme (hashPassword: `scrypt$N$r$p$salt$hash`, a random
 * salt) at TEST_SCRYPT, made by Node's native scrypt on its thread pool.
 */
export async function passwordHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = TEST_SCRYPT;
  const hash = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, SCRYPT.dkLen, { N, r, p }, (error, key) => (error ? reject(error) : resolve(key))),
  );
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}
