import type { JobView } from '../ai/jobs.ts';

// The pieces the assistant's settings pages (settings.tsx, rules.tsx) share.

/** A form sent back: which one, what the person typed, and what is wrong with it (by field). */
export interface FormState {
  form: string;
  values: Record<string, string>;
  fields: Record<string, string>;
}

export type Flash = { text: string; kind: 'notice' | 'error' };

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="csrf_token" value={token} />;
}

/** The outcome of the last form sent: its message, or (a form sent back) a pointer to the field's own message. */
export function FlashNotes({ flash, form, refused }: { flash?: Flash; form?: FormState; refused: string }) {
  return (
    <>
      {flash ? (
        <p class={`flash ${flash.kind}`} role={flash.kind === 'error' ? 'alert' : 'status'}>
          {flash.text}
        </p>
      ) : null}
      {form && !flash ? (
        <p class="flash error" role="alert">
          {refused}: see the message next to the field below.
        </p>
      ) : null}
    </>
  );
}

/** Background jobs with their progress: `done of total <items>, changed <acted>`. */
export function JobList({ jobs, none, items, acted }: { jobs: JobView[]; none: string; items: string; acted: string }) {
  if (!jobs.length) return <p class="hint">{none}</p>;
  return (
    <ul class="jobs">
      {jobs.map((j) => (
        <li data-job={j.job_id} data-status={j.status}>
          <strong>{j.status}</strong>: {j.done} of {j.total} {items}, {j.changed} {acted}
          {j.error ? ` — ${j.error}` : ''}
        </li>
      ))}
    </ul>
  );
}
