// The preview of an uploaded sheet: every row checked before anything is written.

import type { Analysis } from '../../imports/analyse.ts';
import { Grid } from '../grid.tsx';
import { Csrf, Layout } from '../layout.tsx';
import { type Base, FilterInput, FkSelects, ImportScript, PREVIEW_PROBLEM_ROWS, PREVIEW_ROWS } from './common.tsx';

export function ImportPreviewPage({
  csrf,
  user,
  def,
  tempPath,
  fileName,
  analysis,
  fk,
}: Base & { tempPath: string; fileName: string; analysis: Analysis; fk: Record<string, string> }) {
  const page = `/${def.area}`;
  const listed = analysis.records.slice(0, PREVIEW_ROWS);
  const laterProblems = analysis.records
    .slice(PREVIEW_ROWS)
    .filter((r) => r.problems.length)
    .slice(0, PREVIEW_PROBLEM_ROWS);
  return (
    <Layout title={`${def.title}: preview`} csrf={csrf} user={user}>
      <ImportScript />
      <h1>{def.title}: preview</h1>
      <section data-preview data-temp-path={tempPath}>
        <p>
          <strong>{fileName}</strong> ({analysis.format}
          {analysis.sheetName ? `, sheet "${analysis.sheetName}"` : ''}): <span data-rows>{analysis.rows}</span> rows,{' '}
          <strong data-valid>{analysis.valid.length}</strong> to import, <strong data-invalid>{analysis.invalid}</strong> with problems.
          Nothing has been written yet.
        </p>
        {Object.keys(analysis.problemCounts).length ? (
          <ul data-problem-counts>
            {Object.entries(analysis.problemCounts).map(([kind, n]) => (
              <li data-problem-kind={kind}>
                {n} × {kind}
              </li>
            ))}
          </ul>
        ) : null}
        <p class="muted">
          References found:{' '}
          {Object.entries(analysis.fkCounts)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}
          .{analysis.ignored.length ? ` Columns ignored: ${analysis.ignored.join(', ')}.` : ''}
        </p>
        <form method="post" action={`${page}/Start`} data-start-form>
          <Csrf token={csrf} />
          <input type="hidden" name="tempPath" value={tempPath} />
          <FkSelects def={def} fk={fk} />
          <FilterInput def={def} value="" tempPath={tempPath} />
          <button type="submit" data-start>
            Start import
          </button>
        </form>
        <h2>Rows{analysis.records.length > PREVIEW_ROWS ? ` (the first ${PREVIEW_ROWS})` : ''}</h2>
        <Grid
          data={{ 'data-preview-rows': true }}
          columns={['Row', ...def.columns.map((c) => c.heading), 'Problems']}
          rows={listed}
          row={(r) => (
            <tr
              class={r.problems.length ? 'error' : undefined}
              data-line={String(r.line)}
              data-problems={r.problems.map((p) => p.kind).join(',')}
            >
              <td>{r.line}</td>
              {def.columns.map((c) => (
                <td>{r.values[c.key] === null ? '' : String(r.values[c.key])}</td>
              ))}
              <td>{r.problems.map((p) => p.message).join('; ')}</td>
            </tr>
          )}
        />
        {laterProblems.length ? (
          <>
            <h2>Later rows with problems</h2>
            <table class="grid" data-later-problems>
              <tbody>
                {laterProblems.map((r) => (
                  <tr class="error" data-line={String(r.line)} data-problems={r.problems.map((p) => p.kind).join(',')}>
                    <td>{r.line}</td>
                    <td>{def.label(r.values)}</td>
                    <td>{r.problems.map((p) => p.message).join('; ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
        <p>
          <a href={page}>Back</a>
        </p>
      </section>
    </Layout>
  );
}
