import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Exit codes: one per kind of failure, so scripts can tell them apart. */
export const EXIT = { ok: 0, failed: 1, usage: 2, signedOut: 3 } as const;

/** A failure the command line reports as one line on stderr, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);

/** What login keeps between runs: the session cookie and its anti-forgery token, for one address. */
export interface StoredSession {
  url: string;
  cookie: string;
  csrf: string;
  email: string;
  savedAt: string;
}

/** `$XDG_CONFIG_HOME/racing-mail/session.json` (else `~/.config/…`). */
export function defaultSessionFile(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'racing-mail', 'session.json');
}

export function readSessionFile(file: string): StoredSession | null {
  if (!existsSync(file)) return null;
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredSession>;
    if (typeof data.url === 'string' && typeof data.cookie === 'string' && typeof data.csrf === 'string')
      return { email: '', savedAt: '', ...data } as StoredSession;
  } catch {
    // A damaged file is no session: login writes a new one.
  }
  return null;
}

/** Written with mode 0600 (its folder 0700): the cookie is a credential. */
export function writeSessionFile(file: string, session: StoredSession): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function removeSessionFile(file: string): void {
  rmSync(file, { force: true });
}

/** `name=value` of a Set-Cookie header. */
export function cookieFrom(res: Response, name: string): string | undefined {
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0];
}

export type ErrorBody = { error?: string; message?: string; issues?: { field: string; message: string }[] };

/** The one line a failed answer becomes, and its exit code. */
function httpFailure(status: number, body: ErrorBody | null, base: string): CliError {
  const message = body?.message ?? `HTTP ${status}`;
  if (status === 401 && body?.error === 'mailbox_not_connected')
    return new CliError(`No mailbox is connected: connect it at ${base}/connect`, EXIT.failed);
  if (status === 401) return new CliError('Not signed in (or the session ended): run `npm run mail -- login`', EXIT.signedOut);
  if (status === 400 && body?.error === 'invalid_request') {
    const issues = (body.issues ?? []).map((i) => `${i.field.replace(/^(json|query|param)\./, '')}: ${i.message}`).join('; ');
    return new CliError(`Refused: ${issues || message}`, EXIT.usage);
  }
  if (status === 429) return new CliError(`Too many attempts: ${message}`, EXIT.failed);
  if (status >= 500)
    return new CliError(`The mail service failed (${status}${body?.error ? ` ${body.error}` : ''}): ${message}`, EXIT.failed);
  return new CliError(`${message} (${status}${body?.error ? ` ${body.error}` : ''})`, EXIT.failed);
}

export interface ClientOptions {
  base: string;
  session: StoredSession | null;
  fetch: typeof fetch;
}

/** The mail Worker's HTTP API as the web app uses it: the session cookie, and on changes its token and Origin. */
export class MailClient {
  readonly base: string;
  constructor(private readonly options: ClientOptions) {
    this.base = options.base;
  }

  get session(): StoredSession {
    const session = this.options.session;
    if (!session) throw new CliError('Not signed in: run `npm run mail -- login`', EXIT.signedOut);
    if (session.url !== this.base)
      throw new CliError(`Signed in at ${session.url}, not ${this.base}: run \`npm run mail -- login --url ${this.base}\``, EXIT.signedOut);
    return session;
  }

  /** A request with the session; network failures as one clear line. */
  async raw(
    method: string,
    path: string,
    init: { json?: unknown; headers?: Record<string, string>; signedIn?: boolean } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (init.signedIn !== false) {
      const session = this.session;
      headers.cookie = session.cookie;
      if (method !== 'GET') {
        headers['x-csrf-token'] = session.csrf;
        headers.origin = this.base;
      }
    }
    let body: string | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    try {
      return await this.options.fetch(`${this.base}${path}`, { method, headers, body, redirect: 'manual' });
    } catch (err) {
      const cause =
        err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
      throw new CliError(`Cannot reach the mail service at ${this.base} (${cause}): is it running (npm run dev, or --url)?`, EXIT.failed);
    }
  }

  /** A JSON call: the parsed answer, or a CliError from the error body. */
  async call<T>(method: string, path: string, json?: unknown): Promise<T> {
    const res = await this.raw(method, path, json === undefined ? {} : { json });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!res.ok) throw httpFailure(res.status, body as ErrorBody | null, this.base);
    if (body === null && text)
      throw new CliError(`The mail service answered ${method} ${path} with something other than JSON`, EXIT.failed);
    return body as T;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, json?: unknown): Promise<T> {
    return this.call<T>('POST', path, json ?? {});
  }

  /** A download: the bytes, or a CliError from the error body. */
  async bytes(path: string): Promise<{ bytes: Uint8Array; contentType: string }> {
    const res = await this.raw('GET', path, { headers: { accept: '*/*' } });
    if (!res.ok) throw httpFailure(res.status, (await res.json().catch(() => null)) as ErrorBody | null, this.base);
    return { bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? 'application/octet-stream' };
  }
}
