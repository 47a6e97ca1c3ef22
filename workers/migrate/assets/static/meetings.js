// The meeting comparison page: loads the meeting's races from /Meetings/Races and, on request, a
// race's runners from /Meetings/Runners, and shows each pairing field by field.
(function () {
  'use strict';
  // The app's own URLs, under the prefix it is mounted at (common.js).
  var at = window.migratePage.at;
  var section = document.querySelector('[data-races]');
  if (!section) return;

  var LABELS = {
    raceNumber: 'Race',
    name: 'Name',
    distance: 'Distance (m)',
    class: 'Class',
    raceType: 'Type',
    trackCondition: 'Track',
    startTime: 'Start (UTC)',
    runners: 'Runners',
    tabNumber: 'Tab',
    horse: 'Horse',
    jockey: 'Jockey',
    trainer: 'Trainer',
    barrier: 'Barrier',
    weight: 'Weight (kg)',
    startingPrice: 'SP',
    scratched: 'Scratched',
    finishingPosition: 'Placing',
    margin: 'Margin',
  };

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function shown(value) {
    if (value === null || value === undefined) return '—';
    if (value === true) return 'yes';
    if (value === false) return 'no';
    return String(value);
  }
  function getJson(url) {
    return fetch(at(url), { credentials: 'same-origin', headers: { accept: 'application/json' } }).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) throw new Error((body && body.message) || 'HTTP ' + res.status);
        return body;
      });
    });
  }

  // One table: a row per pairing and, under it, its fields side by side (differences marked).
  function comparisonTable(rows, kind, describe, onRow) {
    var table = el('table', null, 'grid compare');
    table.setAttribute('data-' + kind + '-table', '');
    var head = el('tr');
    ['', 'Status', 'Paired by', 'Source', 'Destination', 'Differences'].forEach(function (h) {
      head.appendChild(el('th', h));
    });
    var thead = el('thead');
    thead.appendChild(head);
    table.appendChild(thead);
    var body = el('tbody');
    rows.forEach(function (row) {
      var tr = el('tr', null, row.differs ? 'differs' : '');
      tr.setAttribute('data-status', row.status);
      tr.setAttribute('data-differs', String(row.differs));
      var differing = row.fields.filter(function (f) {
        return !f.same;
      });
      tr.appendChild(el('td', describe(row)));
      tr.appendChild(el('td', row.status));
      tr.appendChild(el('td', row.pairedBy || '—'));
      tr.appendChild(el('td', row.rsRaceId || row.rsRunnerId || '—'));
      tr.appendChild(el('td', row.qdgRaceId || row.qdgRunnerId || '—'));
      tr.appendChild(
        el(
          'td',
          row.status !== 'matched'
            ? 'one side only'
            : differing.length
              ? differing
                  .map(function (f) {
                    return LABELS[f.name] || f.name;
                  })
                  .join(', ')
              : 'same',
        ),
      );
      body.appendChild(tr);
      var detail = el('tr');
      var cell = el('td');
      cell.colSpan = 6;
      var fields = el('table', null, 'grid fields');
      row.fields.forEach(function (f) {
        var line = el('tr', null, f.same ? '' : 'differs');
        line.setAttribute('data-field', f.name);
        line.setAttribute('data-same', String(f.same));
        line.appendChild(el('th', LABELS[f.name] || f.name));
        line.appendChild(el('td', shown(f.source)));
        line.appendChild(el('td', shown(f.destination)));
        fields.appendChild(line);
      });
      var details = el('details');
      details.appendChild(el('summary', 'Fields'));
      details.appendChild(fields);
      cell.appendChild(details);
      if (onRow) onRow(row, cell);
      detail.appendChild(cell);
      body.appendChild(detail);
    });
    table.appendChild(body);
    return table;
  }

  function loadRunners(race, holder, button) {
    var url =
      '/Meetings/Runners?rsRaceId=' +
      encodeURIComponent(race.rsRaceId) +
      (race.qdgRaceId ? '&qdgRaceId=' + encodeURIComponent(race.qdgRaceId) : '');
    button.disabled = true;
    holder.textContent = 'Loading the runners…';
    getJson(url)
      .then(function (runners) {
        holder.textContent = '';
        holder.appendChild(
          comparisonTable(runners, 'runners', function (r) {
            return '#' + r.tabNumber + ' ' + (r.horse || '');
          }),
        );
      })
      .catch(function (error) {
        holder.textContent = 'The runners could not be loaded: ' + error.message;
        button.disabled = false;
      });
  }

  var rsMeeting = section.getAttribute('data-rs-meeting');
  var qdgMeeting = section.getAttribute('data-qdg-meeting');
  var state = section.querySelector('[data-races-state]');
  var list = section.querySelector('[data-races-list]');
  getJson(
    '/Meetings/Races?rsMeetingId=' + encodeURIComponent(rsMeeting) + (qdgMeeting ? '&qdgMeetingId=' + encodeURIComponent(qdgMeeting) : ''),
  )
    .then(function (races) {
      var differing = races.filter(function (r) {
        return r.differs;
      }).length;
      state.textContent =
        races.length === 0
          ? 'Neither side has races at this meeting.'
          : races.length + ' race(s), ' + (differing ? differing + ' with differences.' : 'no differences.');
      list.appendChild(
        comparisonTable(
          races,
          'races',
          function (r) {
            return 'Race ' + r.raceNumber;
          },
          function (race, cell) {
            if (!race.rsRaceId) return;
            var button = el('button', 'Compare runners', 'secondary');
            button.type = 'button';
            var holder = el('div');
            button.addEventListener('click', function () {
              loadRunners(race, holder, button);
            });
            cell.appendChild(button);
            cell.appendChild(holder);
          },
        ),
      );
    })
    .catch(function (error) {
      state.textContent = 'The races could not be loaded: ' + error.message;
      state.className = 'flash error';
    });
})();
