// Writing mail: the reply form of the reading pane, the compose dialog, the people typeahead.
(() => {
  'use strict';
  const { $, api, el, say, who } = window.MailClient;

  const datalist = $('#people');
  let peopleTimer;
  function wirePeople(root) {
    for (const input of root.querySelectorAll('[data-people]')) {
      input.addEventListener('input', () => {
        clearTimeout(peopleTimer);
        const parts = input.value.split(',');
        const last = parts.pop().trim();
        const prefix = parts.length ? `${parts.join(',')}, ` : '';
        if (last.length < 2 || last.includes('@')) return;
        peopleTimer = setTimeout(async () => {
          try {
            const { people } = await api(`/api/people?q=${encodeURIComponent(last)}`);
            datalist.replaceChildren(...people.map((p) => el('option', { value: `${prefix}${p.address}`, text: p.name })));
          } catch {
            // Typeahead is a help, not a requirement.
          }
        }, 200);
      });
    }
  }

  /** The reply form under the thread; `onSent()` after the reply went. */
  function showReply(message, all, onSent) {
    const slot = $('[data-reply-slot]');
    if (!slot || !message) return;
    const form = el(
      'form',
      { class: 'reply', 'data-reply-form': '' },
      el('h3', { text: all ? 'Reply all' : `Reply to ${who(message.from)}` }),
      el('label', { for: 'reply-cc', text: 'Add CC' }),
      el('input', { id: 'reply-cc', name: 'cc', list: 'people', autocomplete: 'off', 'data-people': '' }),
      el('label', { for: 'reply-body', text: 'Message' }),
      el('textarea', { id: 'reply-body', name: 'body', rows: '6', required: true }),
      el('p', { class: 'error', role: 'alert', 'data-reply-error': '' }),
      el(
        'div',
        { class: 'actions' },
        el('button', { type: 'submit', 'data-action': 'send-reply', text: 'Send reply' }),
        el('button', { type: 'button', class: 'secondary', onclick: () => slot.replaceChildren(), text: 'Discard' }),
      ),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const button = $('[data-action="send-reply"]', form);
      button.disabled = true;
      try {
        await api(`/api/reply/${encodeURIComponent(message.id)}`, {
          method: 'POST',
          body: JSON.stringify({ body: data.get('body'), all, cc: String(data.get('cc') || '') }),
        });
        slot.replaceChildren();
        say('Reply sent.');
        onSent();
      } catch (err) {
        $('[data-reply-error]', form).textContent = err.message;
        button.disabled = false;
      }
    });
    wirePeople(form);
    slot.replaceChildren(form);
    $('#reply-body').focus();
  }

  const compose = $('[data-compose]');
  const composeForm = $('[data-compose-form]');

  function openCompose() {
    composeForm.reset();
    $('[data-compose-error]').textContent = '';
    compose.showModal();
    $('#compose-to').focus();
  }

  /** The compose dialog's buttons; `onSent()` after a message went. */
  function wireCompose(onSent) {
    composeForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const data = new FormData(composeForm);
      const button = $('[data-action="send"]', composeForm);
      button.disabled = true;
      try {
        await api('/api/compose/send', {
          method: 'POST',
          body: JSON.stringify({
            to: String(data.get('to') || ''),
            cc: String(data.get('cc') || ''),
            bcc: String(data.get('bcc') || ''),
            subject: String(data.get('subject') || ''),
            body: String(data.get('body') || ''),
          }),
        });
        compose.close();
        say('Message sent.');
        onSent();
      } catch (err) {
        $('[data-compose-error]').textContent = err.message;
      } finally {
        button.disabled = false;
      }
    });
    $('[data-action="close-compose"]').addEventListener('click', () => compose.close());
    $('[data-action="compose"]').addEventListener('click', openCompose);
    wirePeople(composeForm);
  }
  Object.assign(window.MailClient, { wirePeople, showReply, openCompose, wireCompose });
})();
