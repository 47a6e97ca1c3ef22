import type { PlanIssue } from '../../engine/types.ts';
import type { WizardSession } from '../../wizard-sessions.ts';
import { Csrf, Flash } from '../layout.tsx';
import { Grid } from '../grid.tsx';
import { type Base, q, WizardPage } from './common.tsx';

export function SchemaImportPage({
  csrf,
  user,
  session,
  hasSaved,
  error,
}: Base & { session: WizardSession; hasSaved: boolean; error?: string }) {
  return (
    <WizardPage title="Schema import" csrf={csrf} user={user} step="SchemaImport" session={session}>
      <h1>Schema import</h1>
      <p>Selected tables: {session.selectedTables.join(', ') || 'none'}.</p>
      <Flash message={error} kind="error" />
      <form method="post" action="/Migration/SchemaImport" enctype="multipart/form-data" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <label for="schemaFile">
          Schema file (JSON mapping document; optional — without one, mappings are suggested from names, types and sampled values)
        </label>
        <input id="schemaFile" name="schemaFile" type="file" accept="application/json,.json" />
        <button type="submit">Import</button>
      </form>
      <form method="post" action="/Migration/SchemaImportUseSaved" class="stack">
        <Csrf token={csrf} />
        <input type="hidden" name="sessionId" value={session.id} />
        <button type="submit" class="secondary" data-use-suggestions>
          {hasSaved ? 'Use the saved schema file' : 'Continue with suggested mappings'}
        </button>
      </form>
    </WizardPage>
  );
}

export function ValidateSchemaPage({ csrf, user, session, issues }: Base & { session: WizardSession; issues: PlanIssue[] }) {
  return (
    <WizardPage title="Validate schema" csrf={csrf} user={user} step="ReviewMappings" session={session}>
      <h1>Schema validation</h1>
      {issues.length === 0 ? (
        <p class="flash info" data-valid="true">
          No problems found.
        </p>
      ) : (
        <Grid
          scroll="Problems"
          data={{ 'data-valid': 'false' }}
          columns={['Level', 'Table', 'Column', 'Problem']}
          rows={issues}
          row={(i) => (
            <tr class={i.level}>
              <td>{i.level}</td>
              <td>{i.table}</td>
              <td>{i.column ?? ''}</td>
              <td>{i.message}</td>
            </tr>
          )}
        />
      )}
      <p>
        <a href={`/Migration/ReviewMappings?${q(session.id)}`}>Back to the mappings</a>
      </p>
    </WizardPage>
  );
}
