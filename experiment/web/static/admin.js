// The admin page: polls /admin/api/progress every 5 s and redraws the
// tables and the accuracy-vs-Δv charts (SVG rendered by the server).
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const POLL_MS = 5000;

  function rows(id, list) {
    const body = $(id).tBodies[0];
    body.replaceChildren();
    for (const cells of list) {
      const tr = document.createElement('tr');
      for (const c of cells) {
        const td = document.createElement('td');
        td.textContent = String(c);
        tr.append(td);
      }
      body.append(tr);
    }
  }

  function entries(obj) {
    return Object.entries(obj || {}).sort((a, b) => a[0].localeCompare(b[0]));
  }

  const figures = new Map();

  function curves(list) {
    const box = $('curves');
    if (!list || list.length === 0) {
      box.textContent = 'The design has no corrupted stimuli.';
      return;
    }
    for (const c of list) {
      let f = figures.get(c.corruption);
      if (!f) {
        f = document.createElement('figure');
        const img = document.createElement('img');
        img.alt = `human accuracy vs Δv, ${c.corruption}`;
        const cap = document.createElement('figcaption');
        f.append(img, cap);
        box.append(f);
        figures.set(c.corruption, f);
      }
      const img = f.querySelector('img');
      if (img.getAttribute('src') !== c.url) img.src = c.url;
      f.querySelector('figcaption').textContent = `${c.corruption}: ${c.trials} trials`;
    }
  }

  async function poll() {
    try {
      const res = await fetch('/admin/api/progress', { credentials: 'same-origin', cache: 'no-store' });
      if (res.status === 401) {
        window.location.assign('/admin/login');
        return;
      }
      if (!res.ok) throw new Error(String(res.status));
      const p = await res.json();
      rows('participants', entries(p.participants));
      rows('totals', [['answered', p.trials_answered], ['timing misses', p.timing_misses]]);
      const ex = entries(p.exclusions);
      rows('exclusions', ex.length ? ex : [['none', '']]);
      rows('conditions', (p.conditions || []).map((c) => [c.corruption || 'clean', c.answered, c.planned]));
      rows('batches', (p.batches || []).map((b) => [b.id, b.active, b.completed]));
      curves(p.curves);
      $('updated').textContent = new Date(p.updated).toLocaleTimeString();
    } catch (err) {
      $('updated').textContent = `failed (${err.message}); retrying`;
    }
    setTimeout(poll, POLL_MS);
  }

  poll();
})();
