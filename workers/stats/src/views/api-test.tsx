import { Layout, scriptUrl } from './layout.tsx';

const ENDPOINTS = [
  'GET /meetings?date=',
  'GET /meeting-participants?date=&courseId=',
  'GET /trainer-stats?date=&courseId=',
  'GET /jockey-stats?date=&courseName=',
  'GET /trainerStats?date=&courseId=',
  'GET /jockeyStats?date=&courseId=',
  'GET /meetingStats?date=&courseId=',
  'GET /api/user-context',
  'GET /saved-stats?date=&courseId=',
  'POST /save-stats',
  'GET /health',
];

/**
 * The tester's browser code, served as /assets/api-test.js (the page policy allows no inline
 * script). The path typed is the service's own (as listed): under a path prefix it is sent under it.
 */
export const API_TEST_JS = `
const $ = (id) => document.getElementById(id);
const BASE = document.querySelector('meta[name="base-path"]')?.content ?? '';
$('token').value = localStorage.getItem('statsToken') || '';
$('preset').addEventListener('change', () => {
  const [method, path] = $('preset').value.split(' ');
  $('method').value = method; $('path').value = path;
});
$('send').addEventListener('click', async () => {
  const headers = {};
  if ($('token').value) headers.Authorization = 'Bearer ' + $('token').value;
  const init = { method: $('method').value, headers };
  if (init.method === 'POST') { headers['Content-Type'] = 'application/json'; init.body = $('body').value; }
  const started = performance.now();
  try {
    const res = await fetch(BASE + $('path').value, init);
    const text = await res.text();
    let shown = text;
    try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch {}
    $('result').textContent = res.status + ' ' + res.statusText + ' · ' + Math.round(performance.now() - started) + ' ms\\n\\n' + shown;
  } catch (err) { $('result').textContent = String(err); }
});`;

export function ApiTestPage() {
  return (
    <Layout title="API tester">
      <h1>API tester</h1>
      <label>
        Endpoint
        <select id="preset">
          <option value="">Pick…</option>
          {ENDPOINTS.map((e) => (
            <option value={e}>{e}</option>
          ))}
        </select>
      </label>
      <label>
        Method
        <select id="method">
          <option>GET</option>
          <option>POST</option>
        </select>
      </label>
      <label style="flex:1;min-width:16rem">
        Path and query
        <input id="path" value="/health" size={50} />
      </label>
      <label>
        Token
        <input id="token" type="password" autocomplete="off" />
      </label>
      <label style="display:flex">
        JSON body (POST)
        <textarea id="body" rows={5} cols={60}>
          {'{"date": "2026-01-01", "course_id": 1, "trainer_stats": [], "jockey_stats": []}'}
        </textarea>
      </label>
      <p>
        <button id="send" type="button">
          Send
        </button>
      </p>
      <pre id="result" aria-live="polite"></pre>
      <script src={scriptUrl('/assets/api-test.js', API_TEST_JS)}></script>
    </Layout>
  );
}

/** The page that tries the API. */
export const apiTestPage = () => <ApiTestPage />;
