import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Account, DEFAULT_ACCESS_TOKEN_LIFETIME, DEFAULT_MAX_CONCURRENT, type Reply } from './account.ts';
import { type ControlContext, handleControl } from './control.ts';
import { applyFault, logRequest } from './faults.ts';
import { GraphApi } from './graph.ts';
import { GRAPH_VERSION, type GraphRequestContext, handleGraph } from './graph-request.ts';
import { BodyTooLarge, GraphError, graphError, readBody, send } from './http.ts';
import { Identity } from './identity.ts';
import { handleChat, handleLlmControl, newLlmState } from './llm.ts';
import { guid } from './ids.ts';
import { Mailbox } from './mailbox.ts';
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
  const graphContext: GraphRequestContext = { accounts, identity, graph, urls, closing: closing.signal };

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
    if (path === GRAPH_VERSION || path.startsWith(`${GRAPH_VERSION}/`)) return handleGraph(graphContext, req, res, method, url, body);
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
    const fault = account ? await applyFault(account, method, [url.pathname, url.pathname.slice(tenant.length + 1)], closing.signal) : null;
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
