// Shared helpers of the mail client's modules: the service's paths, element building, the JSON
// calls (anti-forgery token on changes, sign-in on 401), dates and addresses, bodies as text.
// Loaded first of the client's deferred scripts: each adds what it shares to window.MailClient.
(() => {
  'use strict';
  window.MailClient = {};
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  // The service's path prefix on a shared origin ('' at the root of its own host).
  const base = document.querySelector('meta[name="base-path"]')?.getAttribute('content') ?? '';
  /** A root-relative path of the service, under its prefix. */
  const at = (path) => `${base}${path}`;
  /** This page's path as the server routes it (without the prefix), for the `next` of a sign-in. */
  const ownPath = () =>
    base && (location.pathname === base || location.pathname.startsWith(`${base}/`))
      ? location.pathname.slice(base.length) || '/'
      : location.pathname;
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
    for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
    return node;
  };

  async function api(path, init = {}) {
    const headers = {
      accept: 'application/json',
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.method && init.method !== 'GET' ? { 'x-csrf-token': csrf } : {}),
    };
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

  const status = $('[data-status]');
  const say = (text) => {
    status.textContent = text;
  };
  const when = (iso) => {
    if (!iso) return '';
    const d = new Date(iso);
    const today = new Date();
    return d.toDateString() === today.toDateString()
      ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
      : d.toLocaleDateString([], { day: 'numeric', month: 'short', year: d.getFullYear() === today.getFullYear() ? undefined : 'numeric' });
  };
  const who = (a) => (a ? a.name || a.address : '');
  const whoFull = (a) => (a.name && a.name !== a.address ? `${a.name} <${a.address}>` : a.address);

  /**
   * An HTML body as plain text (the reading pane's text view, and a draft to edit): tags dropped,
   * entities decoded by a textarea, which parses nothing into elements, so nothing of it applies.
   */
  const decoder = document.createElement('textarea');
  function bodyText(body) {
    if (body.contentType !== 'html') return body.content;
    const text = body.content
      .replace(/<(style|script|head|title)[\s\S]*?<\/\1>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|tr|li|h\d|blockquote)>/gi, '\n')
      .replace(/<[^>]*>/g, '');
    decoder.innerHTML = text;
    return decoder.value.replace(/\n{3,}/g, '\n\n').trim();
  }

  /** Text typed here as HTML paragraphs (escaped). */
  const textAsHtml = (text) => `<div>${text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`).replace(/\r?\n/g, '<br>')}</div>`;
  Object.assign(window.MailClient, { csrf, at, ownPath, $, el, api, say, when, who, whoFull, bodyText, textAsHtml });
})();
