/** Accounts of the command-line tests: one per test file, each with a stand-in mailbox of the same address. */
export const CLI_ACCOUNTS = {
  reader: {
    email: 'cli-reader@example.com',
    password: 'cli-reader-password',
    totpSecret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
    role: 'user',
  },
  writer: {
    email: 'cli-writer@example.com',
    password: 'cli-writer-password',
    totpSecret: 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U',
    role: 'user',
  },
  assistant: {
    email: 'cli-assistant@example.com',
    password: 'cli-assistant-password',
    totpSecret: 'KRUGKIDROVUWG2ZAMJZG653OEBTG66BA',
    role: 'user',
  },
  /** Not one of the assistant's users (MAIL_ASSISTANT_ADMINS names the assistant account only). */
  plain: { email: 'cli-plain@example.com', password: 'cli-plain-password', totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', role: 'user' },
} as const satisfies Record<string, { email: string; password: string; totpSecret: string; role: 'admin' | 'developer' | 'user' }>;

export type CliAccountName = keyof typeof CLI_ACCOUNTS;

export const CLI_AUTH_VARS = {
  AUTH_SSO_SHARED_SECRET: 'cli-mail-client-secret',
  AUTH_TOKEN_SECRET: 'cli-mail-token-secret-0123456789abcdef0123456789',
  AUTH_TOTP_ENCRYPTION_KEY: 'Y2xpLW1haWwtdG90cC1rZXktMzItYnl0ZXMtLS0tLS0=',
  AUTH_IP_LIMIT_PER_MINUTE: '10000',
  AUTH_LOCKOUT_THRESHOLD: '10000',
} as const;
