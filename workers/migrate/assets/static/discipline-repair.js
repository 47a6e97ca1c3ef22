// The discipline repair's progress page: polls the job's JSON progress route and updates the
// counts, the changes and the log in place until the job has ended (helpers: common.js).
(function () {
  'use strict';
  var page = window.migratePage;
  var section = document.querySelector('[data-repair-progress]');
  if (!section) return;
  var jobId = section.getAttribute('data-repair-progress');
  function set(selector, text) {
    page.setText(section, selector, text);
  }

  function render(p) {
    page.showProgress(section, { state: '[data-repair-state]', done: '[data-checked]' }, p.state, p.checked, p.total);
    set('[data-changed]', p.changed);
    Object.keys(p.summary).forEach(function (key) {
      set('[data-count="' + key + '"]', p.summary[key]);
    });
    var changes = section.querySelector('[data-changes]');
    if (changes) {
      changes.textContent = '';
      p.summary.changes.forEach(function (ch) {
        changes.appendChild(page.row([ch.raceId, ch.meeting, ch.raceNumber, ch.from, ch.to]));
      });
    }
    page.renderLog(section.querySelector('[data-log]'), p.log);
    if (page.isFinal(p.state)) {
      var cancel = section.querySelector('[data-cancel-form]');
      if (cancel) cancel.remove();
    }
  }

  page.pollProgress(
    section,
    function () {
      return page.getJson('/api/discipline-repair/progress/' + encodeURIComponent(jobId));
    },
    render,
    { first: 1000, every: 1500, retry: 5000 },
  );
})();
