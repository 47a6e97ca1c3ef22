// The sync job pages: toggle and run-now buttons, the status counts, the mapping document upload.
// Every POST carries the page's anti-forgery token in the RequestVerificationToken header (common.js).
(function () {
  'use strict';
  var page = window.migratePage;
  var at = page.at;
  var post = page.postForAnswer;
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
      page
        .getJson('/api/sync/status')
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
