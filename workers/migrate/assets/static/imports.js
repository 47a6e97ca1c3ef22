// The barrier-trial and sectional import pages: live counts, the filter test, the ClearData
// confirmation, the auto-sync buttons and the progress page, which polls the job's JSON progress
// and updates in place until the import has ended. POSTs carry the page's anti-forgery token
// (helpers: common.js).
(function () {
  'use strict';
  var page = window.migratePage;
  var getJson = page.getJson;
  function post(path) {
    return page.postForAnswer(page.at(path));
  }
  function when(ms) {
    return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—';
  }

  // Live counts on the area's page.
  var live = document.querySelector('[data-livecounts]');
  if (live) {
    var prefix = live.getAttribute('data-livecounts');
    var refresh = function () {
      getJson(prefix + '/livecounts')
        .then(function (c) {
          if (!c) return;
          live.querySelector('[data-live="source"]').textContent = String(c.sourceRowCount);
          var tables = Object.keys(c.destinationCounts);
          live.querySelector('[data-live="destination"]').textContent = tables
            .map(function (t) {
              return String(c.destinationCounts[t]);
            })
            .join(', ');
        })
        .finally(function () {
          window.setTimeout(refresh, 10000);
        });
    };
    refresh();
  }

  // The filter test.
  document.querySelectorAll('[data-filter-box]').forEach(function (box) {
    var button = box.querySelector('[data-test-filter]');
    var input = box.querySelector('[data-filter]');
    var out = box.querySelector('[data-filter-result]');
    button.addEventListener('click', function () {
      var url = box.getAttribute('data-prefix') + '/testfilter?filter=' + encodeURIComponent(input.value);
      var tempPath = box.getAttribute('data-temp-path');
      if (tempPath) url += '&tempPath=' + encodeURIComponent(tempPath);
      out.textContent = 'Testing…';
      getJson(url).then(function (r) {
        if (!r) out.textContent = 'The test failed.';
        else out.textContent = r.success ? r.count + ' row' + (r.count === 1 ? '' : 's') + ' match' : r.error;
      });
    });
  });

  // ClearData asks first.
  document.querySelectorAll('form[data-clear-form]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });

  // The auto-sync buttons.
  var auto = document.querySelector('[data-auto-sync]');
  if (auto) {
    var autoPrefix = auto.getAttribute('data-auto-sync');
    var say = function (text) {
      auto.querySelector('[data-auto-result]').textContent = text;
    };
    auto.querySelector('[data-auto-toggle]').addEventListener('click', function (event) {
      post(autoPrefix + '/autosync/toggle').then(function (r) {
        if (!r.ok) return say(r.answer.message || 'Not changed.');
        auto.querySelector('[data-enabled]').textContent = r.answer.enabled ? 'yes' : 'no';
        auto.querySelector('[data-next-run]').textContent = when(r.answer.nextRunAt);
        event.target.textContent = r.answer.enabled ? 'Disable' : 'Enable';
        say(r.answer.enabled ? 'Enabled.' : 'Disabled.');
      });
    });
    auto.querySelector('[data-auto-run]').addEventListener('click', function () {
      say('Starting…');
      post(autoPrefix + '/autosync/run-now').then(function (r) {
        say(r.answer.message || '');
      });
    });
  }

  // The progress page.
  var section = document.querySelector('[data-import-progress]');
  if (!section) return;
  var jobId = section.getAttribute('data-import-progress');
  var progressUrl = section.getAttribute('data-prefix') + '/progress/' + encodeURIComponent(jobId);
  function set(selector, text) {
    page.setText(section, selector, text);
  }
  function render(p) {
    page.showProgress(section, { state: '[data-import-state]', done: '[data-processed]' }, p.state, p.processed, p.total);
    ['inserted', 'updated', 'unchanged', 'skipped'].forEach(function (key) {
      set('[data-count="' + key + '"]', p[key]);
    });
    set('[data-count="filteredOut"]', p.summary.filteredOut);
    var problems = section.querySelector('[data-problems]');
    if (problems) {
      problems.textContent = '';
      p.summary.problems.forEach(function (pr) {
        var row = page.row([pr.line, pr.row, pr.message]);
        row.className = 'error';
        problems.appendChild(row);
      });
    }
    page.renderLog(section.querySelector('[data-log]'), p.log);
    if (page.isFinal(p.state)) {
      var cancel = section.querySelector('[data-cancel-form]');
      if (cancel) cancel.remove();
      var finished = section.querySelector('[data-finished]');
      if (finished) finished.hidden = false;
      set(
        '[data-summary-text]',
        p.inserted + ' inserted, ' + p.updated + ' updated, ' + p.unchanged + ' unchanged, ' + p.skipped + ' skipped.',
      );
    }
  }
  page.pollProgress(
    section,
    function () {
      return getJson(progressUrl);
    },
    render,
    { first: 500, every: 1000, retry: 5000 },
  );
})();
