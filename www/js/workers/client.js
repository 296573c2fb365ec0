// The page's Web Workers, imported by js/io.js on first use: the lab module's worker
// (js/workers/lab-worker.js), where lab calls go as messages answered in order, and a worker
// of its own per upload (js/workers/score-worker.js). No message carries a key (the
// workers fetch only the modules and the dictionary, from this page's origin).
let worker = null;
let asked = 0;
const waiting = new Map();
// Score lines of big uploads as the worker made them (the last few), by id.
const keptFiles = new Map();
let keptId = 0;
let scoring = null;

function labWorker() {
  if (!worker) {
    worker = new Worker(new URL('./lab-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (e) => {
      const m = e.data;
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if ('err' in m) w.reject(new Error(m.err)); else w.resolve(m.ok);
    };
    worker.onerror = (e) => {
      for (const w of waiting.values()) w.reject(new Error(`the worker failed: ${e.message || 'unknown error'}`));
      waiting.clear();
      worker = null;
    };
  }
  return worker;
}

/** A lab call answered by the lab module's worker. */
export function ask(message) {
  const id = ++asked;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    labWorker().postMessage({ ...message, id });
  });
}

/** A big upload's score lines, kept as the worker made them. */
export function kept(id) {
  return keptFiles.get(id);
}

/**
 * Scores one upload in a worker of its own; a newer upload ends the older one's worker.
 * Resolves to [summary, score lines (text, or the id of the kept Blob), result text or
 * null]. Starting a worker takes the main thread a few tens of milliseconds, so the scoring
 * worker and the lab module's (whose charts follow) start in tasks of their own.
 */
export function scoreFile(message, progress) {
  if (scoring) scoring.stop(new Error('superseded by a newer upload'));
  return new Promise((resolve, reject) => {
    let w = null;
    const job = {
      stop(err) { if (w) w.terminate(); if (scoring === job) scoring = null; if (err) reject(err); },
    };
    scoring = job;
    setTimeout(() => {
      if (scoring !== job) return;
      w = new Worker(new URL('./score-worker.js', import.meta.url), { type: 'module' });
      w.onmessage = (e) => {
        const m = e.data;
        if ('progress' in m) { progress(m.progress); return; }
        job.stop();
        if ('err' in m) { reject(new Error(m.err)); return; }
        const r = m.ok;
        if (r[1] instanceof Blob) {
          keptFiles.set(++keptId, r[1]);
          if (keptFiles.size > 4) keptFiles.delete(keptFiles.keys().next().value);
          r[1] = keptId;
        }
        resolve(r);
      };
      w.onerror = (e) => job.stop(new Error(`the worker failed: ${e.message || 'unknown error'}`));
      w.postMessage(message);
      setTimeout(labWorker);
    });
  });
}
