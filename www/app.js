// Thin glue between the page and the Rust core (www/pkg/wildtool.js, built by
// scripts/build-web.sh). Untrusted text is only ever inserted with textContent;
// Rust-generated SVG is parsed with DOMParser (image/svg+xml) and imported as nodes.
import init, {
  Workspace, endpointOrigin, keyAllowedFor, runSummary, scorerVersion, shareDecode, shareEncode, shareReadHeader, sniffFile, version,
} from './pkg/wildtool.js';
import { $, download, el, formatSeconds, pct, setStatus, textBlob } from './js/dom.js';
import { DEFAULT_COMPARE, leaderboardModels, renderDashboard, renderHeadline } from './js/dashboard.js';
import { BUILTIN, Runner } from './js/run.js';
import { scoreStream, scoreText } from './js/scoring.js';
import { RunStore } from './js/store.js';
import { showTraces } from './js/traces.js';
import { runReport } from './pkg/wildtool.js';

const OFFICIAL_DATA = 'https://raw.githubusercontent.com/yupeijei1997/WildToolBench/main/wild-tool-bench/data/Wild-Tool-Bench.jsonl';
const BUNDLED = './data/suite.jsonl';
// A remembered key is stored with the origin it was saved for ({origin, key}) and is only
// ever sent to that origin (the rule is Rust's keyAllowedFor). The unbound v1 entry is dropped.
const KEY_STORAGE = 'wildtool.rememberedKey';
const LEGACY_KEY_STORAGE = 'wildtool.apiKey';
let keyTyped = false;

function rememberedKey() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY_STORAGE) || 'null');
    return v && typeof v.origin === 'string' && typeof v.key === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** The key to send to `baseUrl`: a typed key, or the remembered one for its own origin only. */
function keyFor(baseUrl) {
  const rem = rememberedKey();
  const typed = $('m-key').value;
  const allowed = rem !== null && keyAllowedFor(rem.origin, baseUrl);
  if (rem && typed === rem.key && !keyTyped) return allowed ? rem.key : '';
  return typed;
}

/** Shows the remembered key in the key field only while the base URL is its origin. */
function syncRememberedKey() {
  const rem = rememberedKey();
  if (!rem || keyTyped) return;
  const allowed = keyAllowedFor(rem.origin, $('m-base').value);
  $('m-key').value = allowed ? rem.key : '';
  $('m-remember').checked = allowed;
}

function saveRememberedKey() {
  if (!$('m-remember').checked) {
    localStorage.removeItem(KEY_STORAGE);
    return;
  }
  try {
    localStorage.setItem(KEY_STORAGE, JSON.stringify({ origin: endpointOrigin($('m-base').value), key: $('m-key').value }));
  } catch (err) {
    $('m-remember').checked = false;
    setStatus(`The key cannot be remembered: ${err.message}`, 'error');
  }
}

const state = {
  ws: null,            // Workspace of the loaded dataset
  info: null,          // its info()
  shapes: null,        // its shapes() JSON text
  sessions: {},        // line → {id, tasks}
  source: null,        // {kind, url?, name?}
  run: null,           // displayed run: {label, model, outcomes, scoreLines, resultText, scoreJsonl, metric, records, settings}
  runner: null,
  others: [],          // comparison rows of other runs loaded in the page
  compare: [...DEFAULT_COMPARE],
  pendingLink: null,   // a share link waiting for its dataset
  store: null,
};

// ---------------------------------------------------------------- views

function showView(name) {
  for (const b of document.querySelectorAll('nav.tabs button')) {
    if (b.dataset.view === name) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
  }
  for (const v of document.querySelectorAll('main > .view')) v.hidden = v.id !== `view-${name}`;
  document.body.dataset.view = name;
}

// ---------------------------------------------------------------- dataset

async function fetchText(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new Error(`cannot fetch ${url}: ${err.message} (network error or the server does not allow CORS)`);
  }
  if (!res.ok) throw new Error(`cannot fetch ${url}: HTTP ${res.status}`);
  return res.text();
}

function renderProblems(ws, info) {
  const box = $('ds-problems');
  if (!info.errors && !info.warnings) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const list = JSON.parse(ws.problems(200));
  const table = el('table', { cls: 'data-table problems-table' });
  table.append(el('caption', { text: `${info.errors} error(s), ${info.warnings} warning(s)${list.length < info.errors + info.warnings ? ` (first ${list.length} shown)` : ''}` }));
  table.append(el('thead', { kids: [el('tr', { kids: ['Line', 'Session', 'Field', 'Severity', 'Problem'].map((h) => el('th', { text: h, attrs: { scope: 'col' } })) })] }));
  const body = el('tbody');
  for (const p of list) {
    body.append(el('tr', { cls: p.severity, kids: [p.line, p.id || '', p.path || '(line)', p.severity, p.message].map((c) => el('td', { text: c })) }));
  }
  table.append(body);
  box.replaceChildren(table);
  box.hidden = false;
}

/** Loads dataset text into a new Workspace and shows its summary and problems. */
async function useDataset(text, source, lang) {
  const ws = new Workspace(text, lang);
  const info = JSON.parse(ws.info());
  state.ws = ws;
  state.info = info;
  state.shapes = ws.shapes();
  state.source = source;
  state.sessions = {};
  for (const s of JSON.parse(ws.sessions())) state.sessions[s.line] = s;
  const name = source.kind === 'bundled' ? 'bundled suite' : source.kind === 'url' ? source.url : source.name;
  $('ds-info').textContent = `${name}: ${info.sessions} sessions, ${info.tasks} tasks, fingerprint ${info.fingerprint}` +
    (info.errors ? ` — ${info.errors} error(s): invalid sessions are still run and scored with the documented fallbacks.` : '');
  renderProblems(ws, info);
  document.body.dataset.dataset = info.fingerprint;
  if (state.pendingLink) return openLink(state.pendingLink, true);
  return false;
}

async function loadDatasetFromSetup() {
  const kind = document.querySelector('input[name="ds-kind"]:checked').value;
  const lang = $('ds-lang').value;
  let opened = false;
  try {
    if (kind === 'bundled') {
      setStatus('Loading the bundled suite…');
      opened = await useDataset(await fetchText(BUNDLED), { kind: 'bundled', lang }, lang);
    } else if (kind === 'url') {
      const url = $('ds-url').value.trim();
      if (!url) throw new Error('enter a dataset URL');
      setStatus(`Fetching ${url}…`);
      opened = await useDataset(await fetchText(url), { kind: 'url', url, lang }, lang);
    } else {
      const file = $('ds-file').files[0];
      if (!file) throw new Error('choose a dataset file');
      opened = await useDataset(await file.text(), { kind: 'upload', name: file.name, lang }, lang);
    }
    if (!opened) setStatus(`Dataset loaded: ${state.info.sessions} sessions, ${state.info.tasks} tasks.`, state.info.errors ? 'warn' : 'ok');
  } catch (err) {
    setStatus(`The dataset could not be loaded: ${err.message}`, 'error');
  }
}

function wireSetup() {
  const kinds = document.querySelectorAll('input[name="ds-kind"]');
  const sync = () => {
    const kind = document.querySelector('input[name="ds-kind"]:checked').value;
    $('ds-upload').hidden = kind !== 'upload';
    $('ds-url-box').hidden = kind !== 'url';
  };
  kinds.forEach((k) => k.addEventListener('change', sync));
  $('ds-official').addEventListener('click', () => { $('ds-url').value = OFFICIAL_DATA; });
  $('ds-load').addEventListener('click', loadDatasetFromSetup);
  $('ds-file').addEventListener('change', loadDatasetFromSetup);
  wireDrop($('drop-zone'), (file) => {
    document.querySelector('input[name="ds-kind"][value="upload"]').checked = true;
    sync();
    const dt = new DataTransfer();
    dt.items.add(file);
    $('ds-file').files = dt.files;
    loadDatasetFromSetup();
  });
  const syncProvider = () => {
    const p = $('m-provider').value;
    $('m-endpoint').hidden = BUILTIN.has(p);
    $('m-base').placeholder = p === 'anthropic' ? 'https://api.anthropic.com' : 'http://127.0.0.1:11434/v1';
    $('m-model').placeholder = p === 'anthropic' ? 'claude-sonnet-4-5' : 'qwen3:8b';
  };
  $('m-provider').addEventListener('change', syncProvider);
  syncProvider();
  localStorage.removeItem(LEGACY_KEY_STORAGE);
  $('m-base').addEventListener('input', syncRememberedKey);
  $('m-remember').addEventListener('change', saveRememberedKey);
  $('m-key').addEventListener('input', () => { keyTyped = true; });
  $('m-key').addEventListener('change', () => { if ($('m-remember').checked) saveRememberedKey(); });
  $('start-run').addEventListener('click', () => startRun());
}

function wireDrop(zone, onFile) {
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const file = e.dataTransfer?.files?.[0];
    if (file) onFile(file);
  });
}

// ---------------------------------------------------------------- runs

function settingsFromForm() {
  return {
    provider: $('m-provider').value,
    base_url: $('m-base').value.trim() || ($('m-provider').value === 'anthropic' ? 'https://api.anthropic.com' : ''),
    model: $('m-model').value.trim(),
    temperature: Number($('m-temp').value) || 0,
    concurrency: Math.max(1, Math.min(64, Number($('m-conc').value) || 1)),
    timeout: Math.max(1, Number($('m-timeout').value) || 600),
  };
}

function isNetworkFailure(text) {
  return /Failed to fetch|NetworkError|Load failed|CORS|TypeError/i.test(text || '');
}

function updateRunView(r) {
  const p = r.progress;
  const settled = p.done + p.incomplete;
  const share = p.total ? settled / p.total : 1;
  $('run-bar-fill').style.width = `${(share * 100).toFixed(1)}%`;
  $('run-bar').setAttribute('aria-valuenow', String(Math.round(share * 100)));
  const stats = [
    ['Tasks', `${settled} / ${p.total}` + (p.resumed ? ` (+${p.resumed} resumed)` : '')],
    ['ETA', r.state === 'running' ? formatSeconds(r.eta()) : '—'],
    ['Elapsed', formatSeconds(p.elapsed)],
    ['Tokens (in + out)', `${p.inTokens} + ${p.outTokens}`],
    ['Requests', String(p.requests)],
    ['Retries', String(p.retries)],
    ['Incomplete', String(p.incomplete)],
    ['State', r.state],
  ];
  $('run-stats').replaceChildren(...stats.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
  $('run-label').textContent = `${r.model} on ${state.info?.sessions ?? '?'} sessions`;
  $('pause-run').disabled = !(r.state === 'running' || r.state === 'paused');
  $('pause-run').textContent = r.state === 'paused' ? 'Resume' : 'Pause';
  $('cancel-run').disabled = !(r.state === 'running' || r.state === 'paused');
  if (r.lastError) {
    $('run-error').hidden = false;
    $('run-error').textContent = `Last transport failure: ${r.lastError}` + (isNetworkFailure(r.lastError) ? ' — see "Connecting to a local or hosted model" in Setup for CORS settings.' : '');
    if (isNetworkFailure(r.lastError)) $('cors-help').open = true;
  } else if (document.body.dataset.probe !== 'failed') {
    $('run-error').hidden = true;
  }
  // 'done' is set by startRun once the dashboard and exports show this run.
  document.body.dataset.runState = r.finished ? 'finishing' : r.state === 'cancelled' ? 'cancelling' : r.state;
  document.body.dataset.runOutcome = r.state;
  document.body.dataset.tasksSaved = String(r.records.length);
  const now = performance.now();
  if (!r.lastLive || now - r.lastLive > 400 || settled === p.total) {
    r.lastLive = now;
    const outcomes = r.book.outcomes();
    if (outcomes.length) renderHeadline($('run-live'), JSON.parse(runReport(state.ws.fillOutcomes(JSON.stringify(outcomes)))));
    else $('run-live').replaceChildren(el('p', { cls: 'live-note', text: 'Sessions are scored as soon as all their tasks finish; the first results appear here then.' }));
  }
}

/**
 * A quick reachability check of the endpoint (GET {base}/models, 5 s): a network or CORS
 * failure opens the help box at once instead of after the retries of the first task.
 */
async function probeEndpoint(base) {
  try {
    await fetch(`${base.replace(/\/+$/, '')}/models`, { method: 'GET', signal: AbortSignal.timeout(5000), credentials: 'omit' });
    document.body.dataset.probe = 'ok';
  } catch {
    document.body.dataset.probe = 'failed';
    $('cors-help').open = true;
    $('run-error').hidden = false;
    $('run-error').textContent = `Could not reach ${base} from this page (network error, or the server does not allow this origin — CORS). The run tries anyway; see "Connecting to a local or hosted model" in Setup.`;
  }
}

async function startRun(saved = null, opts = {}) {
  if (!state.ws) {
    setStatus('Load a dataset first.', 'error');
    return;
  }
  if (state.runner && ['running', 'paused'].includes(state.runner.state)) {
    setStatus('A run is already in progress.', 'warn');
    return;
  }
  const settings = saved ? saved.settings : settingsFromForm();
  if (!BUILTIN.has(settings.provider) && !settings.base_url) {
    setStatus('Enter the endpoint base URL.', 'error');
    return;
  }
  const key = opts.key ?? keyFor(settings.base_url);
  if (!BUILTIN.has(settings.provider)) await probeEndpoint(settings.base_url);
  let runner;
  try {
    runner = new Runner({ ws: state.ws, store: state.store, settings, key, datasetSource: state.source, onUpdate: updateRunView });
  } catch (err) {
    setStatus(`Cannot start: ${err.message}`, 'error');
    return;
  }
  state.runner = runner;
  $('resume-offer').hidden = true;
  showView('run');
  setStatus(`${saved ? 'Resuming' : 'Running'} ${runner.model}…`);
  try {
    const scored = await runner.start(saved);
    const label = runner.model;
    await showRun(scoredRun(scored, label, { resultText: runner.resultText, records: runner.records, settings, kind: 'run' }));
    const inc = runner.progress.incomplete;
    setStatus(`Run ${runner.state}: ${scored.outcomes.length} tasks scored` + (inc ? `, ${inc} incomplete (transport) — resume from the banner after a reload, or start again.` : '.'), inc ? 'warn' : 'ok');
    document.body.dataset.runState = 'done';
  } catch (err) {
    setStatus(`The run stopped: ${err.message}`, 'error');
    document.body.dataset.runState = 'done';
    document.body.dataset.runOutcome = 'error';
  }
}

async function offerResume() {
  const runs = (await state.store.runs()).filter((r) => ['running', 'paused', 'incomplete', 'cancelled'].includes(r.status));
  let saved = null;
  let count = 0;
  for (const r of runs) {
    count = (await state.store.records(r.id)).length;
    if (count > 0) { saved = r; break; }
  }
  if (!saved) return;
  $('resume-text').textContent = `${saved.model} on ${saved.dataset?.kind === 'bundled' ? 'the bundled suite' : saved.dataset?.url || saved.dataset?.name || 'a dataset'}: ${count} of ${saved.total} tasks saved (${saved.status === 'running' ? 'interrupted' : saved.status}).`;
  if (!BUILTIN.has(saved.settings?.provider)) {
    $('resume-text').append(document.createTextNode(' If the endpoint needs an API key, type it in Model below before resuming (keys are never stored with a run).'));
  }
  $('resume-offer').hidden = false;
  document.body.dataset.resume = 'offered';
  $('resume-run').onclick = async () => {
    if (!state.ws || state.ws.fingerprint() !== saved.fingerprint) {
      if (saved.dataset?.kind === 'bundled') {
        await useDataset(await fetchText(BUNDLED), saved.dataset, saved.dataset.lang || 'en');
      } else if (saved.dataset?.kind === 'url') {
        await useDataset(await fetchText(saved.dataset.url), saved.dataset, saved.dataset.lang || 'en');
      }
    }
    if (!state.ws || state.ws.fingerprint() !== saved.fingerprint) {
      setStatus('Load the dataset this run used (fingerprint ' + saved.fingerprint + ') in Setup, then resume.', 'error');
      return;
    }
    const needsKey = !BUILTIN.has(saved.settings.provider);
    startRun(saved, { key: needsKey ? keyFor(saved.settings.base_url) : '' });
  };
  $('discard-run').onclick = async () => {
    await state.store.deleteRun(saved.id);
    $('resume-offer').hidden = true;
    document.body.dataset.resume = 'discarded';
  };
}

// ---------------------------------------------------------------- dashboard, share, exports

/** A scored run (from the Rust scorer) plus where it came from, as `showRun` takes it. */
function scoredRun(scored, label, extra) {
  const { model, scoreLines, scoreJsonl, metric } = scored;
  // One outcome per dataset task (unscored ones marked incomplete): the list the report, the share link and the exports count.
  const outcomes = JSON.parse(state.ws.fillOutcomes(JSON.stringify(scored.outcomes)));
  return { label, model, outcomes, scoreLines, scoreJsonl, metric, ...extra };
}

async function showRun(run) {
  state.run = run;
  const report = await renderDashboard(run, state.others, state.compare);
  $('exports').hidden = false;
  for (const id of ['exp-result', 'exp-score', 'exp-metric']) $(id).disabled = !run[{ 'exp-result': 'resultText', 'exp-score': 'scoreJsonl', 'exp-metric': 'metric' }[id]];
  $('exp-run').disabled = !run.records && !run.resultText;
  showTraces(run, state.sessions);
  updateShare(run);
  showView('dashboard');
  document.body.dataset.dashboard = 'ready';
  return report;
}

function updateShare(run) {
  if (!state.ws) {
    $('share').hidden = true;
    return;
  }
  try {
    const outcomes = state.ws.fillOutcomes(JSON.stringify(run.outcomes));
    const header = {
      scorer_version: scorerVersion(),
      model_label: run.label,
      dataset_fingerprint: state.ws.fingerprint(),
      task_count: JSON.parse(state.shapes).length,
    };
    const link = shareEncode(JSON.stringify({ header, outcomes: JSON.parse(outcomes) }), state.shapes);
    const url = `${location.origin}${location.pathname}#${link}`;
    $('share-link').value = url;
    $('share-info').textContent = `${link.length} characters in the fragment (${url.length} in the whole link).`;
    $('share').hidden = false;
    document.body.dataset.share = 'ok';
  } catch (err) {
    $('share-link').value = '';
    $('share-info').textContent = `No share link for this run: ${err.message}`;
    $('share').hidden = false;
    document.body.dataset.share = 'error';
  }
}

function csvCell(v) {
  const s = v === null || v === undefined ? '' : String(v);
  // Quote, and defuse spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function perTaskCsv(run) {
  const head = ['session', 'id', 'task', 'task_type', 'subtype', 'transitions', 'correct', 'name_correct', 'optimal', 'steps_logged', 'nodes_done', 'nodes_total', 'error', 'incomplete'];
  const rows = run.outcomes.map((o) => [o.session, state.sessions[o.session]?.id ?? '', o.position, o.task_type, o.subtype ?? '', o.transitions, o.correct, o.name_correct, o.optimal, o.steps_logged, o.nodes_done, o.nodes_total, o.error ?? '', o.incomplete]);
  return [head, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

function safeName(s) {
  return String(s || 'run').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
}

function wireExports() {
  $('exp-run').addEventListener('click', () => {
    const r = state.run;
    const doc = {
      wildtool_run: 1,
      scorer: scorerVersion(),
      model: r.model,
      label: r.label,
      dataset_fingerprint: state.ws?.fingerprint() ?? null,
      settings: r.settings ? { ...r.settings, base_url: undefined } : null,
      records: r.records || null,
      result_jsonl: r.records ? null : r.resultText || null,
      outcomes: r.outcomes,
    };
    download(textBlob(JSON.stringify(doc), 'application/json'), `${safeName(r.label)}.wildtool-run.json`);
  });
  $('exp-result').addEventListener('click', () => download(textBlob(state.run.resultText, 'application/x-ndjson'), `${safeName(state.run.model)}_result.jsonl`));
  $('exp-score').addEventListener('click', () => {
    const text = typeof state.run.scoreJsonl === 'function' ? state.run.scoreJsonl() : state.run.scoreJsonl;
    download(textBlob(text, 'application/x-ndjson'), `${safeName(state.run.model)}_score.jsonl`);
  });
  $('exp-metric').addEventListener('click', () => download(textBlob(state.run.metric, 'application/json'), 'metric.json'));
  $('exp-csv').addEventListener('click', () => download(textBlob(perTaskCsv(state.run), 'text/csv'), `${safeName(state.run.label)}_tasks.csv`));
  $('add-compare').addEventListener('click', async () => {
    const row = JSON.parse(runSummary(`${state.run.label} (run ${state.others.length + 1})`, JSON.stringify(state.run.outcomes)));
    state.others.push(row);
    await renderDashboard(state.run, state.others, state.compare);
    setStatus(`Added ${state.run.label} to the comparison (${state.others.length} run(s)).`, 'ok');
  });
  $('copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('share-link').value);
      $('share-info').textContent = 'Link copied.';
    } catch {
      $('share-link').select();
    }
  });
}

async function wireCompare() {
  const models = await leaderboardModels();
  const box = $('compare-models');
  box.replaceChildren(...models.map((m) => {
    const input = el('input', { attrs: { type: 'checkbox', value: m } });
    input.checked = state.compare.includes(m);
    input.addEventListener('change', async () => {
      state.compare = [...box.querySelectorAll('input:checked')].map((i) => i.value);
      if (state.run) await renderDashboard(state.run, state.others, state.compare);
    });
    return el('label', { cls: 'check', kids: [input, document.createTextNode(` ${m}`)] });
  }));
}

// ---------------------------------------------------------------- share links

async function openLink(link, fromPending = false) {
  let header;
  try {
    header = JSON.parse(shareReadHeader(link));
  } catch (err) {
    state.pendingLink = null;
    setStatus(`This share link cannot be opened: ${err.message}`, 'error');
    document.body.dataset.share = 'error';
    return;
  }
  if (!state.ws || state.ws.fingerprint() !== header.dataset_fingerprint) {
    state.pendingLink = link;
    setStatus(`This share link (${header.model_label}, ${header.task_count} tasks) was made on another dataset (fingerprint ${header.dataset_fingerprint}). Load that dataset in Setup (upload or URL) to open it.`, 'warn');
    document.body.dataset.share = 'needs-dataset';
    if (!fromPending) showView('setup');
    return;
  }
  try {
    const run = JSON.parse(shareDecode(link, state.ws.fingerprint(), state.shapes));
    state.pendingLink = null;
    await showRun({ label: run.header.model_label, model: run.header.model_label, outcomes: run.outcomes, kind: 'share' });
    setStatus(`Loaded from a share link: ${run.header.model_label}, ${run.header.task_count} tasks (scorer ${run.header.scorer_version}).`, 'ok');
    document.body.dataset.share = 'opened';
    return true;
  } catch (err) {
    state.pendingLink = null;
    setStatus(`This share link cannot be opened: ${err.message}`, 'error');
    document.body.dataset.share = 'error';
  }
}

// ---------------------------------------------------------------- offline scoring

async function scoreFile(file) {
  if (!state.ws) {
    setStatus('Load the dataset the results were produced on (Setup) first.', 'error');
    return;
  }
  const info = $('offline-info');
  const bar = $('offline-bar-fill');
  document.body.dataset.offline = 'scoring';
  try {
    const kind = JSON.parse(sniffFile(new Uint8Array(await file.slice(0, 65536).arrayBuffer()), file.size));
    if (!kind.scorable) throw new Error(kind.message);
    let scored;
    let records = null;
    let resultText = null;
    let label;
    if (kind.name !== 'results') {
      const upload = JSON.parse(state.ws.uploadResults(new Uint8Array(await file.arrayBuffer())));
      resultText = upload.result_jsonl;
      scored = await scoreText(state.ws, resultText);
      label = upload.model;
    } else {
      scored = await scoreStream(state.ws, file, (done, total) => {
        const share = total ? done / total : 1;
        bar.style.width = `${(share * 100).toFixed(1)}%`;
        $('offline-bar').setAttribute('aria-valuenow', String(Math.round(share * 100)));
        info.textContent = `Scoring ${file.name}: ${(done / 1048576).toFixed(1)} of ${(total / 1048576).toFixed(1)} MB`;
      });
      label = scored.model;
    }
    bar.style.width = '100%';
    const skipped = scored.errors.length ? ` ${scored.errors.length} line(s) could not be scored: ${scored.errors.slice(0, 3).join('; ')}` : '';
    info.textContent = `${file.name}: ${scored.outcomes.length} tasks scored.${skipped}`;
    const report = await showRun(scoredRun(scored, label, {
      resultText: resultText ?? (file.size < 64 * 1048576 ? await file.text() : null),
      records,
      kind: 'offline',
    }));
    document.body.dataset.offline = 'done';
    setStatus(`Scored ${file.name} offline: task accuracy ${pct(report?.task_accuracy?.rate)}.`, 'ok');
  } catch (err) {
    document.body.dataset.offline = 'error';
    info.textContent = '';
    setStatus(`The file could not be scored: ${err.message}`, 'error');
  }
}

function wireOffline() {
  $('result-file').addEventListener('change', () => { const f = $('result-file').files[0]; if (f) scoreFile(f); });
  wireDrop($('result-drop'), scoreFile);
}

// ---------------------------------------------------------------- automation

/** Query parameters: dataset, lang, provider, base_url, model, concurrency, temperature, timeout, autorun=1. */
function applyQuery(params) {
  const set = (id, v) => { if (v !== null && v !== undefined) $(id).value = v; };
  const provider = params.get('provider');
  if (provider && [...$('m-provider').options].some((o) => o.value === provider)) {
    $('m-provider').value = provider;
    $('m-provider').dispatchEvent(new Event('change'));
  }
  set('m-base', params.get('base_url'));
  set('m-model', params.get('model'));
  set('m-conc', params.get('concurrency'));
  set('m-temp', params.get('temperature'));
  set('m-timeout', params.get('timeout'));
  syncRememberedKey();
  if (params.get('lang') === 'zh') $('ds-lang').value = 'zh';
}

async function initialDataset(params) {
  const ds = params.get('dataset');
  const lang = params.get('lang') === 'zh' ? 'zh' : 'en';
  if (!ds || ds === 'bundled' || ds === 'suite') {
    await useDataset(await fetchText(BUNDLED), { kind: 'bundled', lang }, lang);
    return;
  }
  const url = ds === 'official' ? OFFICIAL_DATA : new URL(ds, location.href).href;
  document.querySelector('input[name="ds-kind"][value="url"]').checked = true;
  $('ds-url').value = url;
  $('ds-url-box').hidden = false;
  await useDataset(await fetchText(url), { kind: 'url', url, lang }, lang);
}

// ---------------------------------------------------------------- main

async function main() {
  await init();
  document.body.dataset.wasm = 'ready';
  $('version').textContent = `wildtool ${version()} · scorer ${scorerVersion()} · WebAssembly core`;
  for (const b of document.querySelectorAll('nav.tabs button')) b.addEventListener('click', () => showView(b.dataset.view));
  wireSetup();
  wireExports();
  wireOffline();
  $('pause-run').addEventListener('click', () => {
    const r = state.runner;
    if (!r) return;
    if (r.state === 'paused') r.resume(); else r.pause();
  });
  $('cancel-run').addEventListener('click', () => state.runner?.cancel());
  state.store = await RunStore.open();
  await state.store.prune().catch(() => {});
  wireCompare();

  const params = new URLSearchParams(location.search);
  applyQuery(params);
  const hash = location.hash.slice(1);
  let link = null;
  if (hash) {
    try { link = decodeURIComponent(hash); } catch { link = hash; }
  }
  try {
    await initialDataset(params);
    setStatus(`Ready: ${state.info.sessions} sessions, ${state.info.tasks} tasks loaded. Pick a model and start a run.`, 'info');
  } catch (err) {
    setStatus(`The dataset could not be loaded: ${err.message}`, 'error');
  }
  if (link) {
    await openLink(link);
  } else {
    showView('setup');
  }
  await offerResume();
  if (params.get('autorun') === '1' && state.ws) {
    // A link chooses the endpoint, so it gets a remembered key only for that key's origin.
    await startRun(null, { key: keyFor($('m-base').value.trim()) });
  }
}

main().catch((err) => {
  document.body.dataset.wasm = 'error';
  setStatus(`The page could not start: ${err && err.message ? err.message : err}`, 'error');
});
