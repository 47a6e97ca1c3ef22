import type { SessionUser } from '../context.ts';
import type { FolderView, MessageSummary } from '../mail-views.ts';
import { Layout } from './layout.tsx';

interface PageProps {
  user: SessionUser;
  csrfToken: string;
}

/** The mail client: a shell the script fills (folders, list, reading pane, compose). */
function OutlookPage(props: PageProps & { modelKind: string }) {
  return (
    <Layout
      title="Mail"
      user={props.user}
      csrfToken={props.csrfToken}
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
      <div class="client" data-client data-model-kind={props.modelKind}>
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
    </Layout>
  );
}

/** A folder's newest messages as a plain table (the pages without the client's script). */
function FolderListPage(props: PageProps & { view: FolderView; items: MessageSummary[]; pageSize: number }) {
  return (
    <Layout title={props.view.name} user={props.user} csrfToken={props.csrfToken}>
      <section class="panel folder-view">
        <h1>
          {props.view.name} <small>{`${props.view.unread} unread of ${props.view.total}`}</small>
        </h1>
        {props.items.length === 0 ? <p>No messages.</p> : null}
        <table class="messages">
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">Subject</th>
              <th scope="col">Received</th>
            </tr>
          </thead>
          <tbody>
            {props.items.map((m) => (
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
        {props.view.total > props.pageSize ? (
          <p>The newest {props.pageSize} are shown; the mail client pages through all of them.</p>
        ) : null}
      </section>
    </Layout>
  );
}

export const outlookPage = (props: Parameters<typeof OutlookPage>[0]) => <OutlookPage {...props} />;
export const folderListPage = (props: Parameters<typeof FolderListPage>[0]) => <FolderListPage {...props} />;
