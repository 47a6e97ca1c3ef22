import { eq } from 'drizzle-orm';
import { backupCodes, credentials, users } from '#d1/auth/schema.ts';
import { normaliseEmail } from './accounts.ts';
import type { AuthDb } from './context.ts';
import type { Enrolment } from './enrolment.ts';

/** Stores a fresh enrolment: the sealed TOTP secret and ten new backup codes (old ones dropped). */
export async function storeEnrolment(db: AuthDb, userId: number, enrolment: Enrolment): Promise<void> {
  await db.batch([
    db.update(users).set({ totpSecret: enrolment.sealedSecret, enrolledAt: Date.now() }).where(eq(users.id, userId)),
    db.delete(backupCodes).where(eq(backupCodes.userId, userId)),
    db.insert(backupCodes).values(enrolment.backupCodeHashes.map((codeHash) => ({ userId, codeHash }))),
  ]);
}

export interface NewAccount {
  email: string;
  firstName: string;
  lastName: string;
  role: 'admin' | 'developer' | 'user';
  passwordHash: string;
}

/** An account with its siteless credential; null when the e-mail is taken. */
export async function createAccount(db: AuthDb, account: NewAccount): Promise<number | null> {
  const [user] = await db
    .insert(users)
    .values({ email: normaliseEmail(account.email), firstName: account.firstName, lastName: account.lastName, role: account.role })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (!user) return null;
  await db.insert(credentials).values({ userId: user.id, siteId: null, passwordHash: account.passwordHash });
  return user.id;
}
