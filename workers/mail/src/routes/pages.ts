import { type Context, Hono } from 'hono';
import { HttpError } from '#shared/http-error.ts';
import type { MailEnv } from '../context.ts';
import { createModel } from '../ai/model.ts';
import { ensureDevMailbox } from '../connection.ts';
import { resolveFolder } from '../folders.ts';
import { pageMailbox, pageSession } from '../guards.ts';
import { folderView, summaryView } from '../mail-views.ts';
import { Layout } from '../views/layout.tsx';

/** Server-rendered pages (gate "login"; the folder views also gate "token"). */

export const pages = new Hono<MailEnv>();

/** The mail client: a shell the script fills (folders, list, reading pane, compose). */
pages.get('/outlook', pageSession, async (c) => {
  await ensureDevMailbox(c);
  return c.html(
    <Layout
      title="Mail"
      user={c.var.user}
      csrfToken={c.var.csrfToken}
      bodyClass="outlook"
      styles={['/static/mail/client.css']}
      scripts={[
        '/static/mail/mail-util.js',
        '/static/mail/mail-body.js',
        '/static/mail/mail-assistant.js',
        '/static/mail/mail-draft.js',
        '/static/mail/mail-compose.js',
        '/static/mail/outlook.js',
      ]}
    >
      <div class="client" data-client data-model-kind={createModel(c.var.config, c.env).kind}>
        <nav class="folders" aria-label="Folders">
          <button type="button" class="compose-button" data-action="compose" aria-keyshortcuts="c">
            New message
          </button>
          <ul data-folders role="list"></ul>
        </nav>
        <section class="list" aria-label="Messages">
          <form class="search" role="search" data-search>
            <label for="q" class="visually-hidden">
              Search mail
            </label>
            <input id="q" name="q" type="search" maxlength={200} placeholder="Search mail (/)" autocomplete="off" />
          </form>
          <p class="status" data-status role="status" aria-live="polite"></p>
          <ul data-messages role="listbox" aria-label="Messages" tabindex={0}></ul>
          <div class="pager">
            <button type="button" data-action="more" hidden>
              More
            </button>
          </div>
        </section>
        <section class="reader" aria-label="Reading pane" data-reader tabindex={-1}>
          <p class="empty">
            Select a message to read it. Keys: j/k next/previous, Enter open, r reply, c compose, e archive, # delete, u mark read, /
            search.
          </p>
        </section>
      </div>
      <dialog class="compose" data-compose aria-labelledby="compose-title">
        <form method="dialog" data-compose-form>
          <h2 id="compose-title">New message</h2>
          <label for="compose-to">To</label>
          <input id="compose-to" name="to" list="people" autocomplete="off" maxlength={4000} data-people />
          <label for="compose-cc">CC</label>
          <input id="compose-cc" name="cc" list="people" autocomplete="off" maxlength={4000} data-people />
          <label for="compose-bcc">BCC</label>
          <input id="compose-bcc" name="bcc" list="people" autocomplete="off" maxlength={4000} data-people />
          <label for="compose-subject">Subject</label>
          <input id="compose-subject" name="subject" maxlength={255} />
          <label for="compose-body">Message</label>
          <textarea id="compose-body" name="body" rows={10}></textarea>
          <p class="error" data-compose-error role="alert"></p>
          <div class="actions">
            <button type="submit" value="send" data-action="send">
              Send
            </button>
            <button type="button" class="secondary" data-action="close-compose">
              Cancel
            </button>
          </div>
        </form>
      </dialog>
      <datalist id="people"></datalist>
    </Layout>,
  );
});

// /admin, /dashboard, /trace/<id> and /admin/docdb-latest: assistant-pages.tsx.

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
  return c.html(
    <Layout title={view.name} user={c.var.user} csrfToken={c.var.csrfToken}>
      <section class="panel folder-view">
        <h1>
          {view.name} <small>{`${view.unread} unread of ${view.total}`}</small>
        </h1>
        {items.length === 0 ? <p>No messages.</p> : null}
        <table class="messages">
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">Subject</th>
              <th scope="col">Received</th>
            </tr>
          </thead>
          <tbody>
            {items.map((m) => (
              <tr class={m.isRead ? 'read' : 'unread'}>
                <td>{m.from?.name || m.from?.address || '—'}</td>
                <td>
                  <a href={`/outlook#message=${encodeURIComponent(m.id)}`}>{m.subject || '(no subject)'}</a>
                  <div class="preview">{m.preview}</div>
                </td>
                <td>
                  <time datetime={m.receivedAt ?? ''}>{(m.receivedAt ?? '').replace('T', ' ').slice(0, 16)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {view.total > PAGE_SIZE ? <p>The newest {PAGE_SIZE} are shown; the mail client pages through all of them.</p> : null}
      </section>
    </Layout>,
  );
}

pages.get('/inbox', pageSession, pageMailbox, (c) => folderPage(c, 'inbox'));
pages.get('/folder/:name', pageSession, pageMailbox, (c) => folderPage(c, c.req.param('name')));
