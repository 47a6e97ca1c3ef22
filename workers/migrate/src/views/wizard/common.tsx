import type { Child } from 'hono/jsx';
import type { SessionUser } from '../../context.ts';
import type { ColumnInfo } from '../../engine/types.ts';
import { sessionName, type WizardSession } from '../../wizard-sessions.ts';
import { Layout } from '../layout.tsx';

export type Base = { csrf: string; user: SessionUser };
export const q = (sessionId: string) => `sessionId=${encodeURIComponent(sessionId)}`;

/** The wizard's steps in their one order; every page's bar and Next button follow it. */
export const STEPS = [
  ['TableSelection', 'Tables'],
  ['SchemaImport', 'Schema'],
  ['ReviewMappings', 'Mappings'],
  ['FilterConfig', 'Filters'],
  ['RelationshipConfig', 'Relationships'],
  ['RunConfig', 'Run'],
  ['Progress', 'Progress'],
  ['Results', 'Results'],
] as const;
export type Step = (typeof STEPS)[number][0];

/** Why a step cannot be opened yet (null when it can). */
export function stepBlocked(step: Step, session: WizardSession | null): string | null {
  if (step === 'TableSelection') return null;
  if (!session) return 'select tables first';
  if (step === 'SchemaImport') return session.selectedTables.length ? null : 'select tables first';
  if (step === 'Progress' || step === 'Results') return session.runId ? null : 'no run yet';
  return session.plans.length ? null : 'import the schema first';
}

export function Steps({ current, session }: { current: Step; session: WizardSession | null }) {
  return (
    <nav aria-label="Wizard steps">
      <ol class="steps">
        {STEPS.map(([action, label], i) => {
          const blocked = stepBlocked(action, session);
          const href =
            action === 'TableSelection'
              ? `/Migration/TableSelection${session ? `?${q(session.id)}` : ''}`
              : `/Migration/${action}?${q(session?.id ?? '')}`;
          return (
            <li aria-current={action === current ? 'step' : undefined} data-step={action} data-disabled={blocked ? 'true' : undefined}>
              {blocked ? (
                <span>
                  {i + 1}. {label} <small class="reason">({blocked})</small>
                </span>
              ) : (
                <a href={href}>
                  {i + 1}. {label}
                </a>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

/** A wizard page: the layout, the wizard's stylesheet and script, the step bar and the session's name. */
export function WizardPage({
  title,
  csrf,
  user,
  step,
  session,
  children,
}: Base & { title: string; step: Step; session: WizardSession | null; children?: Child }) {
  return (
    <Layout title={title} csrf={csrf} user={user} styles={['/static/wizard.css']} scripts={['/static/wizard.js']}>
      <Steps current={step} session={session} />
      {session ? (
        <p class="session-name muted" data-session-name>
          {sessionName(session)}
        </p>
      ) : null}
      {children}
    </Layout>
  );
}

export function ColumnSelect({ name, value, columns, label }: { name: string; value: string; columns: ColumnInfo[]; label: string }) {
  return (
    <select name={name} aria-label={label}>
      <option value="">(not copied)</option>
      {columns.map((col) => (
        <option value={col.ColumnName} selected={col.ColumnName === value}>
          {col.ColumnName} ({col.DataType})
        </option>
      ))}
    </select>
  );
}

/** A whole-number setting of the RunConfig step's form: its label, then the input from `min` to `max`. */
export function WholeNumberField({
  label,
  name,
  min,
  max,
  value,
}: {
  label: string;
  name: string;
  min: number;
  max: number;
  value: number;
}) {
  return (
    <label>
      {label}
      <input type="number" name={name} min={String(min)} max={String(max)} step="1" inputmode="numeric" value={String(value)} />
    </label>
  );
}
