// Scoring in the page with the Rust scorer (the same code as `wildtool score`), plus the
// lazily fetched jieba dictionary for Chinese argument checks.
import { yieldToBrowser } from './dom.js';

const CJK = /[\u4e00-\u9fa5]/;
let segmenter = null;

/** Loads the jieba module and dictionary once per page. */
function loadSegmenter() {
  if (!segmenter) {
    segmenter = (async () => {
      const [mod, res] = await Promise.all([import('../pkg/jieba/wildtool_jieba.js'), fetch('./data/jieba-dict.txt')]);
      if (!res.ok) throw new Error(`cannot load the Chinese dictionary (HTTP ${res.status})`);
      await mod.default();
      const seg = new mod.Segmenter(new Uint8Array(await res.arrayBuffer()));
      document.body.dataset.dictionary = 'loaded';
      return (text) => seg.cut(text);
    })();
    segmenter.catch(() => { segmenter = null; });
  }
  return segmenter;
}

/** Installs jieba into `ws` when `text` holds Chinese characters (U+4E00–U+9FA5). */
export async function ensureDictionary(ws, text) {
  if (ws.hasDictionary() || !CJK.test(text)) return false;
  ws.setSegmenter(await loadSegmenter());
  return true;
}

/** Collects scored result lines; `finish()` sorts them as `wildtool score` does. */
export class ScoreBook {
  constructor(ws) {
    this.ws = ws;
    this.scorer = ws.scorer();
    this.entries = [];
    this.errors = [];
  }

  /** Scores one line (1-based `lineNo`); returns the entry or null when skipped. */
  async add(lineNo, text) {
    if (!text.trim()) return null;
    await ensureDictionary(this.ws, text);
    const r = JSON.parse(this.scorer.scoreLine(lineNo, text));
    if (!r.ok) {
      this.errors.push(r.error);
      return null;
    }
    const entry = { index: r.index, lineNo, id: r.id, scoreLine: r.score_line, outcomes: r.outcomes };
    this.entries.push(entry);
    return entry;
  }

  /** Outcomes so far, in score order. */
  outcomes() {
    return this.sorted().flatMap((e) => e.outcomes);
  }

  sorted() {
    return [...this.entries].sort((a, b) => a.index - b.index || a.lineNo - b.lineNo);
  }

  finish(model = '') {
    const sorted = this.sorted();
    const name = model || this.scorer.modelName() || 'unknown-model';
    return {
      model: name,
      outcomes: sorted.flatMap((e) => e.outcomes),
      // Built on demand: for a 200 MB upload this is a 200 MB string.
      scoreJsonl: () => sorted.map((e) => e.scoreLine).join('\n'),
      scoreLines: new Map(sorted.map((e) => [e.index, e.scoreLine])),
      metric: this.scorer.metricJson(name),
      stats: JSON.parse(this.scorer.stats()),
      errors: this.errors,
    };
  }
}

/** Scores a whole result text (small files: run exports, assembled runs). */
export async function scoreText(ws, text, model = '') {
  const book = new ScoreBook(ws);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    await book.add(i + 1, lines[i].replace(/\r$/, ''));
    if (i % 64 === 63) await yieldToBrowser();
  }
  return book.finish(model);
}

/**
 * Scores an official result file streamed from a File/Blob: read in chunks, scored line by
 * line, yielding to the event loop between chunks. `onProgress(bytesRead, total)`.
 */
export async function scoreStream(ws, file, onProgress = () => {}) {
  const book = new ScoreBook(ws);
  const CHUNK = 1 << 20;
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  let lineNo = 0;
  for (let offset = 0; offset < file.size; offset += CHUNK) {
    const buf = await file.slice(offset, offset + CHUNK).arrayBuffer();
    const text = carry + decoder.decode(buf, { stream: offset + CHUNK < file.size });
    const parts = text.split('\n');
    carry = parts.pop();
    let budget = performance.now();
    for (const part of parts) {
      lineNo += 1;
      await book.add(lineNo, part.replace(/\r$/, ''));
      if (performance.now() - budget > 30) {
        await yieldToBrowser();
        budget = performance.now();
      }
    }
    onProgress(Math.min(offset + CHUNK, file.size), file.size);
    await yieldToBrowser();
  }
  carry += decoder.decode();
  if (carry.length) {
    lineNo += 1;
    await book.add(lineNo, carry.replace(/\r$/, ''));
  }
  return book.finish();
}
