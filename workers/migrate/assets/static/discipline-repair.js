// The discipline repair's progress page: polls the job's JSON progress route and updates the
// counts, the changes and the log in place until the job has ended.
(function () {
  'use strict';
  // Under a path prefix (meta base-path) the app's own URLs live below it.
  var baseMeta = document.querySelector('meta[name="base-path"]');
  var basePath = baseMeta ? baseMeta.getAttribute('content') || '' : '';
  function at(path) {
    return basePath + path;
  }
  var section = document.querySelector('[data-repair-progress]');
  if (!section) return;
  var jobId = section.getAttribute('data-repair-progress');
  var FINAL = ['completed', 'failed', 'cancelled'];

  function set(selector, text) {
    var el = section.querySelector(selector);
    if (el) el.textContent = String(text);
  }
  function cell(row, text) {
    var td = document.createElement('td');
    td.textContent = String(text);
    row.appendChild(td);
  }

  function render(p) {
    section.setAttribute('data-state', p.state);
    set('[data-repair-state]', p.state);
    set('[data-checked]', p.checked);
    set('[data-total]', p.total);
    set('[data-changed]', p.changed);
    var bar = section.querySelector('[data-bar]');
    if (bar) {
      bar.max = Math.max(p.total, 1);
      bar.value = p.checked;
    }
    Object.keys(p.summary).forEach(function (key) {
      var dd = section.querySelector('[data-count="' + key + '"]');
      if (dd) dd.textContent = String(p.summary[key]);
    });
    var changes = section.querySelector('[data-changes]');
    if (changes) {
      changes.textContent = '';
      p.summary.changes.forEach(function (ch) {
        var row = document.createElement('tr');
        [ch.raceId, ch.meeting, ch.raceNumber, ch.from, ch.to].forEach(function (v) {
          cell(row, v);
        });
        changes.appendChild(row);
      });
    }
    var log = section.querySelector('[data-log]');
    if (log) {
      log.textContent = '';
      p.log.forEach(function (entry) {
        var li = document.createElement('li');
        li.className = entry.level;
        li.textContent = entry.timestamp + ' ' + entry.level + ' ' + entry.message;
        log.appendChild(li);
      });
    }
    if (FINAL.indexOf(p.state) >= 0) {
      var cancel = section.querySelector('[data-cancel-form]');
      if (cancel) cancel.remove();
    }
  }

  function poll() {
    fetch(at('/api/discipline-repair/progress/' + encodeURIComponent(jobId)), { credentials: 'same-origin' })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (p) {
        if (p) render(p);
        if (!p || FINAL.indexOf(p.state) < 0) window.setTimeout(poll, 1500);
      })
      .catch(function () {
        window.setTimeout(poll, 5000);
      });
  }

  if (FINAL.indexOf(section.getAttribute('data-state')) < 0) window.setTimeout(poll, 1000);
})();
