// What every page script of the migration app shares, as window.migratePage: the app's URLs under
// a path prefix (meta base-path), POSTs carrying the page's anti-forgery token in the
// RequestVerificationToken header, JSON reads, and a job's progress polled until the job has ended.
// The layout loads it before the pages' own scripts (all deferred, so they run in document order).
(function () {
  'use strict';
  var baseMeta = document.querySelector('meta[name="base-path"]');
  var basePath = baseMeta ? baseMeta.getAttribute('content') || '' : '';
  var tokenMeta = document.querySelector('meta[name="request-verification-token"]');
  var token = tokenMeta ? tokenMeta.getAttribute('content') : '';
  var FINAL = ['completed', 'failed', 'cancelled'];

  /** The app's own path `path`, under the prefix it is mounted at. */
  function at(path) {
    return basePath + path;
  }
  function isFinal(state) {
    return FINAL.indexOf(state) >= 0;
  }
  /** Reads the app's JSON route `path`: its body, or null when the answer is not a success. */
  function getJson(path) {
    return fetch(at(path), { credentials: 'same-origin' }).then(function (res) {
      return res.ok ? res.json() : null;
    });
  }
  /** POSTs `body` to `url` (a URL already under the prefix) with the token: the response. */
  function post(url, body, type) {
    var headers = { RequestVerificationToken: token };
    if (type) headers['content-type'] = type;
    return fetch(url, { method: 'POST', headers: headers, body: body, credentials: 'same-origin' });
  }
  /** POSTs as `post` does and reads the JSON answer: `{ ok, answer }`. */
  function postForAnswer(url, body) {
    return post(url, body).then(function (res) {
      return res.json().then(function (answer) {
        return { ok: res.ok, answer: answer };
      });
    });
  }
  /** Sets the text of `root`'s first `selector`, when there is one. */
  function setText(root, selector, text) {
    var el = root.querySelector(selector);
    if (el) el.textContent = String(text);
  }
  /**
   * A job's progress section: its data-state, the state's text (`selectors.state`), the count done
   * so far (`selectors.done`), the total (data-total) and the progress bar (data-bar).
   */
  function showProgress(section, selectors, state, done, total) {
    section.setAttribute('data-state', state);
    setText(section, selectors.state, state);
    setText(section, selectors.done, done);
    setText(section, '[data-total]', total);
    var bar = section.querySelector('[data-bar]');
    if (bar) {
      bar.max = Math.max(total, 1);
      bar.value = done;
    }
  }
  /** A table row with a cell for each value. */
  function row(values) {
    var tr = document.createElement('tr');
    values.forEach(function (value) {
      var td = document.createElement('td');
      td.textContent = String(value);
      tr.appendChild(td);
    });
    return tr;
  }
  /** Replaces a job log list's entries, written as the page first renders them. */
  function renderLog(list, entries) {
    if (!list) return;
    list.textContent = '';
    entries.forEach(function (entry) {
      var li = document.createElement('li');
      li.className = entry.level;
      li.textContent = entry.timestamp + ' ' + entry.level + ' ' + (entry.tableName ? entry.tableName + ' ' : '') + entry.message;
      list.appendChild(li);
    });
  }
  /**
   * Unless `section`'s data-state is already final: after `timing.first` ms calls `load` (a promise
   * of the progress, or of null) and `render`s what it gives, again every `timing.every` ms until
   * the state is final, and `timing.retry` ms after a failed load.
   */
  function pollProgress(section, load, render, timing) {
    if (isFinal(section.getAttribute('data-state'))) return;
    function next() {
      load()
        .then(function (progress) {
          if (progress) render(progress);
          if (!progress || !isFinal(progress.state)) window.setTimeout(next, timing.every);
        })
        .catch(function () {
          window.setTimeout(next, timing.retry);
        });
    }
    window.setTimeout(next, timing.first);
  }

  window.migratePage = {
    at: at,
    isFinal: isFinal,
    getJson: getJson,
    post: post,
    postForAnswer: postForAnswer,
    setText: setText,
    showProgress: showProgress,
    row: row,
    renderLog: renderLog,
    pollProgress: pollProgress,
  };
})();
