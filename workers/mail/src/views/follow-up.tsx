import { MAX_FOLLOW_UP_DAYS } from '../data/replies.ts';

/** The settings page's follow-up panel: how long a sent message waits for an answer before a follow-up draft. */
export function FollowUpPanel({ days, csrfToken, problem }: { days: string; csrfToken: string; problem?: string }) {
  return (
    <section class="panel" aria-labelledby="follow-up-title" data-section="follow-up">
      <h2 id="follow-up-title">Follow-up reminders</h2>
      <p class="hint">
        Every message you send — from here, Outlook or your phone — clears “needs reply” on its conversation and waits for an answer. When
        none has come after this many days, a follow-up draft (a reply to all, never sent by itself) is left in Drafts.
      </p>
      <form method="post" action="/settings/follow-up">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        <label for="follow-up-days">Days to wait</label>
        <input
          id="follow-up-days"
          name="days"
          type="number"
          min="1"
          max={String(MAX_FOLLOW_UP_DAYS)}
          required
          value={days}
          aria-invalid={problem ? 'true' : undefined}
          aria-describedby={problem ? 'follow-up-days-problem' : undefined}
        />
        {problem ? (
          <p class="field-error" id="follow-up-days-problem">
            {problem}
          </p>
        ) : null}
        <button type="submit">Save</button>
      </form>
    </section>
  );
}
