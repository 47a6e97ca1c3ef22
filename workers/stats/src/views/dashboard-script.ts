import { ASSET_VERSION } from '../asset-version.ts';

// The dashboard's browser module (served as /assets/dashboard.js): picks a meeting, loads
// /meetingStats, renders sortable tables and the IV-by-price-band chart with uPlot. Its URLs are
// relative to the module or under the page's base path, so it works under a path prefix too.
export const DASHBOARD_JS = String.raw`
import uPlot from './uplot-${ASSET_VERSION.uplot}.esm.js';

const $ = (id) => document.getElementById(id);
const BASE = document.querySelector('meta[name="base-path"]')?.content ?? '';
const params = new URLSearchParams(location.search);
// A token in the link (?token= / ?sso_token=) is used for this page only and taken out of the
// address; it is stored only when the user asks for it. A crafted link cannot plant a token.
const fromUrl = params.get('token') || params.get('sso_token') || '';
if (fromUrl) {
  params.delete('token'); params.delete('sso_token');
  history.replaceState(null, '', location.pathname + (params.size ? '?' + params : ''));
  $('link-token').hidden = false;
  $('keep-token').addEventListener('click', () => {
    localStorage.setItem('statsToken', fromUrl);
    $('link-token').hidden = true;
  });
}
$('pick').addEventListener('submit', (event) => event.preventDefault());
const token = () => fromUrl || localStorage.getItem('statsToken') || '';
const esc = (v) => String(v ?? '').replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);

async function api(path) {
  const res = await fetch(BASE + path, { headers: { Authorization: 'Bearer ' + token() } });
  const body = await res.json().catch(() => ({}));
  if (res.status === 401) { $('status').innerHTML = 'Not logged in: <a href="' + esc(BASE) + '/login?direct=1">log in</a>.'; throw new Error('unauthorised'); }
  if (!res.ok) throw new Error(typeof body.detail === 'string' ? body.detail : 'HTTP ' + res.status);
  return body;
}

// [heading, value, direction of the first click on the heading: 1 ascending, -1 descending]
const COLUMNS = [
  ['Name', (r) => r.name, 1],
  ['Starts', (r) => r.performance_365d.starts, -1],
  ['Wins', (r) => r.performance_365d.wins, -1],
  ['Win %', (r) => r.performance_365d.win_pct, -1],
  ['Wins 30d', (r) => r.wins_30d, -1],
  ['Wins/meeting', (r) => r.avg_per_meeting, -1],
  ['Avg pos', (r) => r.avg_finishing_pos, -1],
  ['Last win', (r) => r.last_win_date, 1],
  ['Top horse', (r) => (r.top_horses[0] ? r.top_horses[0].name + ' (' + r.top_horses[0].win_pct + '%)' : ''), -1],
];

const state = { trainers: [], jockeys: [], sort: { trainers: [2, -1], jockeys: [2, -1] }, selected: null };

function renderTable(kind) {
  const table = $(kind);
  const [col, dir] = state.sort[kind];
  const get = COLUMNS[col][1];
  const rows = [...state[kind]].sort((a, b) => {
    const x = get(a), y = get(b);
    if (x === y) return a.name.localeCompare(b.name);
    if (x === null || x === undefined || x === '') return 1;
    if (y === null || y === undefined || y === '') return -1;
    return (x < y ? -1 : 1) * dir;
  });
  const head = '<thead><tr>' + COLUMNS.map((c, i) =>
    '<th scope="col" data-col="' + i + '"' + (i === col ? ' aria-sort="' + (dir > 0 ? 'ascending' : 'descending') + '"' : '') + '>' + c[0] + '</th>').join('') + '</tr></thead>';
  const body = '<tbody>' + rows.map((r) => '<tr data-id="' + r.id + '"' + (state.selected && state.selected.kind === kind && state.selected.id === r.id ? ' class="selected"' : '') + '>' +
    COLUMNS.map((c) => '<td>' + esc(c[1](r)) + '</td>').join('') + '</tr>').join('') + '</tbody>';
  table.innerHTML = head + body;
}

function renderAll() {
  renderTable('trainers'); renderTable('jockeys'); renderChart();
}

// One listener per table: a heading click sorts, a row click picks whose IVs the chart shows.
for (const kind of ['trainers', 'jockeys']) {
  $(kind).addEventListener('click', (event) => {
    const th = event.target.closest('th[data-col]');
    if (th) {
      const i = Number(th.dataset.col);
      state.sort[kind] = [i, state.sort[kind][0] === i ? -state.sort[kind][1] : COLUMNS[i][2]];
      renderTable(kind);
      return;
    }
    const tr = event.target.closest('tbody tr');
    if (tr) {
      state.selected = { kind, id: Number(tr.dataset.id) };
      renderAll();
    }
  });
}

let plot;
function renderChart() {
  const sel = state.selected;
  const person = sel && state[sel.kind].find((r) => r.id === sel.id);
  const box = $('chart');
  if (plot) { plot.destroy(); plot = undefined; }
  if (!person) { box.textContent = 'No runners to chart.'; return; }
  box.textContent = '';
  $('chart-title').textContent = 'IV by price band: ' + person.name + ' (' + sel.kind.slice(0, -1) + ')';
  const bands = person.price_band_ivs.map((b) => b.band);
  const xs = bands.map((_, i) => i);
  const ivs = person.price_band_ivs.map((b) => b.iv);
  const width = Math.max(280, Math.min(box.clientWidth - 16, 900));
  plot = new uPlot({
    width, height: 260,
    scales: { x: { time: false, range: [-0.6, bands.length - 0.4] }, y: { range: (u, min, max) => [0, Math.max(2, (max || 0) * 1.15)] } },
    axes: [
      { values: (u, splits) => splits.map((v) => bands[v] ?? ''), splits: () => xs, gap: 4 },
      { label: 'IV (1 = baseline)' },
    ],
    series: [
      {},
      { label: 'IV', stroke: '#1f5fbf', fill: 'rgba(31,95,191,0.35)', width: 1, paths: uPlot.paths.bars({ size: [0.6, 80] }), points: { show: false } },
      { label: 'baseline', stroke: '#c33', width: 1, dash: [4, 4], points: { show: false } },
    ],
  }, [xs, ivs, xs.map(() => 1)], box);
}

// Only the newest answer fills the meeting list: an older request finishing late must not overwrite it.
let meetingsAsked = 0;

async function loadMeetings() {
  const date = $('date').value;
  const asked = ++meetingsAsked;
  $('status').textContent = 'Loading meetings…';
  const list = await api('/meetings?date=' + encodeURIComponent(date));
  if (asked !== meetingsAsked) return;
  const select = $('meeting');
  select.innerHTML = '<option value="">' + (list.length ? 'Pick a meeting (' + list.length + ')' : 'No meetings on this date') + '</option>' +
    list.map((m) => '<option value="' + m.course_id + '">' + esc(m.course) + ' · ' + m.races + ' races</option>').join('');
  select.setAttribute('data-loaded-for', date);
  $('status').textContent = '';
}

async function loadStats() {
  const courseId = $('meeting').value;
  if (!courseId) return;
  $('status').textContent = 'Loading statistics…';
  const stats = await api('/meetingStats?date=' + encodeURIComponent($('date').value) + '&courseId=' + courseId);
  state.trainers = stats.trainers; state.jockeys = stats.jockeys;
  const first = state.trainers[0] || state.jockeys[0];
  state.selected = first ? { kind: state.trainers[0] ? 'trainers' : 'jockeys', id: first.id } : null;
  $('heading').textContent = stats.meeting.course + ', ' + stats.meeting.date;
  $('results').hidden = false;
  renderAll();
  $('status').textContent = '';
}

const fail = (err) => { if (err.message !== 'unauthorised') $('status').textContent = err.message; };
$('date').addEventListener('change', () => loadMeetings().catch(fail));
$('meeting').addEventListener('change', () => loadStats().catch(fail));
loadMeetings().catch(fail);
`;
