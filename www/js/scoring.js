// Scoring in the page with the Rust scorer (the same code as `wildtool score`), plus the
// lazily fetched jieba dictionary for Chinese argument checks.
import { LineFeed } from '../pkg/wildtool.js';
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

/** Collects scored result lines; the Rust scorer keeps them in `wildtool score`'s order. */
export class ScoreBook {
  constructor(ws) {
    this.ws = ws;
    this.scorer = ws.scorer();
    this.scoreLines = new Map();
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
    this.scoreLines.set(r.index, r.score_line);
    return r;
  }

  /** A line the reader could not decode (named by the Rust line rule). */
  skip(lineNo, problem) {
    this.scorer.skipLine(lineNo, problem);
    this.errors.push(`result line ${lineNo}: ${problem}`);
  }

  /** Outcomes so far, in score order. */
  outcomes() {
    return JSON.parse(this.scorer.outcomes());
  }

  finish(model = '') {
    const mismatch = this.scorer.mismatch();
    if (mismatch) throw new Error(mismatch);
    const name = model || this.scorer.modelName() || 'unknown-model';
    return {
      model: name,
      outcomes: this.outcomes(),
      // Built on demand: for a 200 MB upload this is a 200 MB string.
      scoreJsonl: () => this.scorer.scoreJsonl(),
      scoreLines: this.scoreLines,
      metric: this.scorer.metricJson(name),
      stats: JSON.parse(this.scorer.stats()),
      errors: this.errors,
    };
  }
}

async function feedLines(book, json) {
  let budget = performance.now();
  for (const [lineNo, text, error] of JSON.parse(json)) {
    if (error !== null) book.skip(lineNo, error);
    else await book.add(lineNo, text);
    if (performance.now() - budget > 30) {
      await yieldToBrowser();
      budget = performance.now();
    }
  }
}

/** Scores a whole result text (small files: run exports, assembled runs). */
export async function scoreText(ws, text, model = '') {
  const book = new ScoreBook(ws);
  const feed = new LineFeed();
  await feedLines(book, feed.push(new TextEncoder().encode(text)));
  await feedLines(book, feed.finish());
  return book.finish(model);
}

/**
 * Scores an official result file streamed from a File/Blob: read in chunks, split and
 * decoded by the Rust line rule (a damaged line costs that line, named), scored line by
 * line, yielding to the event loop between chunks. `onProgress(bytesRead, total)`.
 */
export async function scoreStream(ws, file, onProgress = () => {}) {
  const book = new ScoreBook(ws);
  const feed = new LineFeed();
  const CHUNK = 1 << 20;
  for (let offset = 0; offset < file.size; offset += CHUNK) {
    const buf = new Uint8Array(await file.slice(offset, offset + CHUNK).arrayBuffer());
    await feedLines(book, feed.push(buf));
    onProgress(Math.min(offset + CHUNK, file.size), file.size);
    await yieldToBrowser();
  }
  await feedLines(book, feed.finish());
  return book.finish();
}
