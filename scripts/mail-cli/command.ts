import { existsSync, readFileSync } from 'node:fs';
import type { MessageSummary } from '../../workers/mail/src/mail-views.ts';
import type { CliIo } from './cli.ts';
import { CliError, EXIT, type MailClient, usageError } from './client.ts';

/** What a command of the mail CLI is, and the options, input and output helpers the commands share. */

export interface Context {
  io: CliIo;
  values: Record<string, string | boolean | string[] | undefined>;
  args: string[];
  base: string;
  sessionFile: string;
  json: boolean;
  readonly client: MailClient;
  /** `--json`: the data as JSON on stdout; else `text(data)`. */
  print<T>(data: T, text: (data: T) => string): void;
  /** A line of progress on stderr. */
  progress(text: string): void;
}

type OptionSpec = { type: 'string' | 'boolean'; short?: string; multiple?: boolean; description: string; argument?: string };

export interface Command {
  name: string;
  summary: string;
  /** Arguments and options after the name, for the usage line. */
  usage: string;
  details?: string[];
  /** Fewest and most positional arguments. */
  args?: [number, number];
  options?: Record<string, OptionSpec>;
  examples: string[];
  run(ctx: Context): Promise<void>;
}

export const enc = encodeURIComponent;
export const str = (ctx: Context, name: string): string | undefined =>
  typeof ctx.values[name] === 'string' ? (ctx.values[name] as string) : undefined;
export const flag = (ctx: Context, name: string) => ctx.values[name] === true;

export function int(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = str(ctx, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw usageError(`--${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  return n;
}

export const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) : '                ');
export const who = (a: { name: string; address: string } | null) =>
  a ? (a.name && a.name !== a.address ? `${a.name} <${a.address}>` : a.address) : '(nobody)';

export function messageLines(items: MessageSummary[]): string {
  if (!items.length) return '(no messages)';
  return items
    .map(
      (m) =>
        `${m.isRead ? ' ' : '*'} ${when(m.receivedAt ?? m.sentAt)}  ${(m.from?.name || m.from?.address || '(nobody)').slice(0, 30).padEnd(30)}  ${m.hasAttachments ? '📎 ' : ''}${m.subject || '(no subject)'}\n    ${m.id}`,
    )
    .join('\n');
}

export type ListAnswer = {
  folder: { name: string; total: number; unread: number };
  items: MessageSummary[];
  count: number | null;
  next: string | null;
};

export function listPath(folder: string, params: Record<string, string | number | undefined>): string {
  const query = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${enc(String(v))}`)
    .join('&');
  return `/api/emails/${enc(folder)}${query ? `?${query}` : ''}`;
}

export function listText(answer: ListAnswer): string {
  const head = `${answer.folder.name}: ${answer.items.length} shown${answer.count !== null ? ` of ${answer.count}` : ''}, ${answer.folder.unread} unread`;
  return `${head}\n${messageLines(answer.items)}${answer.next ? `\n(more: --next ${answer.next})` : ''}`;
}

/** A text from the argument, `--file`, or stdin when piped. */
export async function inputText(ctx: Context, what = 'text'): Promise<string> {
  const file = str(ctx, 'file');
  let text = ctx.args[0];
  if (file !== undefined) {
    if (text !== undefined) throw usageError(`give the ${what} as an argument or with --file, not both`);
    if (!existsSync(file)) throw usageError(`--file ${file}: no such file`);
    text = readFileSync(file, 'utf8');
  }
  if (text === undefined && !ctx.io.isTTY) text = await ctx.io.readStdin();
  if (!text?.trim()) throw usageError(`no ${what}: give it as an argument, with --file, or on stdin`);
  return text;
}

/** A message body from `--body`, `--body-file` or stdin. */
export async function bodyText(ctx: Context, required: boolean): Promise<string> {
  const body = str(ctx, 'body');
  const file = str(ctx, 'body-file');
  if (body !== undefined && file !== undefined) throw usageError('give --body or --body-file, not both');
  if (file !== undefined) {
    if (!existsSync(file)) throw usageError(`--body-file ${file}: no such file`);
    return readFileSync(file, 'utf8');
  }
  if (body !== undefined) return body;
  if (required && !ctx.io.isTTY) {
    const piped = await ctx.io.readStdin();
    if (piped.trim()) return piped;
  }
  if (required) throw usageError('the message text is required: --body, --body-file or stdin');
  return '';
}

export const list = (ctx: Context, name: string) => {
  const value = ctx.values[name];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return items
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
};

/** Message ids from the arguments, or the newest `--top` of `--folder`. */
export async function targetIds(ctx: Context): Promise<string[]> {
  if (ctx.args.length) return ctx.args;
  const folder = str(ctx, 'folder');
  if (!folder) throw usageError('give message ids, or --folder (with --top) for the newest of a folder');
  const top = int(ctx, 'top', 10, 1, 100);
  const page = await ctx.client.get<ListAnswer>(listPath(folder, { top }));
  return page.items.map((m) => m.id);
}

/** Runs `work` on each id in turn with a progress line; failures are counted, the first one reported. */
export async function each<T>(ctx: Context, ids: string[], verb: string, work: (id: string) => Promise<T>): Promise<T[]> {
  const done: T[] = [];
  let failure: CliError | undefined;
  for (const [i, id] of ids.entries()) {
    if (ids.length > 1) ctx.progress(`${verb} ${i + 1}/${ids.length} ${id.slice(0, 24)}…`);
    try {
      done.push(await work(id));
    } catch (err) {
      if (!(err instanceof CliError) || err.exitCode === EXIT.signedOut || ids.length === 1) throw err;
      ctx.progress(`  failed: ${err.message}`);
      failure ??= err;
    }
  }
  if (failure) {
    ctx.print(done, () => '');
    throw new CliError(`${ids.length - done.length} of ${ids.length} failed; first: ${failure.message}`, failure.exitCode);
  }
  return done;
}

export const FOLDER_OPTION: OptionSpec = {
  type: 'string',
  description: 'Folder: inbox, sentitems, drafts, archive, … or a folder’s name',
  argument: 'folder',
};
/** A command over messages given by id or as the newest of a folder (read by `targetIds`): its usage, arguments and options. */
export const TARGETS = {
  usage: '<message_id>… | --folder f [--top n]',
  args: [0, 100] as [number, number],
  options: {
    folder: FOLDER_OPTION,
    top: { type: 'string', description: 'With --folder: how many of the newest (default 10)', argument: 'n' },
  },
} as const satisfies Pick<Command, 'usage' | 'args' | 'options'>;
export const TOP_OPTION: OptionSpec = { type: 'string', description: 'Messages per page, 1–100', argument: 'n' };
export const BODY_OPTIONS: Record<string, OptionSpec> = {
  body: { type: 'string', description: 'The text (else --body-file or stdin)', argument: 'text' },
  'body-file': { type: 'string', description: 'Read the text from a file', argument: 'path' },
};
export const KEY_OPTION: OptionSpec = {
  type: 'string',
  multiple: true,
  description: 'Only these keys (repeat, or separate with commas); else the model’s choice',
  argument: 'name',
};
export const keys = (ctx: Context) => (list(ctx, 'key').length ? { keys: list(ctx, 'key') } : {});
export const FILE_OPTION: OptionSpec = {
  type: 'string',
  description: 'Read the text from a file (else the argument or stdin)',
  argument: 'path',
};
