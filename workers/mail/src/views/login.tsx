import { Layout } from './layout.tsx';

/** The sign-in form's two steps: e-mail and password, then the TOTP code. */
export type Step = 'password' | 'code';

export interface LoginProps {
  token: string;
  step: Step;
  error?: string;
  email?: string;
  next: string;
}

function LoginPage(props: LoginProps) {
  return (
    <Layout title="Sign in" bodyClass="login">
      <section class="panel login-panel">
        <h1>Mail assistant</h1>
        <p class="hint">
          {props.step === 'password'
            ? 'Sign in with your back-office account.'
            : 'Enter the 6-digit code from your authenticator app (or a backup code).'}
        </p>
        {props.error ? (
          <p class="error" role="alert">
            {props.error}
          </p>
        ) : null}
        <form method="post" action="/login">
          <input type="hidden" name="csrf_token" value={props.token} />
          <input type="hidden" name="next" value={props.next} />
          {props.step === 'password' ? (
            <>
              <label for="email">E-mail</label>
              <input
                id="email"
                name="email"
                type="email"
                autocomplete="username"
                required
                maxlength={320}
                value={props.email ?? ''}
                autofocus
              />
              <label for="password">Password</label>
              <input id="password" name="password" type="password" autocomplete="current-password" required maxlength={1024} />
            </>
          ) : (
            <>
              <label for="code">Code</label>
              <input
                id="code"
                name="code"
                inputmode="numeric"
                autocomplete="one-time-code"
                required
                maxlength={9}
                pattern="\d{6}|[A-Za-z0-9]{4}-[A-Za-z0-9]{4}"
                autofocus
              />
            </>
          )}
          <button type="submit">{props.step === 'password' ? 'Continue' : 'Sign in'}</button>
        </form>
      </section>
    </Layout>
  );
}

/** The sign-in page as a response body. */
export const loginPage = (props: LoginProps) => <LoginPage {...props} />;
