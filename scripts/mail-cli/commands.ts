import { ASSISTANT_COMMANDS, STORE_COMMANDS } from './assistant-commands.ts';
import { ATTACHMENT_COMMANDS } from './attachment-commands.ts';
import type { Command } from './command.ts';
import { initDbCommand, webCommand } from './local-commands.ts';
import { READ_COMMANDS } from './read-commands.ts';
import { awaitingCommand, followUpCommand } from './replies.ts';
import { rulesCommand } from './rules.ts';
import { sendersCommand, unsubscribeCommand } from './senders.ts';
import { SESSION_COMMANDS } from './session-commands.ts';
import { WATCH_COMMANDS } from './watch-commands.ts';
import { WRITE_COMMANDS } from './write-commands.ts';

/** Every command of the mail CLI, in the order the help lists them. */
export const COMMANDS: Command[] = [
  ...SESSION_COMMANDS,
  ...READ_COMMANDS,
  ...ATTACHMENT_COMMANDS,
  initDbCommand,
  ...WRITE_COMMANDS,
  ...ASSISTANT_COMMANDS,
  ...WATCH_COMMANDS,
  ...STORE_COMMANDS,
  webCommand,
  rulesCommand,
  sendersCommand,
  unsubscribeCommand,
  awaitingCommand,
  followUpCommand,
];
