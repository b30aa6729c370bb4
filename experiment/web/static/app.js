// The trial app of vcr experiment: consent has been given; this script
// shows the instructions, measures the display's refresh interval, and
// runs the trials the server hands out one at a time (GET /api/state,
// POST /api/respond). Stimulus and mask durations are realised by counting
// display frames with requestAnimationFrame; images are loaded and decoded
// before the fixation point appears. Plain JavaScript, no libraries; works
// in current Chromium and Firefox.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const conf = document.body.dataset;
  const refuseMobile = conf.refuseMobile === 'true';
  const minWidth = parseInt(conf.minWidth, 10) || 0;
  const minHeight = parseInt(conf.minHeight, 10) || 0;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));

  const BACKGROUND = '#808080';
  let frameMs = 0; // measured refresh interval
  let lastPhase = '';

  function say(text) {
    $('message').textContent = text;
  }

  // ---- environment checks

  function isMobile() {
    if (navigator.userAgentData && typeof navigator.userAgentData.mobile === 'boolean') {
      if (navigator.userAgentData.mobile) return true;
    }
    if (/Mobi|Android|iPhone|iPad|iPod|Windows Phone|Silk\/|Kindle/i.test(navigator.userAgent)) return true;
    // iPadOS reports itself as a Mac.
    return /Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1;
  }

  function tooSmall() {
    return window.innerWidth < minWidth || window.innerHeight < minHeight;
  }

  // waitForSize resolves once the window is at least minWidth × minHeight,
  // telling the participant what to do meanwhile.
  async function waitForSize(show) {
    while (tooSmall()) {
      show(`Please make your browser window larger (at least ${minWidth} × ${minHeight} pixels; now ` +
        `${window.innerWidth} × ${window.innerHeight}), for example by maximising it or leaving full-screen zoom.`);
      await new Promise((resolve) => window.addEventListener('resize', resolve, { once: true }));
    }
    show('');
  }

  async function waitVisible() {
    while (document.hidden) {
      await new Promise((resolve) => document.addEventListener('visibilitychange', resolve, { once: true }));
    }
  }

  // ---- network: retries with backoff on network errors, 429 and 5xx

  class SessionError extends Error {}
  class ImageError extends Error {}

  async function request(method, url, body) {
    let delay = 500;
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        const opts = { method, credentials: 'same-origin', cache: 'no-store', headers: { 'Accept': 'application/json' } };
        if (body !== undefined) {
          opts.headers['Content-Type'] = 'application/json';
          opts.headers['X-CSRF-Token'] = csrf;
          opts.body = JSON.stringify(body);
        }
        res = await fetch(url, opts);
      } catch (err) {
        // Lost connection: keep trying; the server keeps everything.
        note(`Connection problem — retrying… (${attempt})`);
        await sleep(delay);
        delay = Math.min(2 * delay, 10000);
        continue;
      }
      if (res.status === 429 || res.status >= 500) {
        if (res.status >= 500 && res.status !== 503 && attempt >= 8) {
          throw new Error(`The server failed (${res.status}). Please reload the page in a minute.`);
        }
        const ra = parseFloat(res.headers.get('Retry-After'));
        note(res.status === 429 ? 'Please wait a moment…' : `The server is busy — retrying… (${attempt})`);
        await sleep(Number.isFinite(ra) ? ra * 1000 : delay);
        delay = Math.min(2 * delay, 10000);
        continue;
      }
      note('');
      if (res.status === 401) throw new SessionError('Your session was not found. Please open the study link again.');
      if (res.status === 403) {
        // The security token no longer matches (e.g. the session was
        // resumed in another window): reload to get a fresh one, but not
        // in a loop (a misconfigured proxy refuses every request).
        let last = 0;
        try { last = Number(sessionStorage.getItem('vcr-reload')) || 0; } catch (e) { /* storage off */ }
        if (Date.now() - last > 60000) {
          try { sessionStorage.setItem('vcr-reload', String(Date.now())); } catch (e) { /* storage off */ }
          window.location.reload();
          await new Promise(() => {});
        }
        throw new Error('The server refused the request. Please reload the page; if that does not help, contact the researchers.');
      }
      return res;
    }
  }

  async function getState() {
    const res = await request('GET', '/api/state');
    if (!res.ok) throw new Error(`Could not load the study (${res.status}).`);
    return res.json();
  }

  // respond stores the answer; a 409 means it is stored already (or the
  // participant moved on in another window): the server's state decides.
  async function respond(answer) {
    const res = await request('POST', '/api/respond', answer);
    if (res.status === 409) return getState();
    if (!res.ok) {
      let msg = `${res.status}`;
      try { msg = (await res.json()).error || msg; } catch (e) { /* not JSON */ }
      throw new Error(`The answer was refused: ${msg}`);
    }
    return res.json();
  }

  // note shows a transient message on the trial stage.
  function note(text) {
    const h = $('hint');
    h.textContent = text;
    h.hidden = text === '';
  }

  // ---- display

  // measureFrame returns the refresh interval from 90
  // requestAnimationFrame deltas: the mean of those within ±50% of their
  // median. The median alone ignores dropped frames but is biased where
  // the deltas jitter unevenly (Firefox's alternate 16.2 and 17.2 ms at
  // 60 Hz have a median of 16.4 ms); the mean of the others is not.
  async function measureFrame() {
    for (;;) {
      await waitVisible();
      const deltas = [];
      let prev = await frame();
      while (deltas.length < 90) {
        const t = await frame();
        deltas.push(t - prev);
        prev = t;
      }
      deltas.sort((a, b) => a - b);
      const m = deltas[deltas.length >> 1];
      const near = deltas.filter((d) => d >= 0.5 * m && d <= 1.5 * m);
      const mean = near.reduce((a, b) => a + b, 0) / near.length;
      if (m >= 2 && m <= 100) return mean;
    }
  }

  async function loadImage(url) {
    const img = new Image();
    img.decoding = 'sync';
    const loaded = new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new ImageError('An image failed to load. Please check your connection and reload the page.'));
    });
    img.src = url;
    if (typeof img.decode === 'function') {
      try {
        await img.decode();
        loaded.catch(() => {});
        return img;
      } catch (e) { /* fall back to onload, which reports a failure */ }
    }
    await loaded;
    return img;
  }

  const canvas = $('canvas');
  const ctx = canvas.getContext('2d', { alpha: false });
  const GAP = 32;
  let layout = null; // {scale, w, h, n}

  // setLayout sizes the canvas for n images of w × h, scaled up by an
  // integer factor when small (CIFAR's 32 × 32).
  function setLayout(w, h, n) {
    const scale = Math.max(1, Math.floor(256 / Math.max(w, h)));
    const cw = n * w * scale + (n - 1) * GAP;
    const ch = h * scale;
    const dpr = window.devicePixelRatio || 1;
    if (!layout || layout.cw !== cw || layout.ch !== ch || layout.dpr !== dpr) {
      canvas.width = Math.round(cw * dpr);
      canvas.height = Math.round(ch * dpr);
      canvas.style.width = cw + 'px';
      canvas.style.height = ch + 'px';
    }
    layout = { scale, w, h, n, cw, ch, dpr };
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.imageSmoothingEnabled = scale === 1;
  }

  function clear() {
    ctx.fillStyle = BACKGROUND;
    ctx.fillRect(0, 0, layout.cw, layout.ch);
  }

  // The canvas starts black (it is opaque); paint it the background colour
  // so pauses before the first trial show no black square.
  setLayout(canvas.width, canvas.height, 1);
  clear();

  function drawFixation() {
    clear();
    ctx.fillStyle = '#000';
    ctx.font = 'bold 32px sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText('+', layout.cw / 2, layout.ch / 2);
  }

  function drawImages(imgs) {
    clear();
    const w = layout.w * layout.scale;
    const h = layout.h * layout.scale;
    imgs.forEach((img, i) => ctx.drawImage(img, i * (w + GAP), 0, w, h));
  }

  // ---- responses

  let buttonsFor = null;
  const keyMap = new Map();

  function makeButtons(categories) {
    const key = JSON.stringify(categories);
    if (buttonsFor === key) return;
    buttonsFor = key;
    const box = $('buttons');
    box.replaceChildren();
    keyMap.clear();
    for (const c of categories) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'answer';
      b.dataset.name = c.name;
      if (c.image) {
        const im = document.createElement('img');
        im.src = c.image;
        im.alt = '';
        b.append(im);
      }
      const label = document.createElement('span');
      label.textContent = c.label;
      b.append(label);
      if (c.key) {
        const k = document.createElement('kbd');
        k.textContent = c.key;
        b.append(k);
        keyMap.set(c.key.toLowerCase(), c.name);
      }
      box.append(b);
    }
  }

  // waitResponse resolves with the participant's choice once the buttons
  // are shown; rt is measured from stimulus onset (the rAF timestamp of
  // the frame that showed it).
  function waitResponse(onset, responseMs) {
    return new Promise((resolve) => {
      const box = $('buttons');
      let timer = 0;
      const finish = (name, input, ts) => {
        const now = ts > 0 && ts <= performance.now() + 1 ? ts : performance.now();
        // No answer button keeps the focus: a later space or Enter must
        // not answer the next trial.
        if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
        box.removeEventListener('click', onClick);
        document.removeEventListener('keydown', onKey);
        clearTimeout(timer);
        box.hidden = true;
        note('');
        resolve({ response: name, rt_ms: Math.max(0, now - onset), input });
      };
      const onClick = (e) => {
        const b = e.target.closest('button.answer');
        if (!b) return;
        finish(b.dataset.name, e.detail === 0 ? 'key' : 'mouse', e.timeStamp);
      };
      const onKey = (e) => {
        if (e.repeat || e.ctrlKey || e.altKey || e.metaKey) return;
        const name = keyMap.get(e.key.toLowerCase());
        if (name === undefined) return;
        e.preventDefault();
        finish(name, 'key', e.timeStamp);
      };
      box.addEventListener('click', onClick);
      document.addEventListener('keydown', onKey);
      if (responseMs > 0) {
        timer = setTimeout(() => note('Please answer faster.'), Math.max(0, onset + responseMs - performance.now()));
      }
    });
  }

  // ---- one trial

  async function runTrial(state) {
    const t = state.trial;
    const timing = state.timing;
    makeButtons(state.categories);
    // Preload and decode everything before the fixation point, once the
    // page is visible: the server judges the timing against when it
    // served the images (experiment.CheckTiming).
    await waitVisible();
    const imgs = await Promise.all(t.images.map(loadImage));
    const mask = await loadImage(t.mask);
    setLayout(imgs[0].naturalWidth, imgs[0].naturalHeight, imgs.length);

    // Fixation.
    drawFixation();
    const fixStart = await frame();
    while ((await frame()) - fixStart < timing.fixation_ms - frameMs / 2) { /* wait */ }

    // Stimulus for n frames, then the mask for m frames.
    const n = Math.max(1, Math.round(timing.stimulus_ms / frameMs));
    const m = Math.round(timing.mask_ms / frameMs);
    const box = $('buttons');
    const r = await new Promise((resolve) => {
      let count = 0;
      let on = 0;
      let off = 0;
      const step = (ts) => {
        if (count === 0) {
          drawImages(imgs);
          on = ts;
        } else if (count === n) {
          off = ts;
          if (m > 0) {
            drawImages(imgs.map(() => mask));
          } else {
            clear();
            box.hidden = false;
            resolve({ on, off, maskOff: ts });
            return;
          }
        } else if (count === n + m) {
          clear();
          box.hidden = false;
          resolve({ on, off, maskOff: ts });
          return;
        }
        count++;
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
    const shown = r.off - r.on;
    const choice = await waitResponse(r.on, timing.response_ms);
    return {
      index: t.index,
      response: choice.response,
      rt_ms: round(choice.rt_ms),
      shown_ms: round(shown),
      mask_ms: round(r.maskOff - r.off),
      refresh_hz: round(1000 / frameMs),
      frames: Math.max(1, Math.round(shown / frameMs)),
      input: choice.input,
    };
  }

  const round = (v) => Math.round(v * 1000) / 1000;

  // ---- interstitials and progress

  const phaseText = {
    practice: 'Practice: a few trials to get used to the task. After each answer you will see whether it was right.',
    qualification: 'The practice is over. Next come a few trials that check that the task is clear. From now on there is no feedback.',
    main: 'Thank you. The main part of the study begins now. Please keep your eyes on the cross before each image.',
  };

  // pause shows text on the stage until the participant clicks the button
  // or presses the space bar.
  function pause(text, label) {
    return new Promise((resolve) => {
      const box = $('buttons');
      box.replaceChildren();
      buttonsFor = null;
      const p = document.createElement('p');
      p.className = 'interstitial';
      p.textContent = text;
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = label + ' (space)';
      box.append(p, b);
      box.hidden = false;
      const done = () => {
        document.removeEventListener('keydown', onKey);
        box.hidden = true;
        box.replaceChildren();
        resolve();
      };
      const onKey = (e) => {
        if (e.key === ' ') {
          e.preventDefault();
          done();
        }
      };
      b.addEventListener('click', done, { once: true });
      document.addEventListener('keydown', onKey);
      b.focus();
    });
  }

  function showProgress(state) {
    const f = state.total > 0 ? state.done / state.total : 0;
    $('progress-bar').style.width = (100 * f).toFixed(1) + '%';
  }

  async function showFeedback(correct) {
    const f = $('feedback');
    f.textContent = correct ? 'Correct' : 'Wrong';
    f.className = 'feedback ' + (correct ? 'right' : 'wrong');
    f.hidden = false;
    await sleep(900);
    f.hidden = true;
  }

  // ---- main

  function finished(state) {
    return !state.trial;
  }

  function leave(state) {
    if (state.phase === 'done' || state.phase === 'screened_out' || state.phase === 'abandoned') {
      window.location.assign('/done');
      return;
    }
    say('There is nothing more to do. You may close this window.');
  }

  async function main() {
    const start = $('start');
    if (refuseMobile && isMobile()) {
      say('This study needs a desktop or laptop computer with a keyboard. Please open the study link on a computer.');
      start.hidden = true;
      return;
    }
    say('Loading…');
    let state = await getState();
    if (finished(state)) {
      leave(state);
      return;
    }
    await waitForSize(say);
    start.textContent = state.done > 0 ? 'Continue' : 'Start';
    start.disabled = false;
    say(state.done > 0 ? `Welcome back: you have done ${state.done} of ${state.total} trials.` : '');
    await new Promise((resolve) => start.addEventListener('click', resolve, { once: true }));
    start.disabled = true;

    $('panel').hidden = true;
    $('stage').hidden = false;
    note('Measuring your display…');
    frameMs = await measureFrame();
    note('');
    lastPhase = state.done > 0 ? state.phase : '';
    let failures = 0;

    while (!finished(state)) {
      showProgress(state);
      if (state.phase !== lastPhase && phaseText[state.phase]) {
        await pause(phaseText[state.phase], state.done > 0 ? 'Continue' : 'Start');
        makeButtons(state.categories);
      }
      lastPhase = state.phase;
      if (tooSmall()) await waitForSize(note);
      let answer;
      try {
        answer = await runTrial(state);
        failures = 0;
      } catch (err) {
        // An image did not load: the trial may have been answered in
        // another window, or the connection dropped. Ask the server.
        if (!(err instanceof ImageError) || ++failures > 5) throw err;
        note('Loading…');
        await sleep(1000 * failures);
        state = await getState();
        continue;
      }
      state = await respond(answer);
      if (typeof state.correct === 'boolean') await showFeedback(state.correct);
      await sleep(state.timing.inter_trial_ms);
    }
    showProgress(state);
    leave(state);
  }

  main().catch((err) => {
    $('stage').hidden = true;
    $('panel').hidden = false;
    $('start').hidden = true;
    say(err instanceof SessionError ? err.message : (err.message || String(err)));
  });
})();
