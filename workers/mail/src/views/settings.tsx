import type { Child } from 'hono/jsx';
import type { JobView } from '../ai/jobs.ts';
import type { SessionUser } from '../context.ts';
import type { CategoryView } from '../data/categories.ts';
import type { PromptView } from '../data/prompts.ts';
import type { AssistantUser } from '../data/users.ts';
import { FollowUpPanel } from './follow-up.tsx';
import { Layout } from './layout.tsx';
import { Csrf, type Flash, FlashNotes, type FormState, JobList } from './settings-parts.tsx';

export const REPLY_MODES = [
  { value: 'manual', label: 'Manual: a reply draft when I ask for one' },
  { value: 'draft', label: 'Draft: new mail gets a reply draft at once' },
  { value: 'no_reply', label: 'No reply: never draft a reply' },
] as const;

export type { FormState };

export interface SettingsView {
  user: SessionUser;
  csrfToken: string;
  flash?: Flash;
  /** After a category or rule changed: offer the re-categorisation of recent mail. */
  offerRecategorise: boolean;
  mailboxConnected: boolean;
  categories: (CategoryView & { prompt: PromptView })[];
  prompts: PromptView[];
  jobs: JobView[];
  /** For the assistant's admins only: who may use it. */
  users?: { admins: string[]; listed: AssistantUser[] };
  form?: FormState;
  /** The follow-up reminder setting (views/follow-up.tsx), as saved or as typed with its problem. */
  followUp?: { days: string; problem?: string };
}

const PROMPT_TITLES: Record<string, string> = {
  summarise: 'Summaries',
  classify: 'Categorising',
  extract: 'Extracting facts',
  reply: 'Reply drafts (general)',
  thread: 'Conversation summaries',
};

/** A labelled field with its error beside it (tied to it for screen readers). */
function Field(props: {
  id: string;
  label: string;
  name: string;
  value: string;
  error?: string;
  kind?: 'input' | 'textarea' | 'email';
  rows?: number;
  maxlength: number;
  required?: boolean;
  hint?: string;
}) {
  const describedBy = [props.error ? `${props.id}-error` : '', props.hint ? `${props.id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id: props.id,
    name: props.name,
    maxlength: props.maxlength,
    required: props.required,
    'aria-invalid': props.error ? 'true' : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div class={`field${props.error ? ' invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.kind === 'textarea' ? (
        <textarea {...common} rows={props.rows ?? 4}>
          {props.value}
        </textarea>
      ) : (
        <input {...common} type={props.kind === 'email' ? 'email' : 'text'} value={props.value} />
      )}
      {props.error ? (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

function ReplyModeField({ id, value, error }: { id: string; value: string; error?: string }) {
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={id}>Replies</label>
      <select id={id} name="reply_mode" aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        {REPLY_MODES.map((m) => (
          <option value={m.value} selected={m.value === value}>
            {m.label}
          </option>
        ))}
      </select>
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The form's own values and errors when it is the one sent back, else the stored values. */
function stateFor(view: SettingsView, form: string, stored: Record<string, string>) {
  const mine = view.form?.form === form ? view.form : undefined;
  return { values: mine ? { ...stored, ...mine.values } : stored, errors: mine?.fields ?? {} };
}

/** A category's name, rule and reply mode: the new category's form (with hints) and each category's own. */
function CategoryFields({ id, state, hints }: { id: string; state: ReturnType<typeof stateFor>; hints?: boolean }) {
  const { values, errors } = state;
  return (
    <>
      <Field
        id={`${id}-name`}
        label="Name"
        name="name"
        value={values.name!}
        error={errors.name}
        maxlength={64}
        required
        hint={hints ? "Letters, digits, spaces, _ & ' - (at most 64)." : undefined}
      />
      <Field
        id={`${id}-rule`}
        label="Rule"
        name="rule"
        value={values.rule!}
        error={errors.rule}
        kind="textarea"
        maxlength={4000}
        hint={hints ? 'In plain language: which e-mails belong here.' : undefined}
      />
      <ReplyModeField id={`${id}-mode`} value={values.reply_mode!} error={errors.reply_mode} />
    </>
  );
}

/** A form of one button that posts `name` = `value` (and the anti-forgery token) to `action`. */
function ButtonForm(props: { action: string; csrfToken: string; name: string; value: string; class: string; children: Child }) {
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrfToken} />
      <input type="hidden" name={props.name} value={props.value} />
      <button type="submit" class={props.class}>
        {props.children}
      </button>
    </form>
  );
}

/**
 * A prompt's text, saved through /settings/prompts: a category's reply prompt (`field` "category")
 * or a task's prompt (`field` "prompt"), as typed with its problem when it is the form sent back.
 */
function PromptForm(props: {
  view: SettingsView;
  prompt: PromptView;
  field: 'category' | 'prompt';
  value: string;
  id: string;
  label: string;
  dataForm?: string;
  children: Child;
}) {
  const { values, errors } = stateFor(props.view, `prompt:${props.prompt.name}`, { body: props.prompt.body });
  return (
    <form method="post" action="/settings/prompts" data-form={props.dataForm}>
      <Csrf token={props.view.csrfToken} />
      <input type="hidden" name={props.field} value={props.value} />
      <Field
        id={props.id}
        label={props.label}
        name="body"
        value={values.body!}
        error={errors.body}
        kind="textarea"
        rows={5}
        maxlength={20000}
        required
      />
      {props.children}
    </form>
  );
}

function RecategoriseForm({ view }: { view: SettingsView }) {
  return (
    <form method="post" action="/settings/recategorise" class="recategorise">
      <Csrf token={view.csrfToken} />
      <button type="submit">Re-categorise recent mail</button>
    </form>
  );
}

function NewCategory({ view }: { view: SettingsView }) {
  const state = stateFor(view, 'create', { name: '', rule: '', reply_mode: 'manual' });
  return (
    <form method="post" action="/settings/categories" class="card" data-form="create" aria-labelledby="new-category">
      <h3 id="new-category">New category</h3>
      <Csrf token={view.csrfToken} />
      <CategoryFields id="new" state={state} hints />
      <button type="submit">Create category</button>
    </form>
  );
}

function CategoryCard({ view, category, index }: { view: SettingsView; category: SettingsView['categories'][number]; index: number }) {
  const id = `cat-${index}`;
  const edit = stateFor(view, `update:${category.name}`, { name: category.name, rule: category.rule, reply_mode: category.reply_mode });
  return (
    <section class="card" data-category={category.name} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        {category.name} <span class="count">({category.emails} e-mails)</span>
      </h3>
      <form method="post" action="/settings/categories/update" data-form="update">
        <Csrf token={view.csrfToken} />
        <input type="hidden" name="category" value={category.name} />
        <CategoryFields id={id} state={edit} />
        <button type="submit">Save {category.name}</button>
      </form>
      <PromptForm
        view={view}
        prompt={category.prompt}
        field="category"
        value={category.name}
        id={`${id}-prompt`}
        label={`Reply prompt${category.prompt.custom ? ' (changed)' : ' (default)'}`}
        dataForm="category-prompt"
      >
        <div class="buttons">
          <button type="submit">Save reply prompt</button>
        </div>
      </PromptForm>
      <div class="buttons">
        {category.prompt.custom ? (
          <ButtonForm action="/settings/prompts/reset" csrfToken={view.csrfToken} name="category" value={category.name} class="secondary">
            Reset reply prompt of {category.name}
          </ButtonForm>
        ) : null}
        <ButtonForm action="/settings/categories/delete" csrfToken={view.csrfToken} name="category" value={category.name} class="danger">
          Delete {category.name}
        </ButtonForm>
      </div>
    </section>
  );
}

function PromptCard({ view, prompt, index }: { view: SettingsView; prompt: PromptView; index: number }) {
  const id = `prompt-${index}`;
  return (
    <section class="card" data-prompt={prompt.name} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        {PROMPT_TITLES[prompt.name] ?? prompt.name} <span class="count">({prompt.custom ? 'changed' : 'default'})</span>
      </h3>
      <PromptForm view={view} prompt={prompt} field="prompt" value={prompt.name} id={id} label={`Prompt “${prompt.name}”`}>
        <button type="submit">Save prompt</button>
      </PromptForm>
      {prompt.custom ? (
        <ButtonForm action="/settings/prompts/reset" csrfToken={view.csrfToken} name="prompt" value={prompt.name} class="secondary">
          Reset “{prompt.name}” to the default
        </ButtonForm>
      ) : null}
    </section>
  );
}

function Users({ view, users }: { view: SettingsView; users: NonNullable<SettingsView['users']> }) {
  const add = stateFor(view, 'add-user', { email: '', name: '' });
  const removeError = view.form?.form === 'remove-user' ? view.form : undefined;
  return (
    <section class="panel" aria-labelledby="users-title" data-section="users">
      <h2 id="users-title">Who may use the assistant</h2>
      <p class="hint">
        Admins come from the MAIL_ASSISTANT_ADMINS setting and are changed there. Removing an account ends its use of the assistant at once
        and cancels its running re-categorisations; it stays signed in to the mail client, and its categories, prompts and summaries are
        kept.
      </p>
      <ul class="users">
        {users.admins.map((email) => (
          <li data-user={email}>
            <span class="address">{email}</span> <span class="badge">admin</span>
          </li>
        ))}
        {users.listed.map((u) => (
          <li data-user={u.email}>
            <span class="address">{u.email}</span>
            {u.name ? ` (${u.name})` : ''}
            <ButtonForm action="/settings/users/remove" csrfToken={view.csrfToken} name="email" value={u.email} class="danger">
              Remove {u.email}
            </ButtonForm>
            {removeError?.values.email === u.email ? (
              <p class="field-error" role="alert">
                {removeError.fields.email}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      {removeError && !users.listed.some((u) => u.email === removeError.values.email) ? (
        <p class="field-error" role="alert">
          {removeError.fields.email}
        </p>
      ) : null}
      <form method="post" action="/settings/users" class="card" data-form="add-user" aria-labelledby="add-user-title">
        <h3 id="add-user-title">Add an account</h3>
        <Csrf token={view.csrfToken} />
        <Field
          id="user-email"
          label="Sign-in e-mail"
          name="email"
          value={add.values.email!}
          error={add.errors.email}
          kind="email"
          maxlength={320}
          required
        />
        <Field id="user-name" label="Name (optional)" name="name" value={add.values.name!} error={add.errors.name} maxlength={200} />
        <button type="submit">Add account</button>
      </form>
    </section>
  );
}

export function SettingsPage({ view }: { view: SettingsView }) {
  return (
    <Layout title="Assistant settings" user={view.user} csrfToken={view.csrfToken} styles={['/static/mail/settings.css']}>
      <div class="settings" data-shell="settings">
        <section class="panel">
          <h1>Assistant settings</h1>
          <FlashNotes flash={view.flash} form={view.form} refused="Not saved" />
          <div class={`recategorise-box${view.offerRecategorise ? ' offered' : ''}`}>
            <p>
              {view.offerRecategorise ? 'To see the effect of the change on your mail now: ' : ''}
              Re-categorise recent mail: your stored e-mails are classified again by the current rules
              {view.mailboxConnected
                ? ', and the newest Inbox messages not yet summarised are summarised and categorised as new mail is'
                : ' (connect your mailbox to include Inbox messages not yet summarised)'}
              . It runs in the background.
            </p>
            <RecategoriseForm view={view} />
            <JobList jobs={view.jobs} none="No re-categorisation has run yet." items="stored e-mails" acted="changed" />
            <p>
              <a href="/settings">Refresh the progress</a>
            </p>
          </div>
        </section>
        {view.followUp ? <FollowUpPanel days={view.followUp.days} problem={view.followUp.problem} csrfToken={view.csrfToken} /> : null}
        <section class="panel" aria-labelledby="categories-title" data-section="categories">
          <h2 id="categories-title">Categories</h2>
          <p class="hint">
            Each category has a rule the assistant reads to sort mail into it, a reply mode, and a reply prompt for its reply drafts. Mail
            that fits none is “unknown”.
          </p>
          <p>
            <a href="/settings/rules">Rules: what each category does to new mail</a> (move, archive, mark read, flag, Outlook categories,
            forward or reply drafts), tried on recent mail before it is trusted.
          </p>
          <p>
            <a href="/senders">Senders: who fills your Inbox</a>, by volume or by how little of their mail you read, each with one button to
            unsubscribe and archive their mail.
          </p>
          {view.categories.length ? null : <p>No categories yet.</p>}
          {view.categories.map((category, i) => (
            <CategoryCard view={view} category={category} index={i} />
          ))}
          <NewCategory view={view} />
        </section>
        <section class="panel" aria-labelledby="prompts-title" data-section="prompts">
          <h2 id="prompts-title">Prompts</h2>
          <p class="hint">The instructions the model is given for each task. Reset goes back to the default.</p>
          {view.prompts.map((prompt, i) => (
            <PromptCard view={view} prompt={prompt} index={i} />
          ))}
        </section>
        {view.users ? <Users view={view} users={view.users} /> : null}
      </div>
    </Layout>
  );
}

/** The settings page as a response body. */
export const settingsPage = (view: SettingsView) => <SettingsPage view={view} />;
