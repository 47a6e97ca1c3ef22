// The assistant's reply draft of the open message: generated (or the one made before), shown for
// editing with who wrote it ("model draft", or "template reply" with the offline model — never
// called AI), saved and sent, with a link to its trace.
(() => {
  'use strict';
  const { $, api, at, bodyText, el, say, textAsHtml } = window.MailClient;

  const templateModel = $('[data-client]')?.getAttribute('data-model-kind') === 'template';
  /** The reading pane's button: the page says which model runs. */
  const draftLabel = templateModel ? 'Template reply' : 'AI draft';

  /** "model draft" or "template reply", from what the generate route says wrote it. */
  const originOf = (generatedBy) => (generatedBy === 'template reply' ? 'template reply' : 'model draft');

  async function showAiDraft(message) {
    const slot = $('[data-reply-slot]');
    if (!slot || !message) return;
    slot.replaceChildren(el('p', { class: 'status', 'data-ai-status': '', text: 'Writing a draft…' }));
    let draft;
    try {
      draft = await api('/api/draft/generate', { method: 'POST', body: JSON.stringify({ email_id: message.id }) });
    } catch (err) {
      slot.replaceChildren(el('p', { class: 'error', role: 'alert', 'data-ai-error': '', text: err.message }));
      return;
    }
    const traceLink = el('a', {
      href: at(`/trace/${encodeURIComponent(draft.trace_id)}`),
      'data-trace-link': '',
      text: 'How this draft was made',
    });
    if (draft.no_reply) {
      slot.replaceChildren(
        el('p', { 'data-ai-status': '', text: `No reply: the category ${draft.category} is in no-reply mode. ` }, traceLink),
      );
      return;
    }
    const origin = originOf(draft.generated_by);
    const form = el(
      'form',
      { class: 'reply', 'data-ai-draft-form': '', 'data-draft-id': draft.draft_id, 'data-draft-origin': origin },
      el('h3', {
        text: `${origin === 'template reply' ? 'Template reply' : 'Model draft'} (${draft.category}${draft.reused ? ', the one made before' : ''})`,
      }),
      el(
        'p',
        { class: 'draft-origin' },
        el('span', { class: `chip origin ${origin === 'template reply' ? 'template' : 'model'}`, 'data-origin': origin, text: origin }),
        ` ${origin === 'template reply' ? 'A fixed template filled in, no language model: read it before sending.' : `Written by ${draft.generated_by.replace(/^AI reply \((.*)\)$/, '$1')}: read it before sending.`}`,
      ),
      el('label', { for: 'ai-draft-body', text: 'Draft' }),
      el('textarea', { id: 'ai-draft-body', name: 'body', rows: '10', required: true }),
      el('p', { class: 'error', role: 'alert', 'data-ai-error': '' }),
      el(
        'div',
        { class: 'actions' },
        el('button', { type: 'button', 'data-action': 'save-draft', text: 'Save draft' }),
        el('button', { type: 'submit', 'data-action': 'send-draft', text: 'Send' }),
        traceLink,
      ),
    );
    $('#ai-draft-body', form).value = bodyText({ contentType: 'html', content: draft.body_html });
    const save = () =>
      api('/api/draft/update', {
        method: 'POST',
        body: JSON.stringify({ draft_id: draft.draft_id, body_html: textAsHtml($('#ai-draft-body', form).value) }),
      });
    const fail = (err) => {
      $('[data-ai-error]', form).textContent = err.message;
    };
    $('[data-action="save-draft"]', form).addEventListener('click', () => save().then(() => say('Draft saved.'), fail));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const button = $('[data-action="send-draft"]', form);
      button.disabled = true;
      try {
        await save();
        await api('/api/draft/send', { method: 'POST', body: JSON.stringify({ draft_id: draft.draft_id }) });
        slot.replaceChildren(el('p', { 'data-ai-status': '', text: 'Draft sent. ' }, traceLink));
        say('Reply sent.');
      } catch (err) {
        fail(err);
        button.disabled = false;
      }
    });
    slot.replaceChildren(form);
    $('#ai-draft-body').focus();
  }
  Object.assign(window.MailClient, { draftLabel, originOf, showAiDraft });
})();
