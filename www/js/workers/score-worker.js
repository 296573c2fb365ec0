// One upload scored in a Web Worker of its own (started per upload and ended after it, so
// a newer upload cancels an older one at once and the scorer's memory goes with it):
// {file, dataset, lang, keep} -> {progress} now and then, then {ok: [summary, score lines
// (text when kept, else a Blob), result text or null]} or {err}. The upload scorer
// (crates/scorer) does the scoring; no decision is made here.
import init, { Scoring } from '../../pkg/scorer/wildtool_scorer.js';

const ready = init();
const SLICE = 4 << 20;
const PIECE = 8 << 20;

/** jieba's dictionary, fetched when a line first needs it. */
async function dictionary() {
  const res = await fetch(new URL('../../data/jieba-dict.txt', import.meta.url));
  if (!res.ok) throw new Error(`cannot load the Chinese dictionary (HTTP ${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
}

async function score(m) {
  await ready;
  const s = new Scoring(m.dataset, m.lang, m.keep, m.file.size);
  let shown = 0;
  const read = (at) => m.file.slice(at, Math.min(at + SLICE, m.file.size)).arrayBuffer();
  // The next slice is read while this one is scored.
  let next = read(0);
  for (let at = 0; ; at += SLICE) {
    const end = Math.min(at + SLICE, m.file.size);
    const last = end >= m.file.size;
    const bytes = new Uint8Array(await next);
    if (!last) next = read(end);
    if (s.push(bytes, last)) {
      s.setDictionary(await dictionary());
      s.resume();
    }
    // Progress at most every 16 MB (each one is a render on the page).
    if (last || end - shown >= 16 << 20) { shown = end; postMessage({ progress: end }); }
    if (last) break;
  }
  const summary = s.finish();
  if (m.keep) return [summary, s.scoreJsonl(), s.resultText() ?? null];
  // The score lines in pieces, as a Blob: the page's main thread never holds them as text.
  const parts = [];
  for (let p = s.scoreChunk(PIECE); p.length; p = s.scoreChunk(PIECE)) parts.push(p);
  return [summary, new Blob(parts, { type: 'application/x-ndjson' }), null];
}

self.onmessage = async (e) => {
  try {
    postMessage({ ok: await score(e.data) });
  } catch (err) {
    postMessage({ err: String(err && err.message ? err.message : err) });
  }
};
