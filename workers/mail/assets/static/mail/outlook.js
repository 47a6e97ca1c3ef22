// The mail client of /outlook: folders, message list with search and paging, the reading pane
// with the whole thread, reply, compose with To/CC/BCC and the people typeahead, move, archive,
// delete, mark read. Keyboard: j/k, Enter, r, a (reply all), c, e, #, u, /, Escape.
(() => {
  'use strict';
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  // The service's path prefix on a shared origin ('' at the root of its own host).
  const base = document.querySelector('meta[name="base-path"]')?.getAttribute('content') ?? '';
  /** A root-relative path of the service, under its prefix. */
  const at = (path) => `${base}${path}`;
  /** This page's path as the server routes it (without the prefix), for the `next` of a sign-in. */
  const ownPath = () => (base && (location.pathname === base || location.pathname.startsWith(`${base}/`)) ? location.pathname.slice(base.length) || '/' : location.pathname);
  const $ = (sel, root = document) => root.querySelector(sel);
  const el = (tag, props = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
    return node;
  };

  const state = { folders: [], folder: 'inbox', q: '', items: [], next: null, skip: 0, count: null, selected: -1, thread: null, openId: null };
  const folderList = $('[data-folders]');
  // The offline model writes a fixed template, never called AI (the page says which model runs).
  const templateModel = $('[data-client]')?.getAttribute('data-model-kind') === 'template';
  const draftLabel = templateModel ? 'Template reply' : 'AI draft';
  const list = $('[data-messages]');
  const reader = $('[data-reader]');
  const status = $('[data-status]');
  const more = $('[data-action="more"]');
  const compose = $('[data-compose]');
  const composeForm = $('[data-compose-form]');

  async function api(path, init = {}) {
    const headers = { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.method && init.method !== 'GET' ? { 'x-csrf-token': csrf } : {}) };
    const res = await fetch(at(path), { ...init, headers, credentials: 'same-origin' });
    if (res.status === 401) {
      const body = await res.json().catch(() => ({}));
      if (body.error === 'mailbox_not_connected') location.href = at('/connect');
      else location.href = at(`/login?next=${encodeURIComponent(ownPath() + location.hash)}`);
      throw new Error(body.message || 'Not signed in');
    }
    const body = res.status === 204 ? {} : await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.message || `Request failed (${res.status})`);
    return body;
  }

  const say = (text) => {
    status.textContent = text;
  };
  const when = (iso) => {
    if (!iso) return '';
    const d = new Date(iso);
    const today = new Date();
    return d.toDateString() === today.toDateString() ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString([], { day: 'numeric', month: 'short', year: d.getFullYear() === today.getFullYear() ? undefined : 'numeric' });
  };
  const who = (a) => (a ? a.name || a.address : '');
  const whoFull = (a) => (a.name && a.name !== a.address ? `${a.name} <${a.address}>` : a.address);

  /**
   * HTML mail bodies shown as text: tags dropped, entities decoded by a textarea (which parses
   * nothing into elements, so no script, style or remote image of a message ever applies).
   */
  const decoder = document.createElement('textarea');
  function bodyText(body) {
    if (body.contentType !== 'html') return body.content;
    const text = body.content
      .replace(/<(style|script|head)[\s\S]*?<\/\1>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|tr|li|h\d|blockquote)>/gi, '\n')
      .replace(/<[^>]*>/g, '');
    decoder.innerHTML = text;
    return decoder.value.replace(/\n{3,}/g, '\n\n').trim();
  }

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
    renderList();
    const shown = state.items.length;
    say(state.q ? `${shown} result${shown === 1 ? '' : 's'} for “${state.q}” in ${page.folder.name}` : `${page.folder.name}: ${page.folder.unread} unread, ${page.folder.total} in all`);
    more.hidden = !(page.next || (!state.q && page.count !== null && shown < page.count));
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
      thread = await api(`/api/thread/${encodeURIComponent(id)}`);
    } catch (err) {
      reader.replaceChildren(el('p', { class: 'error', role: 'alert', text: err.message }));
      return;
    }
    if (state.openId !== id) return;
    state.thread = thread;
    const current = thread.messages.find((m) => m.id === id) ?? thread.messages[thread.messages.length - 1];
    renderThread(thread, current);
    reader.focus();
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
      el('button', { type: 'button', 'data-action': 'toggle-read', onclick: () => toggleRead(current), text: current.isRead ? 'Mark unread' : 'Mark read' }),
      el('label', { for: 'move-to', class: 'visually-hidden', text: 'Move to folder' }),
      el('select', { id: 'move-to', 'data-move-target': '' }, el('option', { value: '', text: 'Move to…' }), ...moveOptions()),
      el('button', { type: 'button', 'data-action': 'move', onclick: () => { const dest = $('[data-move-target]').value; if (dest) act(current, 'move', dest); }, text: 'Move' }),
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
          el('div', { class: 'meta' }, el('time', { datetime: m.receivedAt ?? '', text: new Date(m.receivedAt ?? m.sentAt ?? 0).toLocaleString() }), m.folder ? el('span', { class: `tag ${m.folder}`, text: m.folder === 'sentitems' ? 'sent' : m.folder }) : null),
        ),
        el('div', { class: 'body', text: bodyText(m.body) }),
        m.attachments.length
          ? el('ul', { class: 'attachments', 'aria-label': 'Attachments' }, ...m.attachments.map((a) => el('li', { text: `📎 ${a.name} (${Math.max(1, Math.round(a.size / 1024))} KB)` })))
          : null,
      ),
    );
    reader.replaceChildren(el('h2', { class: 'subject', text: subject }), toolbar, el('div', { class: 'thread' }, ...messages), el('div', { 'data-reply-slot': '' }));
  }

  function closeReader() {
    document.body.classList.remove('reading');
    state.openId = null;
    list.focus();
  }

  function showReply(message, all) {
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
      el('div', { class: 'actions' }, el('button', { type: 'submit', 'data-action': 'send-reply', text: 'Send reply' }), el('button', { type: 'button', class: 'secondary', onclick: () => slot.replaceChildren(), text: 'Discard' })),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const button = $('[data-action="send-reply"]', form);
      button.disabled = true;
      try {
        await api(`/api/reply/${encodeURIComponent(message.id)}`, { method: 'POST', body: JSON.stringify({ body: data.get('body'), all, cc: String(data.get('cc') || '') }) });
        slot.replaceChildren();
        say('Reply sent.');
        // The thread again, with the reply in it.
        openMessage(message.id).catch(() => {});
      } catch (err) {
        $('[data-reply-error]', form).textContent = err.message;
        button.disabled = false;
      }
    });
    wirePeople(form);
    slot.replaceChildren(form);
    $('#reply-body').focus();
  }

  /** The reply draft text as HTML paragraphs (escaped). */
  const textAsHtml = (text) => `<div>${text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`).replace(/\r?\n/g, '<br>')}</div>`;

  /** The reply draft of the open message (the model's, or a template): generated (or the one made before), edited, sent. */
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
    const traceLink = el('a', { href: at(`/trace/${encodeURIComponent(draft.trace_id)}`), 'data-trace-link': '', text: 'How this draft was made' });
    if (draft.no_reply) {
      slot.replaceChildren(el('p', { 'data-ai-status': '', text: `No reply: the category ${draft.category} is in no-reply mode. ` }, traceLink));
      return;
    }
    const form = el(
      'form',
      { class: 'reply', 'data-ai-draft-form': '', 'data-draft-id': draft.draft_id },
      el('h3', { text: `${draftLabel} (${draft.category}${draft.reused ? ', the one made before' : ''})` }),
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
    const save = () => api('/api/draft/update', { method: 'POST', body: JSON.stringify({ draft_id: draft.draft_id, body_html: textAsHtml($('#ai-draft-body', form).value) }) });
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

  async function act(message, action, dest) {
    if (!message) return;
    const path = action === 'move' ? `/api/move/${encodeURIComponent(message.id)}` : `/api/messages/${encodeURIComponent(message.id)}/${action}`;
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
      const result = await api(`/api/mark-read/${encodeURIComponent(message.id)}`, { method: 'POST', body: JSON.stringify({ isRead: !message.isRead }) });
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

  // ---- people typeahead ------------------------------------------------------------------
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

  // ---- compose ---------------------------------------------------------------------------
  function openCompose() {
    composeForm.reset();
    $('[data-compose-error]').textContent = '';
    compose.showModal();
    $('#compose-to').focus();
  }

  composeForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(composeForm);
    const button = $('[data-action="send"]', composeForm);
    button.disabled = true;
    try {
      await api('/api/compose/send', {
        method: 'POST',
        body: JSON.stringify({ to: String(data.get('to') || ''), cc: String(data.get('cc') || ''), bcc: String(data.get('bcc') || ''), subject: String(data.get('subject') || ''), body: String(data.get('body') || '') }),
      });
      compose.close();
      say('Message sent.');
      if (state.folder === 'sentitems') loadMessages().catch(() => {});
    } catch (err) {
      $('[data-compose-error]').textContent = err.message;
    } finally {
      button.disabled = false;
    }
  });
  $('[data-action="close-compose"]').addEventListener('click', () => compose.close());
  $('[data-action="compose"]').addEventListener('click', openCompose);
  wirePeople(composeForm);

  // ---- navigation ------------------------------------------------------------------------
  $('[data-search]').addEventListener('submit', (event) => {
    event.preventDefault();
    state.q = $('#q').value.trim();
    loadMessages().catch((err) => say(err.message));
  });
  more.addEventListener('click', () => loadMessages({ append: true }).catch((err) => say(err.message)));

  function route() {
    const params = new URLSearchParams(location.hash.slice(1));
    const folder = params.get('folder');
    const message = params.get('message');
    if (folder && folder !== state.folder) {
      state.folder = folder;
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
