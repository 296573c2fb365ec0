// The lab module (crates/lab) in a dedicated Web Worker: the page's heavy calls and the
// scoring of uploaded files run here, so the page's main thread only renders. Messages are
// answered in the order they arrive (a scoring between its slices): {id, kind: 'call', call, input} -> {id, ok} or
// {id, err}; {id, kind: 'score', file, dataset, lang, keep} -> {id, progress} per slice,
// then {id, ok: [summary, score lines, result text or null]}. No decision is made here.
import init, * as lab from '../pkg/lab/wildtool_lab.js';

const ready = init();
const SLICE = 1 << 20;
let dictionary = null;

/** jieba's dictionary, fetched once, when a line first needs it. */
function loadDictionary() {
  if (!dictionary) {
    dictionary = (async () => {
      const res = await fetch(new URL('../data/jieba-dict.txt', import.meta.url));
      if (!res.ok) throw new Error(`cannot load the Chinese dictionary (HTTP ${res.status})`);
      return new Uint8Array(await res.arrayBuffer());
    })();
    dictionary.catch(() => { dictionary = null; });
  }
  return dictionary;
}

let current = 0;

async function score(m) {
  current = m.id;
  const s = new lab.Scoring(m.dataset, m.lang, m.keep);
  try {
    for (let at = 0; ; at += SLICE) {
      // A newer upload supersedes this one.
      if (current !== m.id) throw new Error('superseded by a newer upload');
      const end = Math.min(at + SLICE, m.file.size);
      const bytes = new Uint8Array(await m.file.slice(at, end).arrayBuffer());
      const last = end >= m.file.size;
      if (s.push(bytes, last)) {
        s.setDictionary(await loadDictionary());
        s.resume();
      }
      postMessage({ id: m.id, progress: end });
      if (last) break;
    }
    const summary = s.finish();
    return [summary, s.scoreJsonl(), s.resultText() ?? null];
  } finally {
    s.free();
  }
}

// Calls are answered in the order they arrive, also while a file is being scored (the
// scoring yields between slices).
self.onmessage = async (e) => {
  const m = e.data;
  try {
    await ready;
    const ok = m.kind === 'score' ? await score(m) : lab[m.call](m.input);
    postMessage({ id: m.id, ok });
  } catch (err) {
    postMessage({ id: m.id, err: String(err && err.message ? err.message : err) });
  }
};
