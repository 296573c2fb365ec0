// The run controller: schedules every task of the dataset over `concurrency` workers,
// with a built-in agent (in WebAssembly) or a live endpoint (fetch from WebAssembly),
// saves each finished task to IndexedDB, scores sessions as they complete, and
// assembles + re-scores the official result file at the end (identical to `wildtool run`).
import { LiveClient } from '../pkg/wildtool.js';
import { yieldToBrowser } from './dom.js';
import { ScoreBook, scoreText } from './scoring.js';

export const BUILTIN = new Set(['gold', 'baseline']);

export class Runner {
  /**
   * @param {object} o
   * @param o.ws       Workspace
   * @param o.store    RunStore
   * @param o.settings {provider, base_url, model, temperature, concurrency, timeout, retries, backoff}
   * @param o.key      API key (memory only)
   * @param o.onUpdate called with the runner after every settled task
   */
  constructor({ ws, store, settings, key, datasetSource, onUpdate }) {
    this.ws = ws;
    this.store = store;
    this.settings = settings;
    this.model = settings.model || settings.provider;
    this.onUpdate = onUpdate || (() => {});
    this.datasetSource = datasetSource;
    this.state = 'idle';
    this.records = [];
    this.incomplete = [];
    this.live = BUILTIN.has(settings.provider) ? null : new LiveClient(JSON.stringify({
      provider: settings.provider,
      base_url: settings.base_url,
      model: this.model,
      temperature: Number(settings.temperature) || 0,
      timeout: Number(settings.timeout) || 600,
      retries: settings.retries ?? 6,
      backoff: settings.backoff ?? 2,
    }), key || '');
    this.book = new ScoreBook(ws);
    this.progress = { total: 0, done: 0, resumed: 0, incomplete: 0, requests: 0, retries: 0, inTokens: 0, outTokens: 0, started: 0, elapsed: 0 };
    this.lastError = '';
    this.waiters = [];
  }

  /** Starts a new run, or resumes `saved` ({id, ...}) from its stored records. */
  async start(saved = null) {
    const tasks = JSON.parse(this.ws.tasks());
    this.sessionSize = new Map();
    for (const [line] of tasks) this.sessionSize.set(line, (this.sessionSize.get(line) || 0) + 1);
    this.bySession = new Map();
    if (saved) {
      this.id = saved.id;
      this.meta = saved;
      const lines = await this.store.records(this.id);
      const done = new Set(JSON.parse(this.ws.doneTasks(this.model, JSON.stringify([this.ws.checkpointHeader(this.model), ...lines]))).map(([l, t]) => `${l}:${t}`));
      for (const line of lines) this.addRecord(line, false);
      this.queue = tasks.filter(([l, t]) => !done.has(`${l}:${t}`));
      this.progress.resumed = tasks.length - this.queue.length;
      for (const line of [...this.bySession.keys()]) await this.scoreSessionIfComplete(line);
    } else {
      this.id = `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      this.queue = tasks;
    }
    this.meta = {
      ...(this.meta || {}),
      id: this.id,
      model: this.model,
      settings: { ...this.settings },
      fingerprint: this.ws.fingerprint(),
      dataset: this.datasetSource,
      status: 'running',
      created: this.meta?.created || Date.now(),
      updated: Date.now(),
      total: tasks.length,
    };
    await this.store.putRun(this.meta);
    this.progress.total = this.queue.length;
    this.progress.started = performance.now();
    this.state = 'running';
    this.onUpdate(this);
    const workers = Math.max(1, Math.min(64, Number(this.settings.concurrency) || 1));
    await Promise.all(Array.from({ length: workers }, () => this.worker()));
    return this.finish();
  }

  addRecord(line, fresh) {
    this.records.push(line);
    const rec = JSON.parse(line);
    const list = this.bySession.get(rec.line) || [];
    list.push(line);
    this.bySession.set(rec.line, list);
    return rec;
  }

  async scoreSessionIfComplete(line) {
    const list = this.bySession.get(line) || [];
    if (list.length < (this.sessionSize.get(line) || Infinity) || this.scored?.has(line)) return;
    this.scored = this.scored || new Set();
    const text = this.ws.sessionResult(this.model, line, JSON.stringify(list));
    if (!text) return;
    this.scored.add(line);
    await this.book.add(line + 1, text.trimEnd());
  }

  async worker() {
    while (this.queue.length && this.state !== 'cancelled') {
      if (this.state === 'paused') {
        await new Promise((r) => { this.waiters.push(r); });
        continue;
      }
      const [line, task] = this.queue.shift();
      let run;
      try {
        if (this.live) {
          run = JSON.parse(await this.live.runTask(this.ws, line, task));
        } else {
          run = JSON.parse(this.ws.runBuiltin(this.settings.provider, line, task));
          await yieldToBrowser();
        }
      } catch (err) {
        run = { line, task, record: null, incomplete: String(err?.message || err), requests: 0, retries: 0, input_tokens: 0, output_tokens: 0 };
      }
      await this.settle(run);
    }
  }

  async settle(run) {
    const p = this.progress;
    p.requests += run.requests;
    p.retries += run.retries;
    p.inTokens += run.input_tokens;
    p.outTokens += run.output_tokens;
    if (run.record) {
      p.done += 1;
      this.addRecord(run.record, true);
      await this.store.appendRecord(this.id, run.record);
      await this.scoreSessionIfComplete(run.line);
    } else if (this.state === 'cancelled') {
      p.total -= 1;
    } else {
      p.incomplete += 1;
      this.incomplete.push({ line: run.line, task: run.task, reason: run.incomplete });
      this.lastError = run.incomplete || '';
    }
    p.elapsed = (performance.now() - p.started) / 1000;
    this.meta.updated = Date.now();
    this.meta.done = this.records.length;
    this.onUpdate(this);
  }

  wakeAll() {
    const ws = this.waiters.splice(0);
    for (const w of ws) w();
  }

  eta() {
    const p = this.progress;
    const settled = p.done + p.incomplete;
    if (!settled || p.elapsed <= 0) return null;
    return (p.total - settled) / (settled / p.elapsed);
  }

  pause() {
    if (this.state !== 'running') return;
    this.state = 'paused';
    this.onUpdate(this);
  }

  resume() {
    if (this.state !== 'paused') return;
    this.state = 'running';
    this.live?.resume();
    this.wakeAll();
    this.onUpdate(this);
  }

  cancel() {
    this.state = 'cancelled';
    this.live?.cancel();
    this.wakeAll();
    this.onUpdate(this);
  }

  /** Assembles result.jsonl from the records and scores it afresh (CLI parity). */
  async finish() {
    const status = this.state === 'cancelled' ? 'cancelled' : (this.progress.incomplete ? 'incomplete' : 'done');
    const lines = [this.ws.checkpointHeader(this.model), ...this.records];
    this.resultText = this.ws.assembleResults(this.model, JSON.stringify(lines));
    this.scoredRun = await scoreText(this.ws, this.resultText);
    this.meta.status = status;
    this.meta.updated = Date.now();
    this.meta.summary = { outcomes: this.scoredRun.outcomes.length };
    await this.store.putRun(this.meta);
    this.state = status;
    this.finished = true;
    this.onUpdate(this);
    return this.scoredRun;
  }
}
