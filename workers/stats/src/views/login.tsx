import { Layout, scriptUrl } from './layout.tsx';

/**
 * The login form's browser code, served as /assets/login.js (the page policy allows no inline
 * script). Its URLs are under the page's base path, so it works under a path prefix too.
 */
export const LOGIN_JS = `
const BASE = document.querySelector('meta[name="base-path"]')?.content ?? '';
document.getElementById('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const res = await fetch(BASE + '/login', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: form.get('username'), password: form.get('password') }) });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) { document.getElementById('status').textContent = typeof body.detail === 'string' ? body.detail : 'Login failed'; return; }
  localStorage.setItem('statsToken', body.access_token);
  location.href = BASE + '/';
});`;

export function LoginPage() {
  return (
    <Layout title="Log in">
      <h1>Log in</h1>
      <form id="login">
        <label>
          Username
          <input name="username" autocomplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <div>
          <button type="submit">Log in</button>
        </div>
        <p id="status" class="error" role="alert"></p>
      </form>
      <script src={scriptUrl('/assets/login.js', LOGIN_JS)}></script>
    </Layout>
  );
}

/** The login page. */
export const loginPage = () => <LoginPage />;
