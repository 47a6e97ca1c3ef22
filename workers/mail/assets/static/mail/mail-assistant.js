// What the assistant knows, where mail is read: the category as a chip and the reply state in the
// message list, the "needs reply" and "awaiting reply" filters, a message's summary and the
// conversation's rolling summary in the reading pane. The offline model's summaries are its first
// sentences and its categories keyword matches: nothing here calls them AI.
(() => {
  'use strict';
  const { api, el, say } = window.MailClient;

  /** The offline model (templates and keyword matches) is at work: its output is named so. */
  const templateModel = document.querySelector('[data-client]')?.getAttribute('data-model-kind') === 'template';
  const KEYWORD_CATEGORY = 'keyword category (no language model)';

  /** The category chip (the markup other pages test for); the offline model's says it is a keyword match. */
  const categoryChip = (name) =>
    el('span', {
      class: 'chip category',
      'data-category': name,
      ...(templateModel ? { title: KEYWORD_CATEGORY, 'data-category-kind': 'keyword' } : {}),
      text: name,
    });
  /** Under a summary: what made it, when that was the offline model. */
  const templateNote = (what) =>
    templateModel ? el('p', { class: 'muted', 'data-template-note': '', text: `${what} (template, no language model)` }) : null;
  const originChip = (origin) =>
    el('span', { class: `chip origin ${origin === 'template reply' ? 'template' : 'model'}`, 'data-draft-origin': origin, text: origin });

  /** The chips of a list item: category, reply state, who wrote a reply draft. */
  function listChips(m) {
    const a = m.assistant;
    const chips = [
      a && a.category ? categoryChip(a.category) : null,
      a?.needsReply ? el('span', { class: 'chip state needs-reply', 'data-state': 'needs-reply', text: 'Needs reply' }) : null,
      a?.awaitingReply ? el('span', { class: 'chip state awaiting-reply', 'data-state': 'awaiting-reply', text: 'Awaiting reply' }) : null,
      m.draftOrigin ? originChip(m.draftOrigin) : null,
    ].filter(Boolean);
    return chips.length ? el('span', { class: 'chips' }, ...chips) : null;
  }

  const FILTERS = [
    { key: '', label: 'All' },
    { key: 'needs_reply', label: 'Needs reply' },
    { key: 'awaiting_reply', label: 'Awaiting reply' },
  ];

  /** The filter buttons above the list; `onPick(key)` when one is pressed. */
  function renderFilters(container, current, onPick) {
    container.replaceChildren(
      ...FILTERS.map((f) =>
        el('button', {
          type: 'button',
          class: `filter${f.key === current ? ' current' : ''}`,
          'data-filter': f.key || 'all',
          'aria-pressed': String(f.key === current),
          text: f.label,
          onclick: () => onPick(f.key),
        }),
      ),
      ...(templateModel ? [el('span', { class: 'filter-note', 'data-template-note': '', text: 'Categories: keyword matches' })] : []),
    );
  }

  /** The messages of a filter (every folder): the assistant's stored summaries, as list items. */
  async function filteredItems(key) {
    const answer = await api('/api/inbox-zero?limit=100');
    const rows = key === 'needs_reply' ? answer.needs_reply : answer.awaiting_reply;
    return rows.map((r) => ({
      id: r.message_id,
      conversationId: r.conversation_id,
      subject: r.subject,
      preview: r.summary,
      from: { name: r.sender, address: r.sender },
      to: r.recipients,
      receivedAt: r.received_at,
      sentAt: r.received_at,
      isRead: true,
      isDraft: false,
      hasAttachments: false,
      assistant: {
        category: r.category,
        summary: r.summary,
        bullets: r.bullets,
        needsReply: r.needs_reply,
        awaitingReply: key === 'awaiting_reply',
      },
      draftOrigin: null,
    }));
  }

  const bulletList = (bullets) => (bullets?.length ? el('ul', { class: 'bullets' }, ...bullets.map((b) => el('li', { text: b }))) : null);

  /** A message's stored summary, or a button that makes it. */
  function messageSummary(m, allowed) {
    const box = el('section', { class: 'summary message-summary', 'data-message-summary': '', 'aria-label': 'Summary' });
    const fill = (a) => {
      box.replaceChildren(
        el('h3', { text: 'Summary' }),
        a.category ? categoryChip(a.category) : null,
        el('p', { text: a.summary || '(empty)' }),
        bulletList(a.bullets),
        templateNote(a.category ? 'First sentences and a keyword category' : 'First sentences'),
      );
    };
    if (m.assistant) fill(m.assistant);
    else if (allowed && !m.isDraft) {
      box.append(
        el('button', {
          type: 'button',
          class: 'secondary',
          'data-action': 'summarise',
          text: 'Summarise',
          onclick: async (event) => {
            event.currentTarget.disabled = true;
            try {
              const doc = await api('/api/save-summary-direct', { method: 'POST', body: JSON.stringify({ message_id: m.id }) });
              m.assistant = {
                category: doc.category,
                summary: doc.summary,
                bullets: doc.bullets,
                needsReply: doc.needs_reply,
                awaitingReply: false,
              };
              fill(m.assistant);
            } catch (err) {
              say(err.message);
              event.currentTarget.disabled = false;
            }
          },
        }),
      );
    } else return null;
    return box;
  }

  /** The conversation's rolling summary above the thread, with a button that makes or updates it. */
  function threadSummary(thread) {
    if (!thread.assistant || !thread.conversationId) return null;
    const box = el('section', { class: 'summary thread-summary', 'data-thread-summary': '', 'aria-label': 'Conversation summary' });
    const fill = (s) => {
      const button = el('button', {
        type: 'button',
        class: 'secondary',
        'data-action': 'update-thread-summary',
        text: s ? 'Update summary' : 'Summarise conversation',
        onclick: async () => {
          button.disabled = true;
          try {
            const made = await api(`/api/threads/${encodeURIComponent(thread.conversationId)}/update-summary`, { method: 'POST' });
            thread.threadSummary = {
              summary: made.summary,
              bullets: made.bullets,
              message_count: made.message_count,
              updated_at: made.updated_at,
            };
            fill(thread.threadSummary);
          } catch (err) {
            say(err.message);
            button.disabled = false;
          }
        },
      });
      box.replaceChildren(
        el('h3', { text: 'Conversation summary' }),
        s
          ? el('p', { 'data-thread-summary-text': '', text: s.summary })
          : el('p', { class: 'muted', text: 'No summary of this conversation yet.' }),
        s ? bulletList(s.bullets) : null,
        s ? templateNote('First sentences of the conversation') : null,
        s
          ? el('p', {
              class: 'muted',
              text: `${s.message_count} message${s.message_count === 1 ? '' : 's'}, updated ${new Date(s.updated_at).toLocaleString()}`,
            })
          : null,
        button,
      );
    };
    fill(thread.threadSummary);
    return box;
  }
  Object.assign(window.MailClient, {
    templateModel,
    categoryChip,
    listChips,
    FILTERS,
    renderFilters,
    filteredItems,
    messageSummary,
    threadSummary,
  });
})();
