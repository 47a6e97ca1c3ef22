// The sync job pages: toggle and run-now buttons, the status counts, the mapping document upload.
// Every POST carries the page's anti-forgery token in the RequestVerificationToken header.
(function () {
  'use strict';
  // Under a path prefix (meta base-path) the app's own URLs live below it.
  var baseMeta = document.querySelector('meta[name="base-path"]');
  var basePath = baseMeta ? baseMeta.getAttribute('content') || '' : '';
  function at(path) {
    return basePath + path;
  }
  var tokenMeta = document.querySelector('meta[name="request-verification-token"]');
  var token = tokenMeta ? tokenMeta.getAttribute('content') : '';

  function post(url, body) {
    return fetch(url, { method: 'POST', headers: { RequestVerificationToken: token }, body: body, credentials: 'same-origin' }).then(
      function (res) {
        return res.json().then(function (answer) {
          return { ok: res.ok, answer: answer };
        });
      },
    );
  }
  function say(row, text) {
    var out = row.querySelector('[data-sync-result]');
    if (out) out.textContent = text;
  }

  document.querySelectorAll('[data-sync-toggle]').forEach(function (button) {
    button.addEventListener('click', function () {
      var row = button.closest('tr');
      post(at('/api/sync/' + button.getAttribute('data-sync-toggle') + '/toggle')).then(function (r) {
        if (!r.ok) return say(row, r.answer.message || 'Not changed.');
        row.querySelector('[data-enabled]').textContent = r.answer.enabled ? 'yes' : 'no';
        row.querySelector('[data-next-run]').textContent = r.answer.nextRunAt
          ? r.answer.nextRunAt.replace('T', ' ').slice(0, 16) + ' UTC'
          : '—';
        button.textContent = r.answer.enabled ? 'Disable' : 'Enable';
      });
    });
  });

  document.querySelectorAll('[data-sync-run]').forEach(function (button) {
    button.addEventListener('click', function () {
      var row = button.closest('tr');
      say(row, 'Starting…');
      post(at('/api/sync/' + button.getAttribute('data-sync-run') + '/run-now')).then(function (r) {
        say(row, r.answer.message || '');
      });
    });
  });

  var counts = document.querySelector('[data-sync-status]');
  if (counts) {
    var refresh = function () {
      fetch(at('/api/sync/status'), { credentials: 'same-origin' })
        .then(function (res) {
          return res.ok ? res.json() : null;
        })
        .then(function (status) {
          if (!status) return;
          ['total', 'enabled', 'running', 'errored'].forEach(function (key) {
            counts.querySelector('[data-count="' + key + '"]').textContent = String(status[key]);
          });
        })
        .finally(function () {
          window.setTimeout(refresh, 15000);
        });
    };
    refresh();
  }

  document.querySelectorAll('form[data-sync-upload]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var out = form.querySelector('[data-upload-result]');
      // The action attribute is already under the prefix (the page's URLs are rewritten on the way out).
      post(form.getAttribute('action'), new FormData(form)).then(function (r) {
        out.textContent = r.answer.message || '';
        out.className = r.ok ? 'flash info' : 'flash error';
      });
    });
  });
})();
