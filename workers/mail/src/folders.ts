import { HttpError } from '#shared/http-error.ts';
import { type GraphClient, WELL_KNOWN_FOLDERS } from './graph/client.ts';
import type { FolderView } from './mail-views.ts';

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

/** Outlook's order of the well-known folders; every other folder follows them alphabetically. */
const OUTLOOK_ORDER = ['inbox', 'drafts', 'sentitems', 'deleteditems', 'archive', 'junkemail'];

/**
 * The folders as Outlook draws them: each under its own parent (by parentId), at any depth,
 * siblings in Outlook's order. A folder whose parent is not in the list (the mailbox root) is
 * top-level.
 */
export function folderTree(folders: FolderView[]): (FolderView & { depth: number })[] {
  const ids = new Set(folders.map((f) => f.id));
  const byParent = new Map<string | null, FolderView[]>();
  for (const folder of folders) {
    const parent = folder.parentId && ids.has(folder.parentId) && folder.parentId !== folder.id ? folder.parentId : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), folder]);
  }
  const rank = (f: FolderView) =>
    f.wellKnown && OUTLOOK_ORDER.includes(f.wellKnown) ? OUTLOOK_ORDER.indexOf(f.wellKnown) : OUTLOOK_ORDER.length;
  const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  const out: (FolderView & { depth: number })[] = [];
  const seen = new Set<string>();
  // Iterative, so a deep tree needs no deep stack; `seen` stops a cycle of parent ids.
  const stack: { folder: FolderView; depth: number }[] = [];
  const pushChildren = (parent: string | null, depth: number) => {
    const children = [...(byParent.get(parent) ?? [])].sort((a, b) => rank(a) - rank(b) || collator.compare(a.name, b.name));
    for (let i = children.length - 1; i >= 0; i--) stack.push({ folder: children[i]!, depth });
  };
  pushChildren(null, 0);
  while (stack.length) {
    const { folder, depth } = stack.pop()!;
    if (seen.has(folder.id)) continue;
    seen.add(folder.id);
    out.push({ ...folder, depth });
    pushChildren(folder.id, depth + 1);
  }
  return out;
}
