import { type EnrolledAccount, authTestVars, enrolled } from '../support/accounts';

/** Accounts of the command-line tests: one per test file, each with a stand-in mailbox of the same address. */
export const CLI_ACCOUNTS = {
  reader: enrolled('cli-reader', 'user', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'),
  writer: enrolled('cli-writer', 'user', 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U'),
  assistant: enrolled('cli-assistant', 'user', 'KRUGKIDROVUWG2ZAMJZG653OEBTG66BA'),
  /** The rules and senders commands' account, an assistant user too (signs in beside `assistant`). */
  curator: enrolled('cli-curator', 'user', 'ONSWG4TFORZWK3TUMVZXI2LOM5SGC3TB'),
  /** Not one of the assistant's users (MAIL_ASSISTANT_ADMINS names the assistant and curator accounts only). */
  plain: enrolled('cli-plain', 'user', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'),
} satisfies Record<string, EnrolledAccount>;

export type CliAccountName = keyof typeof CLI_ACCOUNTS;

/** Settings of the authentication service the command-line tests sign in through (see global-setup.ts). */
export const CLI_AUTH_VARS = authTestVars('cli-mail');
