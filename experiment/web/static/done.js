// The completion page: send the participant back to the platform after a
// few seconds (the link on the page does the same).
'use strict';

(() => {
  const r = document.getElementById('redirect');
  if (!r) return;
  const url = r.dataset.url || '';
  if (/^https?:\/\//i.test(url)) {
    setTimeout(() => window.location.assign(url), 3000);
  }
})();
