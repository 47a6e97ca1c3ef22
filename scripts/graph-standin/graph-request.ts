import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Account, Reply } from './account.ts';
import { applyFault, faultCode, faultMessage, logRequest } from './faults.ts';
import type { GraphApi } from './graph.ts';
import type { GraphCall } from './graph-call.ts';
import { GraphError, graphError, send } from './http.ts';
import type { Identity } from './identity.ts';
import { guid } from './ids.ts';

export const GRAPH_VERSION = '/v1.0';

/** What a Graph request needs of the running stand-in. */
export type GraphRequestContext = {
  accounts: Map<string, Account>;
  identity: Identity;
  graph: GraphApi;
  /** read per request: the addresses are known once the server listens */
  urls: { graph: string; identity: string };
  /** aborted when the stand-in closes, which ends a delayed answer */
  closing: AbortSignal;
};

/**
 * One request under `/v1.0`: the bearer token, the mailbox's concurrency limit, an injected
 * fault, the `Prefer` header, then the Graph resource; every request is logged on its account.
 */
export async function handleGraph(
  context: GraphRequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  url: URL,
  body: Buffer,
) {
  const { accounts, identity, graph, urls, closing } = context;
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
    const fault = await applyFault(account, method, [url.pathname, graphPath], AbortSignal.any([closing, gone.signal]));
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
