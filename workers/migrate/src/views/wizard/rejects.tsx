import { Grid } from '../grid.tsx';
import { q } from './common.tsx';

/** Results: the rows the run set aside, per table, each with its download (null: the destination could not be read). */
export function RejectSummary({ sessionId, rejects }: { sessionId: string; rejects: { table: string; rejected: number }[] | null }) {
  if (rejects === null) {
    return (
      <section data-rejects="unknown">
        <h2>Rows set aside</h2>
        <p>The destination could not be read just now: reload the page to see the rows the run set aside.</p>
      </section>
    );
  }
  const total = rejects.reduce((n, r) => n + r.rejected, 0);
  const csv = (table?: string) => `/Migration/Rejects.csv?${q(sessionId)}${table ? `&table=${encodeURIComponent(table)}` : ''}`;
  return (
    <section data-rejects={String(total)}>
      <h2>Rows set aside</h2>
      {total === 0 ? (
        <p>No row was set aside: every source row read was copied, matched or skipped.</p>
      ) : (
        <>
          <p>
            {total} source rows were not copied: their cast or a constraint failed, so each chunk committed without them. Validation counts
            them as differences. Correct them in the source (or the mapping) and run again; a new run copies them once they pass.
          </p>
          <Grid
            scroll="Rows set aside by table"
            columns={['Table', 'Rows set aside', 'Download']}
            rows={rejects}
            row={(r) => (
              <tr data-table={r.table} data-rejected={String(r.rejected)}>
                <td>{r.table}</td>
                <td>{r.rejected}</td>
                <td>
                  <a href={csv(r.table)} download>
                    CSV of {r.table}
                  </a>
                </td>
              </tr>
            )}
          />
          <p>
            <a href={csv()} download>
              Download every row set aside (CSV)
            </a>
          </p>
        </>
      )}
    </section>
  );
}
