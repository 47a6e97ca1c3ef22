// A message body in the reading pane. HTML mail is drawn in a sandboxed frame (no scripts, no
// forms, no same origin; links open in a new tab) from /api/email/<id>/html, which sanitises it
// and answers under its own policy: inline cid: images shown, remote images left out until the
// reader presses "Show images". The plain text is one click away.
(() => {
  'use strict';
  const { at, bodyText, el } = window.MailClient;

  const REMOTE_IMAGE = /<img\b[^>]*\bsrc\s*=\s*["']?\s*https?:|\bbackground\s*=\s*["']?\s*https?:|url\(\s*["']?\s*https?:/i;
  const frameUrl = (id, remote) => at(`/api/email/${encodeURIComponent(id)}/html${remote ? '?images=remote' : ''}`);

  /**
   * The body of message `m`: a frame for HTML (with its image and text switches), text as it is
   * otherwise. `later`: the frame is not loaded yet (`loadFrames` starts it), so the message the
   * reader opened loads first and the others of its thread wait for it.
   */
  function renderBody(m, later = false) {
    const text = el('div', { class: 'body', 'data-body-text': '', text: bodyText(m.body) });
    if (m.body.contentType !== 'html') return text;
    text.hidden = true;
    const frame = el('iframe', {
      class: 'mail-frame',
      'data-mail-frame': '',
      sandbox: 'allow-popups allow-popups-to-escape-sandbox',
      referrerpolicy: 'no-referrer',
      title: `Message from ${m.from?.name || m.from?.address || 'unknown sender'}`,
      [later ? 'data-src' : 'src']: frameUrl(m.id, false),
    });
    const showImages = REMOTE_IMAGE.test(m.body.content)
      ? el('button', {
          type: 'button',
          class: 'secondary',
          'data-action': 'show-images',
          text: 'Show images',
          onclick: (event) => {
            frame.src = frameUrl(m.id, true);
            event.currentTarget.remove();
            notice.textContent = 'Remote images of this message are shown.';
          },
        })
      : null;
    const notice = el('span', { class: 'images-note', 'data-images-note': '', text: showImages ? 'Remote images are not loaded.' : '' });
    const toggle = el('button', {
      type: 'button',
      class: 'secondary',
      'data-action': 'plain-text',
      'aria-pressed': 'false',
      text: 'Plain text',
      onclick: () => {
        const plain = frame.hidden === false;
        frame.hidden = plain;
        text.hidden = !plain;
        toggle.setAttribute('aria-pressed', String(plain));
        toggle.textContent = plain ? 'Formatted' : 'Plain text';
      },
    });
    return el('div', { class: 'body-view' }, el('div', { class: 'body-tools' }, notice, showImages, toggle), frame, text);
  }
  /** Starts the frames `renderBody` left waiting under `root`. */
  function loadFrames(root) {
    for (const frame of root.querySelectorAll('iframe[data-mail-frame][data-src]')) {
      frame.src = frame.getAttribute('data-src');
      frame.removeAttribute('data-src');
    }
  }

  /** `then()` once the frame has loaded (at once without one), or after `waitMs` at the latest. */
  function afterFrame(frame, then, waitMs = 3000) {
    if (!frame) return then();
    let done = false;
    const once = () => {
      if (done) return;
      done = true;
      then();
    };
    frame.addEventListener('load', once, { once: true });
    setTimeout(once, waitMs);
  }
  Object.assign(window.MailClient, { renderBody, loadFrames, afterFrame });
})();
