// Thin glue between the page and the Rust core (www/pkg/wildtool.js, built by
// scripts/build-web.sh). Untrusted text is only ever inserted with textContent;
// Rust-generated SVG is parsed with DOMParser (image/svg+xml) and imported as nodes.
import init, {
  chartTable, dashboardCharts, demoRun, leaderboardRows, runSummary,
  shareDecode, shareEncode, shareReadHeader, version,
} from './pkg/wildtool.js';

const COMPARE_MODELS = ['GPT-4o', 'Claude-4-Sonnet', 'Qwen3-8B'];
const HEADLINE = ['Task', 'Session', 'Single-Tool', 'Multi-Tool', 'Clarify', 'Chat'];

const $ = (id) => document.getElementById(id);

/** Creates an element with optional class and text. */
function el(tag, { cls, text, attrs } = {}) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

function setStatus(text, kind = 'info') {
  const s = $('status');
  s.textContent = text;
  s.dataset.kind = kind;
}

/** Parses SVG markup into a DOM node owned by this document. */
function svgNode(markup) {
  const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
    throw new Error('chart SVG could not be parsed');
  }
  return document.importNode(root, true);
}

function tableNode(model) {
  const table = el('table', { cls: 'data-table' });
  table.append(el('caption', { text: model.caption }));
  const head = el('tr');
  model.headers.forEach((h) => head.append(el('th', { text: h, attrs: { scope: 'col' } })));
  const thead = el('thead');
  thead.append(head);
  table.append(thead);
  const body = el('tbody');
  for (const row of model.rows) {
    const tr = el('tr');
    row.forEach((cell, i) => tr.append(el(i === 0 ? 'th' : 'td', { text: cell, attrs: i === 0 ? { scope: 'row' } : {} })));
    body.append(tr);
  }
  table.append(body);
  return table;
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { attrs: { href: url, download: name } });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function downloadPng(svgMarkup, name, width, height) {
  const url = URL.createObjectURL(new Blob([svgMarkup], { type: 'image/svg+xml' }));
  const img = new Image();
  img.onload = () => {
    const scale = 2;
    const canvas = el('canvas');
    canvas.width = width * scale;
    canvas.height = height * scale;
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, width, height);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => blob && download(blob, name), 'image/png');
  };
  img.onerror = () => URL.revokeObjectURL(url);
  img.src = url;
}

function chartFigure(chart) {
  const fig = el('figure', { cls: 'chart', attrs: { 'data-chart': chart.id } });
  const svg = svgNode(chart.svg);
  fig.append(svg);
  const tools = el('div', { cls: 'chart-tools' });
  const details = el('details');
  details.append(el('summary', { text: 'Data table' }), tableNode(chart.table));
  const svgBtn = el('button', { text: 'SVG', attrs: { type: 'button', 'aria-label': `Download ${chart.title} as SVG` } });
  svgBtn.addEventListener('click', () => download(new Blob([chart.svg], { type: 'image/svg+xml' }), `${chart.id}.svg`));
  const pngBtn = el('button', { text: 'PNG', attrs: { type: 'button', 'aria-label': `Download ${chart.title} as PNG` } });
  pngBtn.addEventListener('click', () => downloadPng(chart.svg, `${chart.id}.png`,
    Number(svg.getAttribute('width')) || 640, Number(svg.getAttribute('height')) || 400));
  tools.append(details, svgBtn, pngBtn);
  fig.append(tools);
  return fig;
}

function renderHeadline(summary) {
  const box = $('headline');
  box.replaceChildren();
  summary.values.forEach((v, i) => {
    const card = el('div', { cls: 'metric' });
    card.append(el('span', { cls: 'metric-value', text: v === null ? '—' : `${(v * 100).toFixed(1)}%` }),
      el('span', { cls: 'metric-name', text: `${HEADLINE[i]} accuracy` }));
    box.append(card);
  });
}

async function comparisonRows() {
  try {
    const res = await fetch('./pkg/paper-leaderboard.json');
    if (!res.ok) return [];
    return JSON.parse(leaderboardRows(await res.text(), JSON.stringify(COMPARE_MODELS)));
  } catch {
    return [];
  }
}

async function renderDashboard(run) {
  const label = run.header.model_label;
  const outcomes = JSON.stringify(run.outcomes);
  $('run-label').textContent = `${label} · ${run.outcomes.length} tasks · scorer ${run.header.scorer_version}`;
  renderHeadline(JSON.parse(runSummary(label, outcomes)));
  const charts = JSON.parse(dashboardCharts(label, outcomes, JSON.stringify(await comparisonRows())));
  const box = $('charts');
  box.replaceChildren(...charts.map(chartFigure));
  $('dashboard').hidden = false;
}

async function main() {
  await init();
  document.body.dataset.wasm = 'ready';
  $('version').textContent = `wildtool ${version()} · WebAssembly core`;

  // Until the scoring engine is wired in, the page shows a synthetic demo run.
  const demo = JSON.parse(demoRun());
  const shapes = JSON.stringify(demo.shapes);
  const fingerprint = demo.run.header.dataset_fingerprint;
  let run = demo.run;
  let note = 'Demo run with synthetic outcomes (the scoring engine is not wired in yet).';

  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash) {
    try {
      const header = JSON.parse(shareReadHeader(hash));
      run = JSON.parse(shareDecode(hash, fingerprint, shapes));
      note = `Loaded from a share link: ${header.model_label}, ${header.task_count} tasks.`;
    } catch (err) {
      setStatus(`This share link cannot be opened: ${err.message}`, 'error');
      document.body.dataset.share = 'error';
      await renderDashboard(run);
      return;
    }
  }

  const link = shareEncode(JSON.stringify(run), shapes);
  const back = JSON.parse(shareDecode(link, fingerprint, shapes));
  const same = JSON.stringify(back.outcomes) === JSON.stringify(run.outcomes);
  document.body.dataset.share = same ? 'ok' : 'mismatch';
  const url = `${location.origin}${location.pathname}#${link}`;
  $('share-link').value = url;
  $('share-info').textContent = `${link.length} characters in the fragment; round trip ${same ? 'verified' : 'FAILED'}.`;
  $('copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(url);
      $('share-info').textContent = 'Link copied.';
    } catch {
      $('share-link').select();
    }
  });
  $('share').hidden = false;
  setStatus(note, hash ? 'ok' : 'info');
  await renderDashboard(run);
}

main().catch((err) => {
  document.body.dataset.wasm = 'error';
  setStatus(`The page could not start: ${err && err.message ? err.message : err}`, 'error');
});
