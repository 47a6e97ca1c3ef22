// The mail client of /outlook (the last of its deferred scripts): folders, the message list with search, paging and
// the assistant's filters, the reading pane with the whole thread, the assistant's summaries and
// reply drafts, reply, compose, move, archive, delete, mark read. Keyboard: j/k, Enter, r,
// a (reply all), c, e, #, u, /, Escape. The scripts before it, in order: mail-util.js (helpers),
// mail-body.js (HTML mail in a sandboxed frame), mail-assistant.js, mail-draft.js, mail-compose.js.
(() => {
  'use strict';
  const { listChips, filteredItems, messageSummary, renderFilters, threadSummary } = window.MailClient;
  const { afterFrame, loadFrames, renderBody } = window.MailClient;
  const { openCompose, showReply: replyForm, wireCompose } = window.MailClient;
  const { draftLabel, showAiDraft } = window.MailClient;
  const { $, api, at, el, say, when, who, whoFull } = window.MailClient;

  const state = {
    folders: [],
    folder: 'inbox',
    q: '',
    filter: '',
    assistant: false,
    items: [],
    next: null,
    skip: 0,
    count: null,
    selected: -1,
    thread: null,
    openId: null,
  };
  const folderList = $('[data-folders]');
  const list = $('[data-messages]');
  const reader = $('[data-reader]');
  const more = $('[data-action="more"]');
  // The assistant's filters, shown once the list says the account may use the assistant.
  const filters = el('div', { class: 'filters', role: 'group', 'aria-label': 'Filter messages', 'data-filters': '', hidden: true });
  $('[data-status]').before(filters);

  // ---- folders ---------------------------------------------------------------------------
  async function loadFolders() {
    const { folders } = await api('/api/folders');
    state.folders = folders;
    renderFolders();
  }

  function folderKey(f) {
    return f.wellKnown ?? f.id;
  }

  // The server answers the folders in Outlook's order, each after its parent with its depth.
  function renderFolders() {
    folderList.replaceChildren(
      ...state.folders.map((f) => {
        const link = el(
          'a',
          {
            href: `#folder=${encodeURIComponent(folderKey(f))}`,
            class: [folderKey(f) === state.folder ? 'current' : '', f.depth ? 'child' : ''].filter(Boolean).join(' '),
            'aria-current': folderKey(f) === state.folder ? 'page' : undefined,
            'data-folder': folderKey(f),
            'data-depth': String(f.depth ?? 0),
            'data-parent': f.depth ? f.parentId : undefined,
          },
          el('span', { class: 'name', text: f.name }),
          f.unread ? el('span', { class: 'count', text: String(f.unread), 'aria-label': `${f.unread} unread` }) : null,
        );
        // A custom property through the CSSOM (the page's CSP allows no style attributes in markup).
        link.style.setProperty('--depth', String(f.depth ?? 0));
        return el('li', {}, link);
      }),
    );
  }

  // ---- message list ----------------------------------------------------------------------
  async function loadMessages({ append = false } = {}) {
    if (state.filter) return loadFiltered();
    const params = new URLSearchParams({ top: '25' });
    if (state.q) params.set('q', state.q);
    if (append && state.next) params.set('next', state.next);
    else if (append) params.set('skip', String(state.items.length));
    say('Loading…');
    const page = await api(`/api/emails/${encodeURIComponent(state.folder)}?${params}`);
    state.items = append ? state.items.concat(page.items) : page.items;
    state.next = page.next;
    state.count = page.count;
    if (!append) state.selected = -1;
    state.assistant = page.assistant === true;
    showFilters();
    renderList();
    const shown = state.items.length;
    say(
      state.q
        ? `${shown} result${shown === 1 ? '' : 's'} for “${state.q}” in ${page.folder.name}`
        : `${page.folder.name}: ${page.folder.unread} unread, ${page.folder.total} in all`,
    );
    more.hidden = !(page.next || (!state.q && page.count !== null && shown < page.count));
  }

  /** The assistant's filters (every folder): what needs a reply, what awaits one. */
  async function loadFiltered() {
    say('Loading…');
    const items = await filteredItems(state.filter);
    state.items = items;
    state.next = null;
    state.selected = -1;
    more.hidden = true;
    renderList();
    say(`${items.length} message${items.length === 1 ? '' : 's'} ${state.filter === 'needs_reply' ? 'need a reply' : 'await a reply'}`);
  }

  function showFilters() {
    filters.hidden = !state.assistant;
    if (!state.assistant) return;
    renderFilters(filters, state.filter, (key) => {
      state.filter = key;
      showFilters();
      loadMessages().catch((err) => say(err.message));
    });
  }

  function renderList() {
    list.replaceChildren(
      ...state.items.map((m, index) =>
        el(
          'li',
          {
            role: 'option',
            id: `m-${index}`,
            class: `${m.isRead ? 'read' : 'unread'}${index === state.selected ? ' selected' : ''}`,
            'aria-selected': index === state.selected ? 'true' : 'false',
            'data-id': m.id,
            onclick: () => select(index, true),
          },
          el('span', { class: 'from', text: m.isDraft ? `Draft to ${m.to.map(who).join(', ')}` : who(m.from) || '(unknown sender)' }),
          el('time', { datetime: m.receivedAt ?? '', text: when(m.receivedAt ?? m.sentAt) }),
          el('span', { class: 'subject', text: (m.hasAttachments ? '📎 ' : '') + (m.subject || '(no subject)') }),
          el('span', { class: 'preview', text: m.preview }),
          listChips(m),
        ),
      ),
    );
    if (state.selected >= 0) list.setAttribute('aria-activedescendant', `m-${state.selected}`);
    if (!state.items.length) list.append(el('li', { class: 'empty', text: state.q ? 'Nothing found.' : 'No messages.' }));
  }

  function select(index, open) {
    if (index < 0 || index >= state.items.length) return;
    state.selected = index;
    renderList();
    $(`#m-${index}`)?.scrollIntoView({ block: 'nearest' });
    if (open) openMessage(state.items[index].id);
  }

  // ---- reading pane ----------------------------------------------------------------------
  async function openMessage(id) {
    state.openId = id;
    document.body.classList.add('reading');
    reader.replaceChildren(el('p', { class: 'empty', text: 'Loading…' }));
    let thread;
    try {
      const known = state.items.find((m) => m.id === id)?.conversationId;
      thread = await api(`/api/thread/${encodeURIComponent(id)}${known ? `?conversation=${encodeURIComponent(known)}` : ''}`);
    } catch (err) {
      reader.replaceChildren(el('p', { class: 'error', role: 'alert', text: err.message }));
      return;
    }
    if (state.openId !== id) return;
    state.thread = thread;
    if (typeof thread.assistant === 'boolean' && thread.assistant !== state.assistant) {
      state.assistant = thread.assistant;
      showFilters();
    }
    const current = thread.messages.find((m) => m.id === id) ?? thread.messages[thread.messages.length - 1];
    renderThread(thread, current);
    reader.focus();
    // The opened message's body first: the rest of the thread's bodies, and marking it read (a
    // write, which would also drop the mailbox's short read cache the body is served from), after.
    afterFrame(reader.querySelector('article.message.current iframe[data-mail-frame]'), () => {
      if (state.openId === id) loadFrames(reader);
      if (current && !current.isRead && !current.isDraft) {
        api(`/api/mark-read/${encodeURIComponent(current.id)}`, { method: 'POST', body: JSON.stringify({ isRead: true }) })
          .then(() => {
            const item = state.items.find((m) => m.id === current.id);
            if (item) item.isRead = true;
            renderList();
            loadFolders().catch(() => {});
          })
          .catch(() => {});
      }
    });
  }

  function moveOptions() {
    return state.folders.map((f) => el('option', { value: folderKey(f), text: f.name }));
  }

  function renderThread(thread, current) {
    const subject = current?.subject || '(no subject)';
    const toolbar = el(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Message actions' },
      el('button', { type: 'button', class: 'back', onclick: closeReader, text: '← Back' }),
      el('button', { type: 'button', 'data-action': 'reply', onclick: () => showReply(current, false), text: 'Reply' }),
      el('button', { type: 'button', 'data-action': 'reply-all', onclick: () => showReply(current, true), text: 'Reply all' }),
      el('button', { type: 'button', 'data-action': 'ai-draft', onclick: () => showAiDraft(current), text: draftLabel }),
      el('button', { type: 'button', 'data-action': 'archive', onclick: () => act(current, 'archive'), text: 'Archive' }),
      el('button', { type: 'button', 'data-action': 'delete', onclick: () => act(current, 'delete'), text: 'Delete' }),
      el('button', {
        type: 'button',
        'data-action': 'toggle-read',
        onclick: () => toggleRead(current),
        text: current.isRead ? 'Mark unread' : 'Mark read',
      }),
      el('label', { for: 'move-to', class: 'visually-hidden', text: 'Move to folder' }),
      el('select', { id: 'move-to', 'data-move-target': '' }, el('option', { value: '', text: 'Move to…' }), ...moveOptions()),
      el('button', {
        type: 'button',
        'data-action': 'move',
        onclick: () => {
          const dest = $('[data-move-target]').value;
          if (dest) act(current, 'move', dest);
        },
        text: 'Move',
      }),
      el('a', { href: at(`/api/email-download/${encodeURIComponent(current.id)}`), class: 'button', download: '', text: 'Download .eml' }),
    );
    const messages = thread.messages.map((m) =>
      el(
        'article',
        { class: `message${m.id === current.id ? ' current' : ''}`, 'aria-label': `From ${who(m.from)}` },
        el(
          'header',
          {},
          el('div', { class: 'from', text: m.from ? whoFull(m.from) : '' }),
          el('div', { class: 'to', text: `To: ${m.to.map(whoFull).join(', ')}` }),
          m.cc.length ? el('div', { class: 'cc', text: `CC: ${m.cc.map(whoFull).join(', ')}` }) : null,
          m.bcc.length ? el('div', { class: 'bcc', text: `BCC: ${m.bcc.map(whoFull).join(', ')}` }) : null,
          el(
            'div',
            { class: 'meta' },
            el('time', { datetime: m.receivedAt ?? '', text: new Date(m.receivedAt ?? m.sentAt ?? 0).toLocaleString() }),
            m.folder ? el('span', { class: `tag ${m.folder}`, text: m.folder === 'sentitems' ? 'sent' : m.folder }) : null,
            m.draftOrigin
              ? el('span', {
                  class: `chip origin ${m.draftOrigin === 'template reply' ? 'template' : 'model'}`,
                  'data-draft-origin': m.draftOrigin,
                  text: m.draftOrigin,
                })
              : null,
          ),
        ),
        messageSummary(m, thread.assistant),
        renderBody(m, m.id !== current.id),
        m.attachments.length
          ? el(
              'ul',
              { class: 'attachments', 'aria-label': 'Attachments' },
              ...m.attachments.map((a) => el('li', { text: `📎 ${a.name} (${Math.max(1, Math.round(a.size / 1024))} KB)` })),
            )
          : null,
      ),
    );
    reader.replaceChildren(
      el('h2', { class: 'subject', text: subject }),
      toolbar,
      threadSummary(thread),
      el('div', { class: 'thread' }, ...messages),
      el('div', { 'data-reply-slot': '' }),
    );
  }

  function closeReader() {
    document.body.classList.remove('reading');
    state.openId = null;
    list.focus();
  }

  function showReply(message, all) {
    replyForm(message, all, () => openMessage(message.id).catch(() => {}));
  }

  async function act(message, action, dest) {
    if (!message) return;
    const path =
      action === 'move' ? `/api/move/${encodeURIComponent(message.id)}` : `/api/messages/${encodeURIComponent(message.id)}/${action}`;
    try {
      await api(path, { method: 'POST', body: action === 'move' ? JSON.stringify({ dest_folder_id: dest }) : undefined });
      say(action === 'move' ? 'Moved.' : action === 'archive' ? 'Archived.' : 'Moved to Deleted Items.');
      const index = state.items.findIndex((m) => m.id === message.id);
      if (index >= 0) state.items.splice(index, 1);
      state.selected = Math.min(index, state.items.length - 1);
      renderList();
      reader.replaceChildren(el('p', { class: 'empty', text: 'Select a message to read it.' }));
      document.body.classList.remove('reading');
      loadFolders().catch(() => {});
    } catch (err) {
      say(err.message);
    }
  }

  async function toggleRead(message) {
    try {
      const result = await api(`/api/mark-read/${encodeURIComponent(message.id)}`, {
        method: 'POST',
        body: JSON.stringify({ isRead: !message.isRead }),
      });
      message.isRead = result.isRead;
      const item = state.items.find((m) => m.id === message.id);
      if (item) item.isRead = result.isRead;
      renderList();
      if (state.thread) renderThread(state.thread, message);
      loadFolders().catch(() => {});
    } catch (err) {
      say(err.message);
    }
  }

  wireCompose(() => {
    if (state.folder === 'sentitems') loadMessages().catch(() => {});
  });

  // ---- navigation ------------------------------------------------------------------------
  $('[data-search]').addEventListener('submit', (event) => {
    event.preventDefault();
    state.q = $('#q').value.trim();
    state.filter = '';
    loadMessages().catch((err) => say(err.message));
  });
  more.addEventListener('click', () => loadMessages({ append: true }).catch((err) => say(err.message)));

  function route() {
    const params = new URLSearchParams(location.hash.slice(1));
    const folder = params.get('folder');
    const message = params.get('message');
    if (folder && folder !== state.folder) {
      state.folder = folder;
      state.filter = '';
      state.q = '';
      $('#q').value = '';
      renderFolders();
      loadMessages().catch((err) => say(err.message));
    }
    if (message) openMessage(message).catch(() => {});
  }
  window.addEventListener('hashchange', route);

  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      if (event.key === 'Escape') target.blur();
      return;
    }
    const current = state.thread?.messages.find((m) => m.id === state.openId);
    const keys = {
      j: () => select(Math.min(state.selected + 1, state.items.length - 1), false),
      ArrowDown: () => select(Math.min(state.selected + 1, state.items.length - 1), false),
      k: () => select(Math.max(state.selected - 1, 0), false),
      ArrowUp: () => select(Math.max(state.selected - 1, 0), false),
      Enter: () => select(state.selected, true),
      o: () => select(state.selected, true),
      r: () => showReply(current, false),
      a: () => showReply(current, true),
      c: openCompose,
      e: () => act(current ?? state.items[state.selected], 'archive'),
      '#': () => act(current ?? state.items[state.selected], 'delete'),
      u: () => current && toggleRead(current),
      '/': () => $('#q').focus(),
      Escape: closeReader,
    };
    const handler = keys[event.key];
    if (handler) {
      event.preventDefault();
      handler();
    }
  });

  const initial = new URLSearchParams(location.hash.slice(1));
  state.folder = initial.get('folder') || 'inbox';
  loadFolders()
    .then(() => loadMessages())
    .then(() => {
      const message = initial.get('message');
      if (message) openMessage(message);
    })
    .catch((err) => say(err.message));
})();
