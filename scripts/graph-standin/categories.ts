import type { Reply } from './account.ts';
import { GraphError, isRecord, parseJsonBody } from './http.ts';
import { guid } from './ids.ts';
import type { Mailbox } from './mailbox.ts';

/**
 * The mailbox's master category list (`/me/outlook/masterCategories`): the categories Outlook
 * offers, each with a colour. A message's `categories` may name any text; Outlook colours those
 * the master list holds. Reading needs MailboxSettings.Read (or ReadWrite), changing
 * MailboxSettings.ReadWrite, as in Graph.
 */
export interface MasterCategory {
  id: string;
  displayName: string;
  color: string;
}

/** Graph's `categoryColor`: `none` or `preset0` … `preset24`. */
const COLORS = new Set(['none', ...Array.from({ length: 25 }, (_, i) => `preset${i}`)]);
const MAX_NAME = 255;

const lists = new WeakMap<Mailbox, MasterCategory[]>();

/** The list of a mailbox (a reset mailbox is a new object, so it starts empty again). */
function masterCategories(mailbox: Mailbox): MasterCategory[] {
  let list = lists.get(mailbox);
  if (!list) {
    list = [];
    lists.set(mailbox, list);
  }
  return list;
}

type Call = { method: string; body: Buffer; graphBase: string; token: { scopes: string[] } };

function need(call: Call, anyOf: string[]) {
  if (!anyOf.some((scope) => call.token.scopes.includes(scope)))
    throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
}

const READ = ['MailboxSettings.Read', 'MailboxSettings.ReadWrite'];
const WRITE = ['MailboxSettings.ReadWrite'];

function parseColor(value: unknown): string {
  if (value === undefined) return 'none';
  if (typeof value !== 'string' || !COLORS.has(value))
    throw new GraphError(400, 'RequestBodyRead', `Requested value '${String(value)}' was not found in enum 'categoryColor'.`);
  return value;
}

/** `/me/outlook/masterCategories[/{id}]`: `rest` is the segments after `outlook`. */
export function handleMasterCategories(call: Call, mailbox: Mailbox, rest: string[]): Reply {
  if (rest[0]?.toLowerCase() !== 'mastercategories' || rest.length > 2)
    throw new GraphError(400, 'BadRequest', `Resource not found for the segment '${rest[0] ?? 'outlook'}'.`);
  const list = masterCategories(mailbox);
  const context = `${call.graphBase}/$metadata#users('${mailbox.user.id}')/outlook/masterCategories`;
  if (rest.length === 1) {
    if (call.method === 'GET') {
      need(call, READ);
      return { status: 200, json: { '@odata.context': context, value: list.map((c) => ({ ...c })) } };
    }
    if (call.method === 'POST') {
      need(call, WRITE);
      const input = parseJsonBody(call.body);
      if (!isRecord(input)) throw new GraphError(400, 'RequestBodyRead', 'The request body must be a JSON object.');
      for (const key of Object.keys(input))
        if (key !== 'displayName' && key !== 'color')
          throw new GraphError(400, 'RequestBodyRead', `The property '${key}' does not exist on type 'microsoft.graph.outlookCategory'.`);
      const name = input.displayName;
      if (typeof name !== 'string' || !name.trim() || name.length > MAX_NAME)
        throw new GraphError(400, 'ErrorInvalidArgument', 'The displayName is required (at most 255 characters).');
      if (list.some((c) => c.displayName.toLowerCase() === name.toLowerCase()))
        throw new GraphError(409, 'ErrorAlreadyExists', `A category with the name '${name}' already exists.`);
      const category = { id: guid(`${mailbox.nextSeed()}:category`), displayName: name, color: parseColor(input.color) };
      list.push(category);
      return { status: 201, json: { '@odata.context': `${context}/$entity`, ...category } };
    }
    throw new GraphError(405, 'Request_BadRequest', `The ${call.method} method is not supported for this resource.`);
  }
  const index = list.findIndex((c) => c.id === rest[1]);
  if (index < 0) throw new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
  const category = list[index]!;
  switch (call.method) {
    case 'GET':
      need(call, READ);
      return { status: 200, json: { '@odata.context': `${context}/$entity`, ...category } };
    case 'PATCH': {
      need(call, WRITE);
      const input = parseJsonBody(call.body);
      if (!isRecord(input)) throw new GraphError(400, 'RequestBodyRead', 'The request body must be a JSON object.');
      // the name of a category cannot change (Graph: displayName is read-only once created)
      if (input.displayName !== undefined && input.displayName !== category.displayName)
        throw new GraphError(400, 'ErrorInvalidArgument', 'The displayName of a category cannot be changed.');
      if (input.color !== undefined) category.color = parseColor(input.color);
      return { status: 200, json: { '@odata.context': `${context}/$entity`, ...category } };
    }
    case 'DELETE':
      need(call, WRITE);
      list.splice(index, 1);
      return { status: 204 };
    default:
      throw new GraphError(405, 'Request_BadRequest', `The ${call.method} method is not supported for this resource.`);
  }
}
