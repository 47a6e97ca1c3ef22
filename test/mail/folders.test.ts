import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { GraphClient } from '../../workers/mail/src/graph/client';
import { type TestSession, connectedMailbox, mailbox, send } from './helpers';

type Folder = { id: string; name: string; parentId: string | null; wellKnown: string | null; depth: number; unread: number };

let session: TestSession;

const folders = async () => {
  const res = await send('/api/folders', { cookie: session.cookie });
  expect(res.status).toBe(200);
  return ((await res.json()) as { folders: Folder[] }).folders;
};

beforeAll(async () => {
  ({ session } = await connectedMailbox('folders'));
  // Two levels below the seeded Inbox/Owners: the tree is walked at any depth.
  const graph = new GraphClient(mailbox(session), env.GRAPH_BASE_URL);
  const owners = (await graph.folders()).find((f) => f.displayName === 'Owners')!;
  const create = async (parentId: string, displayName: string) => {
    const result = await mailbox(session).graph({
      method: 'POST',
      path: `/me/mailFolders/${encodeURIComponent(parentId)}/childFolders`,
      body: { displayName },
    });
    if (result.ok && 'json' in result) return (result.json as { id: string }).id;
    throw new Error(`creating ${displayName}: ${JSON.stringify(result)}`);
  };
  const syndicates = await create(owners.id!, 'Syndicates');
  await create(syndicates, 'Queensland');
  await create(owners.id!, 'Breeders');
});

describe('the folder tree as Outlook draws it', () => {
  it('each folder follows its own parent (by parentId) one level deeper, at any depth', async () => {
    const list = await folders();
    const byId = new Map(list.map((f) => [f.id, f]));
    list.forEach((folder, i) => {
      const parent = folder.parentId ? byId.get(folder.parentId) : undefined;
      if (!parent) {
        expect(folder.depth, folder.name).toBe(0);
        return;
      }
      expect(folder.depth, folder.name).toBe(parent.depth + 1);
      // Between the parent and the folder only the parent's other descendants are drawn.
      const at = list.indexOf(parent);
      expect(at, folder.name).toBeLessThan(i);
      for (const between of list.slice(at + 1, i))
        expect(between.depth, `${between.name} before ${folder.name}`).toBeGreaterThan(parent.depth);
    });
  });

  it('well-known folders first in Outlook’s order, then the rest by name; children of the Inbox under the Inbox, Spring Carnival under Bookings', async () => {
    const list = await folders();
    const drawn = list.map((f) => `${'  '.repeat(f.depth)}${f.name}`);
    expect(drawn).toEqual([
      'Inbox',
      '  Owners',
      '    Breeders',
      '    Syndicates',
      '      Queensland',
      '  Stewards',
      '  Trainers',
      'Drafts',
      'Sent Items',
      'Deleted Items',
      'Archive',
      'Junk Email',
      'Bookings',
      '  Spring Carnival',
      'Conversation History',
      'Invoices',
      'Media',
      'Outbox',
    ]);
    const inbox = list.find((f) => f.wellKnown === 'inbox')!;
    for (const name of ['Owners', 'Stewards', 'Trainers']) expect(list.find((f) => f.name === name)!.parentId).toBe(inbox.id);
    const sent = list.find((f) => f.wellKnown === 'sentitems')!;
    expect(list.some((f) => f.parentId === sent.id)).toBe(false);
  });
});
