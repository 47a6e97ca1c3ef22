import { DASHBOARD_JS } from './dashboard-script.ts';
import { Layout, scriptUrl } from './layout.tsx';

export function DashboardPage(props: { today: string }) {
  return (
    <Layout title="Dashboard">
      <h1>Trainer and jockey statistics</h1>
      <p id="link-token" hidden>
        This link carries an API token; it is used for this page only.{' '}
        <button id="keep-token" type="button">
          Keep me logged in with it
        </button>
      </p>
      <form id="pick">
        <label>
          Date
          <input id="date" type="date" value={props.today} />
        </label>
        <label>
          Meeting
          <select id="meeting" aria-label="Meeting">
            <option value="">Loading…</option>
          </select>
        </label>
      </form>
      <p id="status" class="muted" role="status"></p>
      <section id="results" hidden>
        <h2 id="heading"></h2>
        <p class="muted">As of the day before the meeting. Click a column to sort, a row to chart that person.</p>
        <h2 id="chart-title">IV by price band</h2>
        <div id="chart"></div>
        <h2>Trainers</h2>
        <div class="scroll" role="region" aria-label="Trainers" tabindex={0}>
          <table id="trainers" aria-label="Trainers"></table>
        </div>
        <h2>Jockeys</h2>
        <div class="scroll" role="region" aria-label="Jockeys" tabindex={0}>
          <table id="jockeys" aria-label="Jockeys"></table>
        </div>
      </section>
      <script type="module" src={scriptUrl('/assets/dashboard.js', DASHBOARD_JS)}></script>
    </Layout>
  );
}

/** The dashboard, its date box on the racing day `today`. */
export const dashboardPage = (today: string) => <DashboardPage today={today} />;
