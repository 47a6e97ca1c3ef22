// What the import pages share: the foreign-key choices, the filter input, the sheet's columns.

import type { SessionUser } from '../../context.ts';
import type { FkChoice, ImportAreaDef } from '../../imports/areas.ts';
import { Grid } from '../grid.tsx';
import { asset } from '../layout.tsx';

export const when = (ms: number | null) => (ms === null ? '—' : `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`);
export const canWrite = (user: SessionUser) => user.role !== 'Viewer';
export const ImportScript = () => <script src={asset('/static/imports.js')} defer />;
/** Rows the preview page lists (all rows with problems are counted; the first are listed too). */
export const PREVIEW_ROWS = 200;
export const PREVIEW_PROBLEM_ROWS = 500;

/** Why the last request was refused (an unusable sheet, a setting out of range), cut to a length a page can show. */
export const ImportError = ({ message }: { message?: string }) =>
  message ? (
    <p class="field-error" role="alert" data-error>
      {message.slice(0, 700)}
    </p>
  ) : null;

export type Base = { csrf: string; user: SessionUser; def: ImportAreaDef };

export function FkSelects({ def, fk }: { def: ImportAreaDef; fk: Record<string, string> }) {
  return (
    <fieldset>
      <legend>Foreign keys: how each reference finds its racing-database row</legend>
      {def.fk.map((f: FkChoice) => (
        <label>
          {f.label}{' '}
          <select name={`fk.${f.key}`}>
            {f.options.map((o) => (
              <option value={o.value} selected={(fk[f.key] ?? def.defaultFk[f.key]) === o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      ))}
    </fieldset>
  );
}

export function FilterInput({ def, value, tempPath }: { def: ImportAreaDef; value: string; tempPath?: string }) {
  return (
    <fieldset data-filter-box data-prefix={def.prefix} data-temp-path={tempPath ?? ''}>
      <legend>Filter (optional): which rows to import</legend>
      <input
        type="text"
        name="filter"
        value={value}
        maxlength={2000}
        size={60}
        placeholder="date >= '2026-11-01' and course = 'Randwick'"
        data-filter
      />
      <button type="button" data-test-filter>
        Test filter
      </button>{' '}
      <span data-filter-result aria-live="polite"></span>
      <p class="muted">
        Columns: {def.columns.map((c) => c.key).join(', ')}. Operators: = != &lt; &lt;= &gt; &gt;= in (…) like between … and … is [not]
        null, and, or, not. Text compares without case; dates as YYYY-MM-DD.
      </p>
    </fieldset>
  );
}

export function Columns({ def }: { def: ImportAreaDef }) {
  return (
    <Grid
      data={{ 'data-columns': true }}
      columns={['Heading', 'Also accepted', 'Required', 'Value']}
      rows={def.columns}
      row={(c) => (
        <tr>
          <td>{c.heading}</td>
          <td>{c.aliases.join(', ')}</td>
          <td>{c.required ? 'yes' : 'no'}</td>
          <td>{c.help}</td>
        </tr>
      )}
    />
  );
}
