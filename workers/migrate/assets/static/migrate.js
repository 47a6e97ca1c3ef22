// The migration app's page behaviour: JSON calls carry the page's anti-forgery token in the
// RequestVerificationToken header; the progress page polls its JSON route (helpers: common.js).
(function () {
  'use strict';
  var page = window.migratePage;
  var at = page.at;
  function post(path, body, type) {
    return page.post(at(path), body, type);
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
    var load = function () {
      return Promise.all([
        page.getJson('/api/migration/progress/' + sessionId),
        page.getJson('/api/migration/logs/' + sessionId + '?count=50'),
      ]).then(function (answers) {
        page.renderLog(section.querySelector('[data-log]'), answers[1] || []);
        return answers[0];
      });
    };
    page.pollProgress(section, load, render, { first: 500, every: 1000, retry: 3000 });
  }
})();
