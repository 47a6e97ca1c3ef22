import { type Context, Hono } from 'hono';
import { HttpError } from '#shared/http-error.ts';
import type { MailEnv } from '../context.ts';
import { createModel } from '../ai/model.ts';
import { ensureDevMailbox } from '../connection.ts';
import { resolveFolder } from '../folders.ts';
import { pageMailbox, pageSession } from '../guards.ts';
import { folderView, summaryView } from '../mail-views.ts';
import { folderListPage, outlookPage } from '../views/pages.tsx';

/** Server-rendered pages (gate "login"; the folder views also gate "token"). */

export const pages = new Hono<MailEnv>();

/** The mail client: a shell the script fills (folders, list, reading pane, compose). */
pages.get('/outlook', pageSession, async (c) => {
  await ensureDevMailbox(c);
  return c.html(outlookPage({ user: c.var.user, csrfToken: c.var.csrfToken, modelKind: createModel(c.var.config, c.env).kind }));
});

// /admin, /dashboard, /trace/<id> and /admin/docdb-latest: assistant-pages.ts (their views in views/assistant.tsx).

const PAGE_SIZE = 50;

async function folderPage(c: Context<MailEnv>, name: string) {
  if (name.length > 255 || name.includes('\u0000')) throw new HttpError(400, 'invalid_folder', 'A folder name is at most 255 characters.');
  const graph = c.var.graph;
  const id = await resolveFolder(graph, name);
  const [folder, page, wellKnown] = await Promise.all([
    graph.folder(id),
    graph.messages(id, { top: PAGE_SIZE }),
    c.var.mailbox.wellKnownFolders(),
  ]);
  const view = folderView(folder, wellKnown);
  const items = page.value.map((m) => summaryView(m, wellKnown));
  return c.html(folderListPage({ user: c.var.user, csrfToken: c.var.csrfToken, view, items, pageSize: PAGE_SIZE }));
}

pages.get('/inbox', pageSession, pageMailbox, (c) => folderPage(c, 'inbox'));
pages.get('/folder/:name', pageSession, pageMailbox, (c) => folderPage(c, c.req.param('name')));
