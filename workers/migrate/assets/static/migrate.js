// The migration app's page behaviour: JSON calls carry the page's anti-forgery token in the
// RequestVerificationToken header; the progress page polls its JSON route.
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

  function post(url, body, type) {
    var headers = { RequestVerificationToken: token };
    if (type) headers['content-type'] = type;
    return fetch(at(url), { method: 'POST', headers: headers, body: body, credentials: 'same-origin' });
  }
  function postForm(url, fields) {
    return post(url, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
  }

  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });

  // Configuration form: test the connection with the values typed.
  document.querySelectorAll('[data-test-connection]').forEach(function (button) {
    button.addEventListener('click', function () {
      var form = button.closest('form');
      var out = form.querySelector('[data-test-result]');
      var value = function (name) {
        var input = form.querySelector('[name="' + name + '"]');
        return input ? input.value : '';
      };
      var body = {
        Host: value('Host'),
        Port: Number(value('Port')),
        Database: value('Database'),
        Username: value('Username'),
        Password: value('Password'),
      };
      if (value('Id')) body.Id = Number(value('Id'));
      out.textContent = 'Testing…';
      post('/api/configuration/test-connection', JSON.stringify(body), 'application/json')
        .then(function (res) {
          return res.json();
        })
        .then(function (answer) {
          out.textContent = (answer.success ? 'Connected: ' : 'Failed: ') + (answer.message || '');
          out.className = answer.success ? 'flash info' : 'flash error';
        })
        .catch(function () {
          out.textContent = 'The test could not be run.';
        });
    });
  });

  // Relationships: columns for the chosen tables, add and delete custom relationships.
  document.querySelectorAll('[data-columns-for]').forEach(function (select) {
    var target = select.form.querySelector('[name="' + select.getAttribute('data-columns-for') + '"]');
    function load() {
      fetch(at('/Migration/GetDestinationTableColumns?tableName=' + encodeURIComponent(select.value)), { credentials: 'same-origin' })
        .then(function (res) {
          return res.ok ? res.json() : [];
        })
        .then(function (columns) {
          target.innerHTML = '';
          columns.forEach(function (col) {
            var option = document.createElement('option');
            option.value = col.ColumnName;
            option.textContent = col.ColumnName + ' (' + col.DataType + ')';
            target.appendChild(option);
          });
        });
    }
    select.addEventListener('change', load);
    load();
  });
  document.querySelectorAll('form[data-add-relationship]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var fields = { sessionId: form.getAttribute('data-session') };
      ['childTable', 'childColumn', 'parentTable', 'parentColumn'].forEach(function (name) {
        fields[name] = form.querySelector('[name="' + name + '"]').value;
      });
      postForm('/Migration/AddCustomRelationship', fields)
        .then(function (res) {
          return res.json();
        })
        .then(function (answer) {
          form.querySelector('[data-relationship-result]').textContent = answer.message || '';
          if (answer.success) window.location.reload();
        });
    });
  });
  document.querySelectorAll('[data-delete-relationship]').forEach(function (button) {
    button.addEventListener('click', function () {
      postForm('/Migration/DeleteRelationship', {
        sessionId: button.getAttribute('data-session'),
        relationshipId: button.getAttribute('data-delete-relationship'),
      }).then(function () {
        window.location.reload();
      });
    });
  });

  // Progress: poll the JSON route until the run ends.
  var section = document.querySelector('[data-progress]');
  if (section) {
    var sessionId = section.getAttribute('data-progress');
    var FINAL = { completed: true, failed: true, cancelled: true };
    var cancel = section.querySelector('[data-cancel]');
    if (cancel) {
      cancel.addEventListener('click', function () {
        postForm('/Migration/CancelMigration', { sessionId: sessionId })
          .then(function (res) {
            return res.json();
          })
          .then(function (answer) {
            section.querySelector('[data-run-state]').textContent = answer.message || 'cancelling';
          });
      });
    }
    var cell = function (text) {
      var td = document.createElement('td');
      td.textContent = String(text);
      return td;
    };
    var render = function (p) {
      section.setAttribute('data-state', p.state);
      section.querySelector('[data-run-state]').textContent = p.state;
      section.querySelector('[data-rate]').textContent = String(Math.round(p.rowsPerSecond));
      section.querySelector('[data-eta]').textContent = p.etaSeconds == null ? '—' : Math.round(p.etaSeconds) + ' s';
      var body = section.querySelector('[data-tables]');
      body.innerHTML = '';
      p.tables.forEach(function (t) {
        var tr = document.createElement('tr');
        tr.setAttribute('data-table', t.table);
        var bar = document.createElement('progress');
        bar.max = Math.max(t.total, 1);
        bar.value = t.done;
        var barCell = document.createElement('td');
        barCell.appendChild(bar);
        tr.appendChild(cell(t.table));
        tr.appendChild(barCell);
        tr.appendChild(cell(t.done + ' / ' + t.total));
        tr.appendChild(cell(t.inserted));
        tr.appendChild(cell(t.updated));
        tr.appendChild(cell(t.skipped));
        tr.appendChild(cell(t.state));
        body.appendChild(tr);
      });
      var errors = section.querySelector('[data-errors]');
      errors.innerHTML = '';
      p.errors.forEach(function (e) {
        var li = document.createElement('li');
        li.textContent = e;
        errors.appendChild(li);
      });
    };
    var renderLogs = function (entries) {
      var list = section.querySelector('[data-log]');
      list.innerHTML = '';
      entries.forEach(function (l) {
        var li = document.createElement('li');
        li.className = l.level;
        li.textContent = l.timestamp + ' ' + l.level + ' ' + (l.tableName || '') + ' ' + l.message;
        list.appendChild(li);
      });
    };
    var poll = function () {
      Promise.all([
        fetch(at('/api/migration/progress/' + sessionId), { credentials: 'same-origin' }).then(function (res) {
          return res.ok ? res.json() : null;
        }),
        fetch(at('/api/migration/logs/' + sessionId + '?count=50'), { credentials: 'same-origin' }).then(function (res) {
          return res.ok ? res.json() : [];
        }),
      ])
        .then(function (answers) {
          if (answers[0]) render(answers[0]);
          renderLogs(answers[1]);
          if (!answers[0] || !FINAL[answers[0].state]) window.setTimeout(poll, 1000);
        })
        .catch(function () {
          window.setTimeout(poll, 3000);
        });
    };
    if (!FINAL[section.getAttribute('data-state')]) window.setTimeout(poll, 500);
  }
})();
