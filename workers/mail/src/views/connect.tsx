import type { SessionUser } from '../context.ts';
import type { MailboxStatus } from '../mailbox/tokens.ts';
import { Layout } from './layout.tsx';

export interface ConnectProps {
  user: SessionUser;
  csrfToken: string;
  status: MailboxStatus;
  /** The notice after a connection. */
  flash?: string;
  /** Connected, but something about it failed. */
  warning?: string;
}

/** The Mailbox page: the connection's state and the buttons that connect or disconnect it. */
function ConnectPage(props: ConnectProps) {
  return (
    <Layout title="Mailbox" user={props.user} csrfToken={props.csrfToken}>
      <section class="panel">
        <h1>Mailbox</h1>
        {props.flash ? (
          <p class="notice" role="status">
            {props.flash}
          </p>
        ) : null}
        {props.warning ? (
          <p class="error" role="alert">
            {props.warning}
          </p>
        ) : null}
        {props.status.connected ? (
          <p>
            Connected to <strong>{props.status.account?.displayName}</strong> &lt;{props.status.account?.mail}&gt;.
          </p>
        ) : (
          <p>Your mailbox is not connected. Connecting asks Microsoft for access to read, organise and send this mailbox's mail.</p>
        )}
        <form method="post" action="/connect">
          <input type="hidden" name="csrf_token" value={props.csrfToken} />
          <button type="submit">{props.status.connected ? 'Connect again' : 'Connect mailbox'}</button>
        </form>
        {props.status.connected ? (
          <form method="post" action="/disconnect">
            <input type="hidden" name="csrf_token" value={props.csrfToken} />
            <button type="submit" class="secondary">
              Disconnect
            </button>
          </form>
        ) : null}
      </section>
    </Layout>
  );
}

export const connectPage = (props: ConnectProps) => <ConnectPage {...props} />;
