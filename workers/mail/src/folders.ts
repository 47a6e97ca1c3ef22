import { HttpError } from '#shared/http-error.ts';
import { type GraphClient, WELL_KNOWN_FOLDERS } from './graph/client.ts';

/** Friendlier names for the well-known folders, as the pages and older links use them. */
const ALIASES: Record<string, string> = {
  sent: 'sentitems',
  'sent items': 'sentitems',
  deleted: 'deleteditems',
  'deleted items': 'deleteditems',
  trash: 'deleteditems',
  junk: 'junkemail',
  spam: 'junkemail',
  draft: 'drafts',
};

/**
 * A folder named in a path or body: a well-known name (inbox, sentitems, drafts, deleteditems,
 * archive, junkemail, or an alias), a folder's display name (any case), or a Graph folder id.
 * Answers the id Graph takes; 404 when none matches.
 */
export async function resolveFolder(graph: GraphClient, name: string): Promise<string> {
  const lower = name.trim().toLowerCase();
  const wellKnown = ALIASES[lower] ?? lower;
  if ((WELL_KNOWN_FOLDERS as readonly string[]).includes(wellKnown)) return wellKnown;
  const folders = await graph.folders();
  const match = folders.find((f) => f.id === name) ?? folders.find((f) => (f.displayName ?? '').toLowerCase() === lower);
  if (!match?.id) throw new HttpError(404, 'folder_not_found', `The mailbox has no folder "${name}".`);
  return match.id;
}
