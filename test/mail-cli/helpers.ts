import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { type CliIo, run } from '../../scripts/mail-cli/cli';
import { freshCodes } from '../support/totp';
import { CLI_ACCOUNTS, type CliAccountName } from './accounts';

export const setup = inject('mailCli');
export const MAIL_URL = setup.url;

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  stdin?: string;
  signal?: AbortSignal;
  /** Called with each stderr write (progress), e.g. to act once a watch has started. */
  onStderr?: (text: string) => void;
}

/** Runs argv in this process with a recording io: no terminal, stdin from `options.stdin`. */
export async function runRecorded(
  argv: string[],
  env: Record<string, string>,
  options: RunOptions & { devRunner?: string } = {},
): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
      options.onStderr?.(text);
    },
    env,
    fetch: globalThis.fetch,
    isTTY: false,
    readStdin: async () => options.stdin ?? '',
    prompt: async () => {
      throw new Error('no terminal in tests');
    },
    signal: options.signal,
    devRunner: options.devRunner,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

// From the current step, never the previous one: a sign-in through the command line (a process,
// the password hash) can take seconds on a busy machine, and a previous step's code checked after
// the next step has begun is outside the ±1 window.
const nextCode = freshCodes((name: CliAccountName) => CLI_ACCOUNTS[name].totpSecret, setup.backupCodes, { fromCurrentStep: true });

/** A command line of one account: its own session file in a temporary folder. */
export function cliFor(name: CliAccountName) {
  const dir = mkdtempSync(join(tmpdir(), `mail-cli-${name}-`));
  const sessionFile = join(dir, 'config', 'racing-mail', 'session.json');
  const account = CLI_ACCOUNTS[name];
  const control = setup.controls[name];

  /** Runs argv in this process, as `npm run mail -- …` would; stdin is a pipe. */
  async function cli(argv: string[], options: RunOptions = {}): Promise<Outcome> {
    return runRecorded(argv, { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), MAIL_URL, ...options.env }, options);
  }

  /** `--json` output parsed (the command must succeed). */
  async function json<T>(argv: string[], options?: RunOptions): Promise<T> {
    const out = await cli([...argv, '--json'], options);
    if (out.code !== 0) throw new Error(`${argv.join(' ')}: exit ${out.code}: ${out.stderr}`);
    return JSON.parse(out.stdout) as T;
  }

  const login = (code = nextCode(name)) =>
    cli(['login'], { env: { MAIL_EMAIL: account.email, MAIL_PASSWORD: account.password, MAIL_CODE: code } });

  const session = () => JSON.parse(readFileSync(sessionFile, 'utf8')) as { cookie: string; csrf: string; url: string };

  /** The connect flow as a browser runs it: POST /connect, the stand-in's consent, the callback. */
  async function connect(): Promise<void> {
    const { cookie, csrf } = session();
    const start = await fetch(`${MAIL_URL}/connect`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: MAIL_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf }).toString(),
    });
    const flow = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('mail_oauth='))
      ?.split(';')[0];
    if (start.status !== 302 || !flow) throw new Error(`POST /connect: ${start.status}`);
    const consent = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = consent.headers.get('location');
    if (consent.status !== 302 || !callback) throw new Error(`authorize: ${consent.status}`);
    const done = await fetch(callback, { redirect: 'manual', headers: { cookie: `${cookie}; ${flow}` } });
    if (done.status !== 302 || !done.headers.get('location')?.startsWith('/connect?connected=1'))
      throw new Error(`callback: ${done.status} ${done.headers.get('location')}`);
  }

  /** The stand-in's control API of this account's mailbox. */
  async function standin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${control}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`stand-in ${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  }

  return { cli, json, login, connect, session, sessionFile, dir, account, standin, control, nextCode: () => nextCode(name) };
}

/** Exactly one line on stderr, no stack trace. */
export function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  if (lines.length !== 1 || /\n\s+at /.test(stderr)) throw new Error(`expected one line on stderr, got:\n${stderr}`);
  return lines[0]!;
}

export type Summary = {
  id: string;
  subject: string;
  isRead: boolean;
  hasAttachments: boolean;
  folder: string | null;
  from: { address: string } | null;
};
export type List = { folder: { name: string; unread: number; total: number }; items: Summary[]; count: number | null; next: string | null };
