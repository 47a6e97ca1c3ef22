// The wizard's progress page: the Cancel button goes once the run has ended (the page's state is
// kept current by migrate.js, which polls the progress route).
(function () {
  var section = document.querySelector('[data-progress]');
  if (!section) return;
  var FINAL = { completed: true, failed: true, cancelled: true };
  var check = function () {
    if (!FINAL[section.getAttribute('data-state')]) return;
    var cancel = section.querySelector('[data-cancel]');
    if (cancel) cancel.remove();
  };
  new MutationObserver(check).observe(section, { attributes: true, attributeFilter: ['data-state'] });
  check();
})();
