// Progressive enhancement for the form pages. Every feature here also works without it:
// tabs are links, the guide's dates, countries and races are links, the toolbar is a GET form.
(function () {
  'use strict';

  // A page of this service, fetched and parsed; an error or a redirect (to the login page) rejects,
  // and the caller then navigates to it instead.
  function fetchPage(url) {
    return fetch(url, { credentials: 'same-origin' })
      .then(function (res) {
        if (!res.ok || res.redirected) throw new Error('navigate');
        return res.text();
      })
      .then(function (html) {
        return new DOMParser().parseFromString(html, 'text/html');
      });
  }

  // Brief / detailed tabs: switch panels in place, keep the address in step.
  document.querySelectorAll('[data-tabs]').forEach(function (tabs) {
    var list = Array.prototype.slice.call(tabs.querySelectorAll('[role="tab"]'));
    // The server renders the active panel only; the other is fetched the first time it is shown.
    function load(panel) {
      var src = panel.getAttribute('data-src');
      if (!src) return;
      panel.removeAttribute('data-src');
      panel.setAttribute('aria-busy', 'true');
      panel.textContent = 'Loading…';
      fetchPage(src)
        .then(function (doc) {
          var fresh = doc.getElementById(panel.id);
          if (!fresh) throw new Error('navigate');
          panel.replaceChildren.apply(panel, Array.prototype.slice.call(fresh.childNodes));
          panel.removeAttribute('aria-busy');
        })
        .catch(function () {
          location.assign(src);
        });
    }
    function activate(tab, focus) {
      list.forEach(function (t) {
        var on = t === tab;
        t.setAttribute('aria-selected', on ? 'true' : 'false');
        t.tabIndex = on ? 0 : -1;
        var panel = document.getElementById(t.getAttribute('aria-controls'));
        if (panel) {
          panel.hidden = !on;
          if (on) load(panel);
        }
      });
      if (focus) tab.focus();
      history.replaceState(null, '', tab.href);
      document.querySelectorAll('input[name="tab"]').forEach(function (input) {
        input.value = tab.getAttribute('data-tab');
      });
    }
    list.forEach(function (tab, i) {
      tab.addEventListener('click', function (event) {
        if (event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        activate(tab, false);
      });
      tab.addEventListener('keydown', function (event) {
        var next = null;
        if (event.key === 'ArrowRight') next = list[(i + 1) % list.length];
        else if (event.key === 'ArrowLeft') next = list[(i - 1 + list.length) % list.length];
        else if (event.key === 'Home') next = list[0];
        else if (event.key === 'End') next = list[list.length - 1];
        if (next) {
          event.preventDefault();
          activate(next, true);
        }
      });
    });
  });

  // Form guide: dates, countries and races load into the page without a full reload.
  function swapTo(url, push, focusSelector) {
    var root = document.querySelector('[data-swap-root]');
    if (!root) return Promise.resolve(location.assign(url));
    root.setAttribute('aria-busy', 'true');
    return fetchPage(url)
      .then(function (doc) {
        var fresh = doc.querySelector('[data-swap-root]');
        if (!fresh) throw new Error('navigate');
        root.replaceWith(fresh);
        document.title = doc.title;
        if (push) history.pushState({ swap: true }, '', url);
        var target = focusSelector && fresh.querySelector(focusSelector);
        if (target) {
          target.tabIndex = -1;
          target.focus();
        }
      })
      .catch(function () {
        location.assign(url);
      });
  }
  document.addEventListener('click', function (event) {
    var link = event.target instanceof Element ? event.target.closest('a[data-swap]') : null;
    if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    swapTo(link.href, true, link.hasAttribute('data-race-link') ? '[data-guide-runners] h2' : null);
  });
  if (document.querySelector('[data-swap-root]')) {
    window.addEventListener('popstate', function () {
      swapTo(location.href, false, null);
    });
  }

  // Search box: hits as you type, from the public search lookup.
  var searchForm = document.querySelector('[data-search]');
  if (searchForm) {
    var input = searchForm.querySelector('input[name="q"]');
    var results = searchForm.querySelector('.search-results');
    var timer = null;
    var latest = 0;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var q = input.value.trim();
        var ticket = ++latest;
        if (q.length < 3) {
          results.textContent = '';
          return;
        }
        fetch('/form/api/search/?q=' + encodeURIComponent(q), { credentials: 'same-origin' })
          .then(function (res) {
            return res.json();
          })
          .then(function (body) {
            if (ticket !== latest) return;
            results.textContent = '';
            (body.horses || []).forEach(function (horse) {
              var li = document.createElement('li');
              var a = document.createElement('a');
              a.href = '/form/runner/' + horse.id + '/';
              a.textContent = horse.runner_name + ' (' + horse.country + ')';
              li.appendChild(a);
              results.appendChild(li);
            });
            if (!body.horses || body.horses.length === 0) {
              var none = document.createElement('li');
              none.textContent = 'No horse matches.';
              results.appendChild(none);
            }
          })
          .catch(function () {});
      }, 200);
    });
    input.addEventListener('keydown', function (event) {
      if (event.key === 'Escape') results.textContent = '';
    });
  }

  // Runner toolbar: a new date lists its meetings, a new meeting its races; a race opens it.
  var toolbar = document.querySelector('[data-toolbar]');
  if (toolbar) {
    var dateInput = toolbar.querySelector('[data-toolbar-date]');
    var meetingSelect = toolbar.querySelector('[data-toolbar-meeting]');
    var raceSelect = toolbar.querySelector('[data-toolbar-race]');
    function fill(select, items, valueOf, labelOf) {
      select.textContent = '';
      var blank = document.createElement('option');
      blank.value = '';
      blank.textContent = '–';
      select.appendChild(blank);
      items.forEach(function (item) {
        var option = document.createElement('option');
        option.value = valueOf(item);
        option.textContent = labelOf(item);
        select.appendChild(option);
      });
    }
    function getJson(url) {
      return fetch(url, { credentials: 'same-origin' }).then(function (res) {
        return res.json();
      });
    }
    // Only the newest answer fills a list: an older request finishing late must not overwrite it.
    var meetingsAsked = 0;
    var racesAsked = 0;
    dateInput.addEventListener('change', function () {
      var asked = ++meetingsAsked;
      var date = dateInput.value;
      fill(raceSelect, [], null, null);
      getJson('/form/api/meetings/?date=' + encodeURIComponent(date)).then(function (body) {
        if (asked !== meetingsAsked) return;
        fill(
          meetingSelect,
          body.meetings || [],
          function (m) {
            return m.meeting_id;
          },
          function (m) {
            return m.meeting_name;
          },
        );
        meetingSelect.setAttribute('data-loaded-for', date);
      });
    });
    meetingSelect.addEventListener('change', function () {
      var asked = ++racesAsked;
      var meeting = meetingSelect.value;
      var url = '/form/api/races/?date=' + encodeURIComponent(dateInput.value) + '&meeting=' + encodeURIComponent(meeting);
      getJson(url).then(function (body) {
        if (asked !== racesAsked) return;
        fill(
          raceSelect,
          body.races || [],
          function (r) {
            return String(r.race_id);
          },
          function (r) {
            return 'R' + r.race_number + ' ' + r.race_name + ' (' + r.distance + ', ' + r.class_level + ')';
          },
        );
        raceSelect.setAttribute('data-loaded-for', meeting);
      });
    });
    raceSelect.addEventListener('change', function () {
      if (raceSelect.value) toolbar.submit();
    });
  }
})();
