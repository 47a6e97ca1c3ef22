import type { JobView } from '../ai/jobs.ts';
import { ACTION_TYPES, MAX_ACTIONS, type RuleAction } from '../ai/rule-actions.ts';
import type { RuleTestItem } from '../ai/rules-test.ts';
import type { SessionUser } from '../context.ts';
import type { CategoryRules } from '../data/rules.ts';
import { Layout } from './layout.tsx';
import { Csrf, type Flash, FlashNotes, type FormState, JobList } from './settings-parts.tsx';

export interface RulesView {
  user: SessionUser;
  csrfToken: string;
  flash?: Flash;
  mailboxConnected: boolean;
  rules: CategoryRules[];
  jobs: JobView[];
  /** A test run's answer (the page after "Test the rules"). */
  test?: { folder: string; count: number; items: RuleTestItem[]; traceId: string };
  form?: FormState;
}

/** Rows shown per category: its actions and two empty ones (up to the limit). */
const rowsFor = (actions: RuleAction[]) => Math.min(MAX_ACTIONS, actions.length + 2);

/** The text box of an action row: a folder, category names or addresses. */
function actionValue(action: RuleAction | undefined): string {
  if (!action) return '';
  if (action.type === 'move') return action.folder;
  if (action.type === 'categorize') return action.categories.join(', ');
  if (action.type === 'forward_draft') return action.to.join(', ');
  return '';
}

function ErrorText({ id, text }: { id: string; text?: string }) {
  return text ? (
    <p class="field-error" id={id}>
      {text}
    </p>
  ) : null;
}

function CategoryRulesForm({ view, rules, index }: { view: RulesView; rules: CategoryRules; index: number }) {
  const id = `rules-${index}`;
  const mine = view.form?.form === `rules:${rules.category}` ? view.form : undefined;
  const rows = rowsFor(rules.actions);
  return (
    <form method="post" action="/settings/rules" class="card" data-rules={rules.category} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{rules.category}</h3>
      <p class="hint">
        {rules.reply_mode === 'draft'
          ? 'Its reply mode drafts a reply to new mail first; then these actions run, in order.'
          : 'New mail classified here: these actions run, in order.'}
      </p>
      <Csrf token={view.csrfToken} />
      <input type="hidden" name="category" value={rules.category} />
      {Array.from({ length: rows }, (_, i) => {
        const type = mine ? (mine.values[`type_${i}`] ?? '') : (rules.actions[i]?.type ?? '');
        const value = mine ? (mine.values[`value_${i}`] ?? '') : actionValue(rules.actions[i]);
        const error = mine?.fields[`value_${i}`] ?? mine?.fields[`type_${i}`];
        const errorId = `${id}-${i}-error`;
        return (
          <fieldset class={`field${error ? ' invalid' : ''}`} data-row={i}>
            <legend>Action {i + 1}</legend>
            <label for={`${id}-${i}-type`}>What</label>
            <select
              id={`${id}-${i}-type`}
              name={`type_${i}`}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? errorId : undefined}
            >
              <option value="" selected={type === ''}>
                (none)
              </option>
              {ACTION_TYPES.map((t) => (
                <option value={t.value} selected={t.value === type}>
                  {t.label}
                </option>
              ))}
            </select>
            <label for={`${id}-${i}-value`}>Folder, categories or addresses</label>
            <input
              id={`${id}-${i}-value`}
              name={`value_${i}`}
              type="text"
              value={value}
              maxlength={4000}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? errorId : undefined}
            />
            <ErrorText id={errorId} text={error} />
          </fieldset>
        );
      })}
      <button type="submit">Save the actions of {rules.category}</button>
    </form>
  );
}

function FolderCount({ prefix, view, form, count, max }: { prefix: string; view: RulesView; form: string; count: number; max: number }) {
  const mine = view.form?.form === form ? view.form : undefined;
  // after a test, its form keeps what was tested
  const tested = form === 'test' ? view.test : undefined;
  const folder = mine?.values.folder ?? tested?.folder ?? 'inbox';
  const n = mine?.values.count ?? String(tested?.count ?? count);
  return (
    <>
      <div class={`field${mine?.fields.folder ? ' invalid' : ''}`}>
        <label for={`${prefix}-folder`}>Folder</label>
        <input
          id={`${prefix}-folder`}
          name="folder"
          type="text"
          value={folder}
          maxlength={255}
          required
          aria-invalid={mine?.fields.folder ? 'true' : undefined}
          aria-describedby={mine?.fields.folder ? `${prefix}-folder-error` : undefined}
        />
        <ErrorText id={`${prefix}-folder-error`} text={mine?.fields.folder} />
      </div>
      <div class={`field${mine?.fields.count ? ' invalid' : ''}`}>
        <label for={`${prefix}-count`}>How many of the newest messages (1–{max})</label>
        <input
          id={`${prefix}-count`}
          name="count"
          type="number"
          min={1}
          max={max}
          value={n}
          required
          aria-invalid={mine?.fields.count ? 'true' : undefined}
          aria-describedby={mine?.fields.count ? `${prefix}-count-error` : undefined}
        />
        <ErrorText id={`${prefix}-count-error`} text={mine?.fields.count} />
      </div>
    </>
  );
}

function TestResults({ test }: { test: NonNullable<RulesView['test']> }) {
  return (
    <section class="card" aria-labelledby="test-results-title" data-section="rules-test-results">
      <h3 id="test-results-title">
        What the rules would do to the newest {test.items.length} of “{test.folder}”
      </h3>
      <p class="hint">
        Nothing was changed. <a href={`/trace/${test.traceId}`}>The run’s trace</a>
      </p>
      {test.items.length ? null : <p>The folder has no messages.</p>}
      <ol class="rule-test">
        {test.items.map((item) => (
          <li data-message={item.message_id} data-category={item.category}>
            <strong>{item.subject || '(no subject)'}</strong> — {item.from || '(nobody)'}
            <br />
            Category: <strong>{item.category}</strong>
            {item.reason ? <> — why: {item.reason}</> : null}
            <br />
            {item.actions.length ? `Would: ${item.actions.map((a) => a.description).join('; ')}.` : 'Would: nothing.'}
          </li>
        ))}
      </ol>
    </section>
  );
}

export function RulesPage({ view }: { view: RulesView }) {
  return (
    <Layout title="Rules" user={view.user} csrfToken={view.csrfToken} styles={['/static/mail/settings.css']}>
      <div class="settings" data-shell="rules">
        <section class="panel">
          <h1>Rules</h1>
          <p>
            <a href="/settings">Back to the settings</a>
          </p>
          <FlashNotes flash={view.flash} form={view.form} refused="Not done" />
          <p class="hint">
            When new mail is put in a category, the category’s actions run in order. Each is recorded in the message’s trace, retried when
            Microsoft Graph is busy, and never repeated once done. Nothing is ever sent: a forward or a reply is left in Drafts.
          </p>
        </section>
        <section class="panel" aria-labelledby="rules-categories-title" data-section="rules">
          <h2 id="rules-categories-title">Actions per category</h2>
          <p class="hint">
            Move: the folder’s name. Outlook categories: names, comma-separated (added to your Outlook category list with a colour when
            missing). Forward as a draft: addresses, comma-separated. The other actions need no text.
          </p>
          {view.rules.length ? null : (
            <p>
              No categories yet: <a href="/settings">create one in the settings</a>.
            </p>
          )}
          {view.rules.map((rules, i) => (
            <CategoryRulesForm view={view} rules={rules} index={i} />
          ))}
        </section>
        <section class="panel" aria-labelledby="rules-try-title" data-section="rules-try">
          <h2 id="rules-try-title">Try the rules</h2>
          {view.mailboxConnected ? null : (
            <p class="hint">
              <a href="/connect">Connect your mailbox</a> to test or apply the rules.
            </p>
          )}
          <form method="post" action="/settings/rules/test" class="card" aria-labelledby="rules-test-title">
            <h3 id="rules-test-title">Test</h3>
            <p class="hint">Classifies the newest messages and lists what each would get. Nothing is changed.</p>
            <Csrf token={view.csrfToken} />
            <FolderCount prefix="test" view={view} form="test" count={10} max={25} />
            <button type="submit">Test the rules</button>
          </form>
          {view.test ? <TestResults test={view.test} /> : null}
          <form method="post" action="/settings/rules/apply" class="card" aria-labelledby="rules-apply-title">
            <h3 id="rules-apply-title">Apply to existing mail</h3>
            <p class="hint">Runs the rules on the newest messages in the background, as on new mail.</p>
            <Csrf token={view.csrfToken} />
            <FolderCount prefix="apply" view={view} form="apply" count={50} max={200} />
            <button type="submit">Apply the rules</button>
          </form>
          <JobList jobs={view.jobs} none="The rules have not been applied to existing mail yet." items="messages" acted="acted on" />
          <p>
            <a href="/settings/rules">Refresh the progress</a>
          </p>
        </section>
      </div>
    </Layout>
  );
}

/** The rules page as a response body. */
export const rulesPage = (view: RulesView) => <RulesPage view={view} />;
