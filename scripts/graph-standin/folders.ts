import type { Reply } from './account.ts';
import { type GraphCall, READ, WRITE, badMethodOrPath, need, notFoundSegment, ok, requestBodyRead, unknownProperty } from './graph-call.ts';
import { GraphError, isRecord, parseJsonBody } from './http.ts';
import type { Mailbox, StoredFolder } from './mailbox.ts';
import { messages } from './messages.ts';
import { applySelect, nextLink, option, parseCount, parseFilter, parseSelect, parseSkip, parseTop, type Properties } from './odata.ts';

/** `/me/mailFolders`: folder lists, one folder, child folders, and new folders. */

const FOLDER_PROPERTIES = [
  'id',
  'displayName',
  'parentFolderId',
  'childFolderCount',
  'unreadItemCount',
  'totalItemCount',
  'sizeInBytes',
  'isHidden',
] as const;

const FOLDER_FILTER: Properties<StoredFolder> = {
  displayName: (f) => f.displayName,
  parentFolderId: (f) => f.parentFolderId,
  isHidden: (f) => f.isHidden,
};

export function mailFolders(call: GraphCall, rest: string[], lower: string[]): Reply | Promise<Reply> {
  const mailbox = call.account.mailbox;
  if (rest.length === 0) return childFolders(call, mailbox.rootFolderId);
  const folder = mailbox.resolveFolder(rest[0]!);
  if (!folder) throw new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
  if (rest.length === 1) {
    if (call.method !== 'GET') throw badMethodOrPath(call);
    need(call, READ);
    const select = parseSelect(call.query, FOLDER_PROPERTIES, 'mailFolder');
    return ok({
      '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/mailFolders/$entity`,
      ...applySelect(folderJson(mailbox, folder), select),
    });
  }
  if (lower[1] === 'childfolders' && rest.length === 2) return childFolders(call, folder.id);
  if (lower[1] === 'messages') return messages(call, rest.slice(2), lower.slice(2), folder);
  throw notFoundSegment(rest[1]!);
}

/** The folders under a parent (the root for `/mailFolders`): GET lists them, POST makes one. */
function childFolders(call: GraphCall, parentId: string): Reply {
  if (call.method === 'GET') {
    need(call, READ);
    return folderList(call, parentId);
  }
  if (call.method === 'POST') {
    need(call, WRITE);
    return createFolder(call, parentId);
  }
  throw badMethodOrPath(call);
}

function folderList(call: GraphCall, parentId: string): Reply {
  const mailbox = call.account.mailbox;
  const includeHidden = call.query.get('includeHiddenFolders') === 'true';
  let folders = mailbox.childFolders(parentId, includeHidden);
  const filterText = option(call.query, 'filter');
  if (filterText) {
    const filter = parseFilter(filterText, FOLDER_FILTER);
    folders = folders.filter((f) => filter.test(f));
  }
  const select = parseSelect(call.query, FOLDER_PROPERTIES, 'mailFolder');
  const top = parseTop(call.query, 10);
  const skip = parseSkip(call.query);
  const page = folders.slice(skip, skip + top);
  const body: Record<string, unknown> = { '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/mailFolders` };
  if (parseCount(call.query)) body['@odata.count'] = folders.length;
  body.value = page.map((f) => applySelect(folderJson(mailbox, f), select));
  if (skip + top < folders.length)
    body['@odata.nextLink'] = nextLink(`${call.graphBase}${call.path}`, call.query, { $skip: String(skip + top) });
  return ok(body);
}

function createFolder(call: GraphCall, parentId: string): Reply {
  const mailbox = call.account.mailbox;
  const input = parseJsonBody(call.body);
  if (!isRecord(input)) throw requestBodyRead('The request body must be a JSON object.');
  for (const key of Object.keys(input)) if (key !== 'displayName' && key !== 'isHidden') throw unknownProperty(key, 'mailFolder');
  const name = input.displayName;
  if (typeof name !== 'string' || !name.trim())
    throw new GraphError(400, 'ErrorInvalidRequest', 'The folder name must be a non-empty string.');
  if (name.length > 255) throw new GraphError(400, 'ErrorInvalidRequest', 'The folder name is too long.');
  if (input.isHidden !== undefined && typeof input.isHidden !== 'boolean')
    throw requestBodyRead("Cannot convert the literal to the expected type 'Edm.Boolean'.");
  if (mailbox.childFolders(parentId, true).some((f) => f.displayName.toLowerCase() === name.trim().toLowerCase())) {
    throw new GraphError(409, 'ErrorFolderExists', 'A folder with the specified name already exists.');
  }
  const folder = mailbox.createFolder(parentId, name.trim(), input.isHidden === true);
  return {
    status: 201,
    json: {
      '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/mailFolders/$entity`,
      ...folderJson(mailbox, folder),
    },
  };
}

function folderJson(mailbox: Mailbox, folder: StoredFolder): Record<string, unknown> {
  const counts = mailbox.folderCounts(folder.id);
  return {
    id: folder.id,
    displayName: folder.displayName,
    parentFolderId: folder.parentFolderId,
    childFolderCount: counts.childFolderCount,
    unreadItemCount: counts.unreadItemCount,
    totalItemCount: counts.totalItemCount,
    sizeInBytes: counts.sizeInBytes,
    isHidden: folder.isHidden,
  };
}
