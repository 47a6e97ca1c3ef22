import { PRICE_BANDS } from '../schemas.ts';
import { Layout } from './layout.tsx';

const ROUTES: [string, string, string][] = [
  [
    'GET',
    '/meetings?date=',
    'Race meetings with runners on the date (default today in the racing timezone): [{date, course, course_id, races, runners}].',
  ],
  [
    'GET',
    '/meeting-participants?date=&courseId=',
    '{meeting, trainers, jockeys}: the people of non-scratched runners, records with zero values (nothing is calculated).',
  ],
  ['GET', '/trainer-stats?date=&courseId= (or &courseName=)', 'Bare array of trainer records, always from the racing database.'],
  ['GET', '/jockey-stats?date=&courseId= (or &courseName=)', 'Bare array of jockey records, always from the racing database.'],
  [
    'GET',
    '/trainerStats?date=&courseId=',
    '{status: "success", meeting: {date, course, courseId}, trainers}: external API when enabled, else local. Records the caller’s meeting.',
  ],
  ['GET', '/jockeyStats?date=&courseId=', 'Same wrapper with jockeys.'],
  ['GET', '/meetingStats?date=&courseId=', 'Same wrapper with trainers and jockeys.'],
  ['GET', '/api/user-context', '{date, course_id} last requested by this address through a camelCase endpoint within 5 minutes, else {}.'],
  ['POST', '/save-stats', 'Body {date, course_id, trainer_stats, jockey_stats} (records validated); the latest save of a meeting wins.'],
  ['GET', '/saved-stats?date=&courseId=', 'The saved payload, or {"status": "not_found"}.'],
  ['POST', '/login', '{username, password} (JSON or form) → {access_token, token_type: "bearer"}. No token needed.'],
  ['GET', '/login', 'Login page; redirects to the single-sign-on portal when the referer is that portal and there is no direct parameter.'],
  ['POST', '/api/logout', '{sessionId} forwarded to the authentication service → {status: "success"}.'],
  ['GET', '/health', '{status: "ok"}.'],
];

export function ApiDocsPage() {
  return (
    <Layout title="Reference">
      <h1>Meeting statistics API 2.0.0</h1>
      <p>
        Every data route needs the static token: <code>Authorization: Bearer TOKEN</code>, or the query parameter <code>token</code>, or{' '}
        <code>sso_token</code> (looked for in that order). Errors have FastAPI’s shape: <code>{'{"detail": "…"}'}</code>, and 422{' '}
        <code>{'{"detail": [{"type", "loc", "msg"}]}'}</code> for invalid parameters or bodies. The generated OpenAPI document is at{' '}
        <a href="/openapi.json">/openapi.json</a> (<a href="/docs">Swagger UI</a>, <a href="/redoc">ReDoc</a>).
      </p>
      <h2>Routes</h2>
      <div class="scroll" role="region" aria-label="Routes" tabindex={0}>
        <table>
          <tbody>
            {ROUTES.map(([method, path, what]) => (
              <tr>
                <td>
                  <code>{method}</code>
                </td>
                <td style="text-align:left">
                  <code>{path}</code>
                </td>
                <td style="text-align:left;white-space:normal">{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2 id="rules">Calculation rules</h2>
      <ul>
        <li>
          Everything is computed as of the day before the meeting (D−1): the meeting’s own results never count. Barrier trials and scratched
          runners never count. A <em>start</em> is a runner that ran (not scratched, with a finishing position) at a race meeting.
        </li>
        <li>
          <code>performance_365d</code>: wins, starts and win% over [D−365, D−1]. <code>wins_30d</code>: wins over [D−30, D−1]. Percentages
          are 0–100 with two decimals (half up).
        </li>
        <li>
          Rounding: every rounded figure (percentages, <code>iv</code>, <code>avg_per_meeting</code>, <code>avg_finishing_pos</code>) is the
          exact ratio of the counts it is made of, rounded half up to two decimals, with no rounding on the way: <code>iv</code> = (wins ×
          baseline starts) ÷ (starts × baseline wins), so 1.875 is 1.88 and 0.575 is 0.58.
        </li>
        <li>Dead heats count as wins: every runner placed first is a winner.</li>
        <li>
          <code>last_win_date</code>: the latest date with a win before D (any earlier date, not only the 365-day window); null when there
          is none.
        </li>
        <li>
          <code>avg_finishing_pos</code>: mean finishing position over the starts in the 365-day window (null without starts).{' '}
          <code>avg_per_meeting</code>: wins ÷ distinct meetings with a start in that window (0 without any).
        </li>
        <li>
          Places follow TAB terms by the race’s starters: 8 or more pay 3 places, 5–7 pay 2, 4 or fewer none; a win is always a place.
        </li>
        <li>
          Price bands by starting price (decimal odds), half-open intervals: {PRICE_BANDS.join(', ')} (that is (−, 2.00], (2.00, 3.50],
          (3.50, 6.00], (6.00, 11.00], (11.00, 21.00], above 21.00). Every record lists all six bands in that order.
        </li>
        <li>
          <code>baseline_wps</code>: every start in the band over the same window across the whole database. <code>iv</code> = the person’s
          win% in the band ÷ the baseline win% in the band, two decimals; null when the person has no start in the band or the baseline has
          no win.
        </li>
        <li>
          <code>top_horses</code>: the person’s horses with at least 3 starts in the 365-day window, by win% (then wins, then name), at most
          5.
        </li>
        <li>
          Jockey records use the same keys as trainer records: <code>trainer_wps</code> holds the jockey’s own WPS in the band, so one
          record schema serves both arrays (and <code>/save-stats</code> validates both with it).
        </li>
        <li>
          Meeting participants are the trainers and jockeys of the meeting’s non-scratched runners (a rider not yet named is left out).
        </li>
      </ul>
    </Layout>
  );
}

/** The API's guide. */
export const apiDocsPage = () => <ApiDocsPage />;
