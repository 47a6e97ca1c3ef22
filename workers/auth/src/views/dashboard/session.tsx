import { Page } from './layout.tsx';

const LoginForm = (props: { error?: string }) => (
  <Page title="Sign in">
    {props.error ? (
      <p class="error" role="alert">
        {props.error}
      </p>
    ) : null}
    <form method="post" action="/admin/login/">
      <label>
        E-mail <input name="email" type="email" autocomplete="username" required />
      </label>
      <label>
        Password <input name="password" type="password" autocomplete="current-password" required />
      </label>
      <button type="submit">Continue</button>
    </form>
  </Page>
);

const CodeForm = (props: { pendingToken: string; error?: string }) => (
  <Page title="Authenticator code">
    {props.error ? (
      <p class="error" role="alert">
        {props.error}
      </p>
    ) : null}
    <form method="post" action="/admin/verify/">
      <input type="hidden" name="pending_token" value={props.pendingToken} />
      <label>
        6-digit code (or a backup code) <input name="code" inputmode="numeric" autocomplete="one-time-code" required />
      </label>
      <button type="submit">Sign in</button>
    </form>
  </Page>
);

/** The sign-in form (e-mail and password), with an error when there is one. */
export const loginPage = (error?: string) => <LoginForm error={error} />;

/** The second step: the authenticator code for a pending sign-in. */
export const codePage = (pendingToken: string, error?: string) => <CodeForm pendingToken={pendingToken} error={error} />;
