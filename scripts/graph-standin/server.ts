import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Account, DEFAULT_ACCESS_TOKEN_LIFETIME, DEFAULT_MAX_CONCURRENT, type Fault, LOG_LIMIT, type Reply } from './account.ts';
import { type ControlContext, handleControl } from './control.ts';
import { GraphApi } from './graph.ts';
import type { GraphCall } from './graph-call.ts';
import { BodyTooLarge, GraphError, readBody } from './http.ts';
import { Identity } from './identity.ts';
import { handleChat, handleLlmControl, newLlmState } from './llm.ts';
import { guid } from './ids.ts';
import { Mailbox, isoSeconds } from './mailbox.ts';
import { DEFAULT_USER, seedMailbox } from './seed.ts';
import { SubscriptionHub } from './subscriptions.ts';

export type GraphStandinOptions = {
  /** 0 (default) picks a free port */
  port?: number;
  host?: string;
  /** the default mailbox's content */
  seed?: 'racing' | 'empty';
};

export type GraphStandin = {
  /** e.g. http://127.0.0.1:8796 — also the identity platform's base (IDENTITY_BASE_URL) */
  url: string;
  /** GRAPH_BASE_URL: `${url}/v1.0` */
  graphBaseUrl: string;
  identityBaseUrl: string;
  port: number;
  close(): Promise<void>;
};

const GRAPH_VERSION = '/v1.0';

/**
 * Starts the stand-in for Microsoft Graph (under `/v1.0`) and the Microsoft identity platform
 * (under `/{tenant}/oauth2/v2.0`), with its control API under `/_standin`. Loopback only.
 */
export async function startGraphStandin(options: GraphStandinOptions = {}): Promise<GraphStandin> {
  const host = options.host ?? '127.0.0.1';
  const accounts = new Map<string, Account>();
  const hub = new SubscriptionHub();
  const urls = { base: '', graph: '', identity: '' };
  let mailboxCounter = 0;
  const closing = new AbortController();

  const newAccount = (key: string, user: Mailbox['user'], seed: 'racing' | 'empty'): Account => {
    const mailbox = new Mailbox(key, user);
    if (seed === 'racing') seedMailbox(mailbox);
    const account: Account = {
      key,
      mailbox,
      seed,
      faults: [],
      log: [],
      deliveries: [],
      subscriptions: new Map(),
      outbox: [],
      outboxWaiters: new Set(),
      webhookMode: 'http',
      accessTokenLifetime: DEFAULT_ACCESS_TOKEN_LIFETIME,
      refreshTokenReuse: 'reject',
      maxConcurrent: DEFAULT_MAX_CONCURRENT,
      authorizeError: null,
      inFlight: { current: 0, highWater: 0, byToken: new Map(), byClient: new Map() },
      refreshGrants: 0,
      detachMailbox: () => {},
    };
    account.detachMailbox = hub.attach(account);
    accounts.set(key, account);
    return account;
  };
  const defaultAccount = newAccount('default', DEFAULT_USER, options.seed ?? 'racing');

  const identity = new Identity({
    accountByHint: (hint) =>
      hint
        ? [...accounts.values()].find((a) =>
            [a.mailbox.user.mail, a.mailbox.user.userPrincipalName].some((m) => m.toLowerCase() === hint.toLowerCase()),
          )
        : defaultAccount,
    account: (key) => accounts.get(key),
    get baseUrl() {
      return urls.base;
    },
  });
  const graph = new GraphApi(hub);

  const control: ControlContext = {
    accounts,
    defaultAccount,
    identity,
    hub,
    urls,
    createAccount: ({ displayName, mail, seed }) => {
      mailboxCounter += 1;
      const key = `mbx${mailboxCounter}-${guid().slice(0, 8)}`;
      const name = displayName ?? `Desk ${mailboxCounter}`;
      const address = mail ?? `desk${mailboxCounter}.${key.slice(-8)}@southerncross-racing.example`;
      const [givenName = name, ...rest] = name.split(' ');
      return newAccount(
        key,
        {
          ...DEFAULT_USER,
          id: guid(`user:${address}`),
          displayName: name,
          givenName,
          surname: rest.join(' '),
          mail: address,
          userPrincipalName: address,
        },
        seed ?? 'racing',
      );
    },
    resetAccount: (account) => {
      account.detachMailbox();
      account.mailbox = new Mailbox(account.key, account.mailbox.user);
      if (account.seed === 'racing') seedMailbox(account.mailbox);
      account.detachMailbox = hub.attach(account);
      account.faults = [];
      account.log = [];
      account.deliveries = [];
      account.subscriptions.clear();
      for (const item of account.outbox.splice(0)) item.resolve({ status: 503, contentType: '', body: 'reset' });
      account.webhookMode = 'http';
      account.accessTokenLifetime = DEFAULT_ACCESS_TOKEN_LIFETIME;
      account.refreshTokenReuse = 'reject';
      account.maxConcurrent = DEFAULT_MAX_CONCURRENT;
      account.authorizeError = null;
      account.inFlight.highWater = account.inFlight.current;
      account.refreshGrants = 0;
    },
  };

  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, {
          status: 500,
          json: { error: { code: 'InternalServerError', message: err instanceof Error ? err.message : String(err) } },
        });
      else res.destroy();
    });
  });
  // Idle kept-alive connections stay open longer than a client keeps them (undici: 4 s), so a
  // client never sends a request on a socket the server is closing at that moment (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const llm = newLlmState();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://standin');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;
    let body: Buffer;
    try {
      body = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : await readBody(req);
    } catch (err) {
      if (err instanceof BodyTooLarge)
        return send(res, graphError(new GraphError(413, 'RequestEntityTooLarge', 'The request body is larger than 4 MB.')));
      throw err;
    }
    if (path === '/v1/chat/completions' && method === 'POST') return handleChat(llm, req, res, body);
    if (path.startsWith('/_standin/llm/')) {
      const answer = handleLlmControl(llm, method, path.split('/').filter(Boolean).slice(2).map(decodeURIComponent), body);
      return send(res, answer.json === undefined ? { status: answer.status } : { status: answer.status, json: answer.json });
    }
    if (path === '/_standin' || path.startsWith('/_standin/')) {
      const segments = path.split('/').filter(Boolean).slice(1).map(decodeURIComponent);
      try {
        return send(res, await handleControl(control, method, segments, url.searchParams, body, req.headers['content-type'] ?? null));
      } catch (err) {
        if (err instanceof GraphError) return send(res, graphError(err));
        throw err;
      }
    }
    if (path === GRAPH_VERSION || path.startsWith(`${GRAPH_VERSION}/`)) return handleGraph(req, res, method, url, body);
    const identityMatch =
      /^\/([A-Za-z0-9.-]+)\/(oauth2\/v2\.0\/(authorize|token)|v2\.0\/\.well-known\/openid-configuration|discovery\/v2\.0\/keys)$/.exec(
        path,
      );
    if (identityMatch)
      return handleIdentity(
        req,
        res,
        method,
        url,
        body,
        identityMatch[1]!,
        identityMatch[3] ?? (identityMatch[2]!.startsWith('v2.0') ? 'discovery' : 'keys'),
      );
    if (path === '/' && method === 'GET') {
      return send(res, {
        status: 200,
        json: {
          name: 'Microsoft Graph and identity platform stand-in',
          graphBaseUrl: urls.graph,
          identityBaseUrl: urls.identity,
          control: `${urls.base}/_standin`,
        },
      });
    }
    return send(res, {
      status: 404,
      json: {
        error: {
          code: 'NotFound',
          message: `No resource at ${path}. Graph is under ${GRAPH_VERSION}, the identity platform under /{tenant}/oauth2/v2.0.`,
        },
      },
    });
  }

  async function handleIdentity(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: URL,
    body: Buffer,
    tenant: string,
    endpoint: string,
  ) {
    if (endpoint === 'discovery' || endpoint === 'keys') {
      if (method !== 'GET') return send(res, { status: 405, json: { error: 'invalid_request', error_description: 'GET only' } });
      return send(res, endpoint === 'keys' ? identity.keys() : identity.discovery(tenant));
    }
    const started = Date.now();
    const form = endpoint === 'token' ? new URLSearchParams(body.toString('utf8')) : url.searchParams;
    const account = endpoint === 'authorize' ? identity.accountByHint(url.searchParams.get('login_hint')) : identity.accountOfGrant(form);
    let reply: Reply | 'drop';
    const fault = account ? await applyFault(account, method, url.pathname, [url.pathname, url.pathname.slice(tenant.length + 1)]) : null;
    if (fault === 'drop') reply = 'drop';
    else if (fault)
      reply = {
        status: fault.status,
        headers: fault.headers,
        json: {
          error: fault.status === 429 ? 'slow_down' : 'temporarily_unavailable',
          error_description: `AADSTS90033: A transient error has occurred (${fault.status}). Please try again.`,
        },
      };
    else if (endpoint === 'authorize')
      reply = method === 'GET' ? identity.authorize(url.searchParams, account) : { status: 405, text: 'GET only' };
    else
      reply =
        method === 'POST'
          ? identity.token(tenant, form, req.headers.authorization, req.headers['content-type'])
          : {
              status: 405,
              json: { error: 'invalid_request', error_description: 'AADSTS900561: The endpoint only accepts POST requests.' },
            };
    if (account)
      logRequest(account, method, url, reply === 'drop' ? 0 : reply.status, started, null, fault && fault !== 'drop' ? fault.id : null);
    if (reply === 'drop') return res.destroy();
    return send(res, reply);
  }

  async function handleGraph(req: IncomingMessage, res: ServerResponse, method: string, url: URL, body: Buffer) {
    const started = Date.now();
    const requestId = guid();
    const clientRequestId = headerValue(req.headers['client-request-id']) ?? requestId;
    const common = { 'request-id': requestId, 'client-request-id': clientRequestId };
    const auth = headerValue(req.headers.authorization);
    const bearer = auth?.match(/^Bearer\s+(\S+)$/i)?.[1];
    const unauthorized = (message: string) =>
      send(
        res,
        graphError(
          new GraphError(401, 'InvalidAuthenticationToken', message, {
            ...common,
            'www-authenticate': `Bearer realm="", authorization_uri="${urls.identity}/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"`,
          }),
        ),
      );
    if (!bearer) return unauthorized('Access token is empty.');
    const token = identity.accessToken(bearer);
    if (!token) return unauthorized('IDX14100: JWT is not well formed, there are no dots (.) or the token is not one the service issued.');
    const account = accounts.get(token.mailboxKey);
    if (!account) return unauthorized('The mailbox of this token no longer exists.');
    if (account.mailbox.now() >= token.expiresAt) {
      logRequest(account, method, url, 401, started, token.id, null);
      return unauthorized('Lifetime validation failed, the token is expired.');
    }
    const graphPath = url.pathname.slice(GRAPH_VERSION.length) || '/';
    // Graph's concurrency limit per app and mailbox (4 for Outlook): one more is throttled at once.
    const clientInFlight = account.inFlight.byClient.get(token.clientId) ?? 0;
    if (account.maxConcurrent > 0 && clientInFlight >= account.maxConcurrent) {
      logRequest(account, method, url, 429, started, token.id, null);
      return send(
        res,
        graphError(
          new GraphError(429, 'ApplicationThrottled', 'Application is over its MailboxConcurrency limit.', {
            ...common,
            'retry-after': '1',
          }),
        ),
      );
    }
    const tokenFlight = account.inFlight.byToken.get(token.id) ?? { current: 0, highWater: 0 };
    account.inFlight.byToken.set(token.id, tokenFlight);
    account.inFlight.current += 1;
    account.inFlight.byClient.set(token.clientId, clientInFlight + 1);
    tokenFlight.current += 1;
    account.inFlight.highWater = Math.max(account.inFlight.highWater, account.inFlight.current);
    tokenFlight.highWater = Math.max(tokenFlight.highWater, tokenFlight.current);
    let status = 0;
    let faultId: number | null = null;
    try {
      // A delayed answer ends when its client gives up (a timed-out fetch closes the connection), so
      // the abandoned request stops holding one of the mailbox's concurrency slots.
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      const fault = await applyFault(
        account,
        method,
        url.pathname,
        [url.pathname, graphPath],
        AbortSignal.any([closing.signal, gone.signal]),
      );
      if (gone.signal.aborted) return;
      if (fault === 'drop') {
        res.destroy();
        return;
      }
      if (fault) {
        faultId = fault.id;
        status = fault.status;
        return send(
          res,
          graphError(new GraphError(fault.status, faultCode(fault.status), faultMessage(fault.status), { ...common, ...fault.headers })),
        );
      }
      const prefer = parsePrefer(req.headers.prefer);
      const applied = [
        prefer.immutable ? 'IdType="ImmutableId"' : null,
        prefer.bodyType ? `outlook.body-content-type="${prefer.bodyType}"` : null,
      ]
        .filter(Boolean)
        .join(', ');
      let reply: Reply;
      try {
        reply = await graph.handle({
          method,
          segments: graphSegments(graphPath, account),
          query: url.searchParams,
          body,
          headers: req.headers,
          account,
          token,
          graphBase: urls.graph,
          path: graphPath,
          immutableIds: prefer.immutable,
          bodyType: prefer.bodyType,
        } satisfies GraphCall);
      } catch (err) {
        if (!(err instanceof GraphError)) throw err;
        reply = graphError(err);
      }
      reply.headers = { ...common, ...(applied ? { 'preference-applied': applied } : {}), ...reply.headers };
      status = reply.status;
      return send(res, reply);
    } finally {
      account.inFlight.current -= 1;
      const left = (account.inFlight.byClient.get(token.clientId) ?? 1) - 1;
      if (left > 0) account.inFlight.byClient.set(token.clientId, left);
      else account.inFlight.byClient.delete(token.clientId);
      tokenFlight.current -= 1;
      logRequest(account, method, url, status, started, token.id, faultId);
    }
  }

  /** The first matching fault of the account: delays, then answers its status (or drops the connection). */
  async function applyFault(
    account: Account,
    method: string,
    _path: string,
    paths: string[],
    signal: AbortSignal = closing.signal,
  ): Promise<{ id: number; status: number; headers: Record<string, string> } | 'drop' | null> {
    const fault = account.faults.find(
      (f: Fault) =>
        (f.method === null || f.method === method) &&
        (f.pathPrefix === null || paths.some((p) => p.startsWith(f.pathPrefix!))) &&
        (f.remaining === null || f.remaining > 0),
    );
    if (!fault) return null;
    fault.hits += 1;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining === 0) account.faults = account.faults.filter((f) => f !== fault);
    }
    if (fault.delayMs > 0) await sleep(fault.delayMs, signal);
    if (fault.status === null) return null;
    if (fault.status === 0) return 'drop';
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== null) headers['retry-after'] = String(fault.retryAfter);
    else if (fault.status === 429) headers['retry-after'] = '1';
    return { id: fault.id, status: fault.status, headers };
  }

  function logRequest(
    account: Account,
    method: string,
    url: URL,
    status: number,
    started: number,
    token: string | null,
    fault: number | null,
  ) {
    account.log.push({
      time: isoSeconds(account.mailbox.now()),
      method,
      path: url.pathname,
      query: url.search,
      status,
      durationMs: Date.now() - started,
      token,
      fault,
    });
    if (account.log.length > LOG_LIMIT) account.log.splice(0, account.log.length - LOG_LIMIT);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  urls.base = `http://${host}:${address.port}`;
  urls.graph = `${urls.base}${GRAPH_VERSION}`;
  urls.identity = urls.base;

  return {
    url: urls.base,
    graphBaseUrl: urls.graph,
    identityBaseUrl: urls.identity,
    port: address.port,
    close: async () => {
      closing.abort();
      hub.close();
      for (const account of accounts.values())
        for (const item of account.outbox.splice(0)) item.resolve({ status: 503, contentType: '', body: 'closing' });
      await hub.settle();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

function send(res: ServerResponse, reply: Reply) {
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...reply.headers };
  if (reply.json !== undefined) {
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(reply.json));
  } else if (reply.bytes !== undefined) {
    res.writeHead(reply.status, {
      'content-type': reply.contentType ?? 'application/octet-stream',
      'content-length': String(reply.bytes.length),
      ...headers,
    });
    res.end(reply.bytes);
  } else if (reply.text !== undefined) {
    res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain; charset=utf-8', ...headers });
    res.end(reply.text);
  } else {
    res.writeHead(reply.status, headers);
    res.end();
  }
}

function graphError(err: GraphError): Reply {
  return {
    status: err.status,
    headers: err.headers,
    json: {
      error: {
        code: err.code,
        message: err.message,
        innerError: {
          date: new Date().toISOString().slice(0, 19),
          'request-id': err.headers['request-id'] ?? guid(),
          'client-request-id': err.headers['client-request-id'] ?? guid(),
        },
      },
    },
  };
}

function faultCode(status: number): string {
  return (
    {
      429: 'TooManyRequests',
      503: 'ServiceNotAvailable',
      500: 'InternalServerError',
      502: 'BadGateway',
      504: 'GatewayTimeout',
      401: 'InvalidAuthenticationToken',
      403: 'ErrorAccessDenied',
      404: 'ErrorItemNotFound',
    }[status] ?? 'UnknownError'
  );
}

function faultMessage(status: number): string {
  return (
    {
      429: 'Too many requests. Retry after the number of seconds in the Retry-After header.',
      503: 'The service is temporarily unavailable. Please retry later.',
      500: 'An internal server error occurred.',
      502: 'Bad gateway.',
      504: 'The request timed out.',
    }[status] ?? `Injected fault: status ${status}.`
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `Prefer: IdType="ImmutableId"` and `Prefer: outlook.body-content-type="text"`, in one header or several. */
function parsePrefer(value: string | string[] | undefined): { immutable: boolean; bodyType: 'html' | 'text' | null } {
  const text = (Array.isArray(value) ? value.join(',') : (value ?? '')).toLowerCase();
  const body = /outlook\.body-content-type\s*=\s*"?(html|text)"?/.exec(text)?.[1] as 'html' | 'text' | undefined;
  return { immutable: /idtype\s*=\s*"?immutableid"?/.test(text), bodyType: body ?? null };
}

/** Path segments after the version: `users/{own id, UPN or mail}` becomes `me`, `name('x')` becomes `name`, `x`. */
function graphSegments(path: string, account: Account): string[] {
  const raw = path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw new GraphError(400, 'BadRequest', 'The request URL is malformed.');
      }
    });
  const out: string[] = [];
  for (const segment of raw) {
    const call = /^([A-Za-z]+)\('([^']*)'\)$/.exec(segment);
    if (call) out.push(call[1]!, call[2]!);
    else out.push(segment);
  }
  if (out[0]?.toLowerCase() === 'users' && out[1] !== undefined) {
    const user = account.mailbox.user;
    if (![user.id, user.mail, user.userPrincipalName].some((v) => v.toLowerCase() === out[1]!.toLowerCase())) {
      throw new GraphError(404, 'ErrorInvalidUser', `The requested user '${out[1]}' is invalid.`);
    }
    out.splice(0, 2, 'me');
  }
  return out;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
