import { Csrf, Flash, Layout } from './layout.tsx';

export function LoginPage({ csrf, error, notice, email = '' }: { csrf: string; error?: string; notice?: string; email?: string }) {
  return (
    <Layout title="Sign in" csrf={csrf}>
      <section class="login">
        <h1>Sign in</h1>
        <Flash message={notice} />
        <Flash message={error} kind="error" />
        <form method="post" action="/Account/Login">
          <Csrf token={csrf} />
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" required maxlength={254} value={email} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required maxlength={1024} />
          <button type="submit">Continue</button>
        </form>
      </section>
    </Layout>
  );
}

export function VerifyPage({ csrf, pendingToken, email, error }: { csrf: string; pendingToken: string; email: string; error?: string }) {
  return (
    <Layout title="Verify" csrf={csrf}>
      <section class="login">
        <h1>Two-step verification</h1>
        <p>Enter the 6-digit code from your authenticator app{email ? ` for ${email}` : ''}.</p>
        <Flash message={error} kind="error" />
        <form method="post" action="/Account/Verify">
          <Csrf token={csrf} />
          <input type="hidden" name="pendingToken" value={pendingToken} />
          <input type="hidden" name="email" value={email} />
          <label for="code">Code</label>
          <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength={32} />
          <button type="submit">Verify</button>
        </form>
        <p>
          <a href="/Account/Login">Start again</a>
        </p>
      </section>
    </Layout>
  );
}
