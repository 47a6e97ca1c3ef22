import type { IncomingHttpHeaders } from 'node:http';
import type { Account, Reply } from './account.ts';
import { GraphError } from './http.ts';
import type { AccessToken } from './identity.ts';

/** What every Graph resource handler shares: the call, the scopes it checks, Graph's error bodies. */

/** One authenticated Graph request, after the token check. */
export type GraphCall = {
  method: string;
  /** path segments after `/v1.0`, `users/{me}` folded into `me`, `name('x')` split in two */
  segments: string[];
  query: URLSearchParams;
  body: Buffer;
  headers: IncomingHttpHeaders;
  account: Account;
  token: AccessToken;
  /** e.g. http://127.0.0.1:8796/v1.0 */
  graphBase: string;
  /** the request path after the version, for nextLink */
  path: string;
  immutableIds: boolean;
  bodyType: 'html' | 'text' | null;
};

export const READ = ['Mail.Read', 'Mail.ReadWrite'];
export const WRITE = ['Mail.ReadWrite'];
export const SEND = ['Mail.Send'];

export function ok(json: unknown): Reply {
  return { status: 200, json };
}

export function need(call: GraphCall, anyOf: string[]) {
  if (!anyOf.some((scope) => call.token.scopes.includes(scope)))
    throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
}

export function itemNotFound(): GraphError {
  return new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
}

export function notFoundSegment(segment: string): GraphError {
  return new GraphError(400, 'BadRequest', `Resource not found for the segment '${segment}'.`);
}

export function badMethodOrPath(call: GraphCall): GraphError {
  return new GraphError(405, 'Request_BadRequest', `The ${call.method} method is not supported for this resource.`);
}

export function requestBodyRead(message: string): GraphError {
  return new GraphError(400, 'RequestBodyRead', message);
}

export function unknownProperty(name: string, type: string): GraphError {
  return new GraphError(
    400,
    'RequestBodyRead',
    `The property '${name}' does not exist on type 'microsoft.graph.${type}'. Make sure to only use property names that are defined by the type or mark the type as open type.`,
  );
}
