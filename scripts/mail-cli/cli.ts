import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliError, EXIT, MailClient, defaultSessionFile, readSessionFile, usageError } from './client.ts';
import type { Command, Context } from './command.ts';
import { COMMANDS } from './commands.ts';

/** What the command line reads and writes: the process's own in main.ts, a recording in tests. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  /** Whether stdin is a terminal (prompts) or a pipe (scripts). */
  isTTY: boolean;
  /** All of stdin (a pipe). */
  readStdin(): Promise<string>;
  /** Asks on the terminal; `hidden` does not echo what is typed. */
  prompt(question: string, hidden: boolean): Promise<string>;
  /** Ends long work (poll, web) early: Ctrl-C in main.ts. */
  signal?: AbortSignal;
  /** The dev runner `web` starts (default `scripts/dev.ts`, what `npm run dev` runs). */
  devRunner?: string;
}

const DEFAULT_URL = 'http://localhost:8706';

const GLOBAL_OPTIONS = {
  url: { type: 'string', description: `The mail service (default $MAIL_URL or ${DEFAULT_URL})` },
  'session-file': { type: 'string', description: 'Where the session is kept (default $XDG_CONFIG_HOME/racing-mail/session.json)' },
  json: { type: 'boolean', description: 'Machine-readable JSON on stdout' },
  help: { type: 'boolean', short: 'h', description: 'This help' },
} as const satisfies ParseArgsConfig['options'] & Record<string, { description: string }>;

const optionLine = (name: string, spec: { type: string; short?: string; description: string; argument?: string }) =>
  `  ${`${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` <${spec.argument ?? 'value'}>` : ''}`.padEnd(30)} ${spec.description}`;

function programHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'Usage: npm run mail -- <command> [arguments] [options]',
    '',
    'The mail assistant from the command line: every command is a call to the mail service’s',
    'HTTP API under your own session (sign in once with `login`).',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Options of every command:',
    ...Object.entries(GLOBAL_OPTIONS).map(([name, spec]) => optionLine(name, spec)),
    '',
    'Exit codes: 0 done, 1 the service or Graph failed, 2 bad arguments, 3 not signed in.',
    'Help on one command: npm run mail -- <command> --help',
    '',
    'Example:',
    '  npm run mail -- login && npm run mail -- inbox --top 5',
    '',
  ].join('\n');
}

function commandHelp(command: Command): string {
  return [
    `Usage: npm run mail -- ${command.name}${command.usage ? ` ${command.usage}` : ''}`,
    '',
    command.summary,
    ...(command.details ? ['', ...command.details] : []),
    '',
    ...(Object.keys(command.options ?? {}).length
      ? ['Options:', ...Object.entries(command.options ?? {}).map(([name, spec]) => optionLine(name, spec)), '']
      : []),
    'Options of every command:',
    ...Object.entries(GLOBAL_OPTIONS).map(([name, spec]) => optionLine(name, spec)),
    '',
    'Example:',
    ...command.examples.map((e) => `  npm run mail -- ${e}`),
    '',
  ].join('\n');
}

/** Strips the help texts off option specs for parseArgs. */
function parseOptions(
  specs: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>,
): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    Object.entries(specs).map(([name, { type, short, multiple }]) => [
      name,
      { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) },
    ]),
  );
}

/**
 * Runs one command line (`argv` without the program name) and answers its exit code. Never
 * throws: every failure is one line on stderr.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  try {
    const name = argv[0];
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      io.stdout(programHelp());
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw usageError(`Unknown command "${name}": npm run mail -- --help lists them`);
    let parsed;
    try {
      parsed = parseArgs({
        args: argv.slice(1),
        options: parseOptions({ ...GLOBAL_OPTIONS, ...command.options }),
        allowPositionals: true,
        strict: true,
      });
    } catch (err) {
      throw usageError(
        `${command.name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)} (see npm run mail -- ${command.name} --help)`,
      );
    }
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    if (values.help) {
      io.stdout(commandHelp(command));
      return EXIT.ok;
    }
    const [min, max] = command.args ?? [0, 0];
    if (parsed.positionals.length < min) throw usageError(`${command.name}: missing argument (usage: ${command.name} ${command.usage})`);
    if (parsed.positionals.length > max)
      throw usageError(`${command.name}: unexpected argument "${parsed.positionals[max]}" (usage: ${command.name} ${command.usage})`);

    const base = String(values.url ?? io.env.MAIL_URL ?? DEFAULT_URL).replace(/\/+$/, '');
    if (!/^https?:\/\/[^/\s]+$/.test(base)) throw usageError(`--url must be an http(s) origin such as ${DEFAULT_URL}, not "${base}"`);
    const sessionFile = String(values['session-file'] ?? io.env.MAIL_SESSION_FILE ?? defaultSessionFile(io.env));
    let client: MailClient | undefined;
    const context: Context = {
      io,
      values,
      args: parsed.positionals,
      base,
      sessionFile,
      json: values.json === true,
      get client() {
        client ??= new MailClient({ base, session: readSessionFile(sessionFile), fetch: io.fetch });
        return client;
      },
      print(data, text) {
        if (values.json === true) io.stdout(`${JSON.stringify(data, null, 2)}\n`);
        else {
          const out = text(data);
          if (out) io.stdout(out.endsWith('\n') ? out : `${out}\n`);
        }
      },
      progress(text) {
        io.stderr(`${text}\n`);
      },
    };
    await command.run(context);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr(`mail: ${err.message}\n`);
      return err.exitCode;
    }
    io.stderr(`mail: unexpected failure: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  }
}
