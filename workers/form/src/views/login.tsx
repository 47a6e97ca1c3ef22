import { Layout } from './layout.tsx';

export function LoginPage({ token, error, username = '' }: { token: string; error?: string; username?: string }) {
  return (
    <Layout title="Log in">
      <section class="login">
        <h1>Runner form</h1>
        {error ? (
          <p class="alert" role="alert">
            {error}
          </p>
        ) : null}
        <form method="post" action="/form/">
          <input type="hidden" name="csrf_token" value={token} />
          <label for="username">Username</label>
          <input id="username" name="username" autocomplete="username" required maxlength={200} value={username} autofocus />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required maxlength={200} />
          <button type="submit">Log in</button>
        </form>
      </section>
    </Layout>
  );
}

/** The login page, with its form token (and what went wrong, and the name typed, when it is shown again). */
export const loginPage = (props: Parameters<typeof LoginPage>[0]) => <LoginPage {...props} />;
