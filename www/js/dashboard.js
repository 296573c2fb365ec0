// The dashboard: headline rates with 95% intervals (RunReport), the Rust-rendered SVG
// charts (each with title, description, data table, SVG/PNG download) and the comparison
// with the published leaderboard and other runs loaded in the page.
import { dashboardCharts, leaderboardRows, runReport } from '../pkg/wildtool.js';
import { $, download, el, pct, svgNode, tableNode } from './dom.js';

export const DEFAULT_COMPARE = ['GPT-4o', 'Claude-4-Sonnet', 'Qwen3-8B'];
let leaderboard = null;

async function loadLeaderboard() {
  if (leaderboard !== null) return leaderboard;
  try {
    const res = await fetch('./data/paper-leaderboard.json');
    leaderboard = res.ok ? await res.text() : '';
  } catch {
    leaderboard = '';
  }
  return leaderboard;
}

/** Model names of the published leaderboard. */
export async function leaderboardModels() {
  const text = await loadLeaderboard();
  if (!text) return [];
  try {
    return (JSON.parse(text).models || []).map((m) => String(m.model));
  } catch {
    return [];
  }
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
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
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
  pngBtn.addEventListener('click', () => {
    const vb = (svg.getAttribute('viewBox') || '').split(/\s+/).map(Number);
    downloadPng(chart.svg, `${chart.id}.png`, Number(svg.getAttribute('width')) || vb[2] || 640, Number(svg.getAttribute('height')) || vb[3] || 400);
  });
  tools.append(details, svgBtn, pngBtn);
  fig.append(tools);
  return fig;
}

function metricCard(name, rate, note) {
  const card = el('div', { cls: 'metric' });
  card.append(
    el('span', { cls: 'metric-value', text: pct(rate?.rate) }),
    el('span', { cls: 'metric-name', text: name }),
    el('span', { cls: 'metric-ci', text: rate?.ci95 ? `95% CI ${pct(rate.ci95.lo)} – ${pct(rate.ci95.hi)}` : '' }),
    el('span', { cls: 'metric-note', text: note || (rate ? `${rate.correct} / ${rate.total}` : '') }),
  );
  return card;
}

/** Headline cards from a RunReport into `box`. */
export function renderHeadline(box, report) {
  const progress = report.progress?.Total;
  const boot = report.task_accuracy_bootstrap95;
  box.replaceChildren(
    metricCard('Task accuracy', report.task_accuracy,
      `${report.task_accuracy.correct} / ${report.task_accuracy.total}` + (boot ? ` · session bootstrap ${pct(boot.lo)} – ${pct(boot.hi)}` : '')),
    metricCard('Session accuracy', report.session_accuracy),
    metricCard('Optimal-path rate (Parallel + Mixed)', report.optimal?.Total || null),
    metricCard('Progress rate (Sequential + Mixed, node-based)',
      progress ? { rate: progress.ap_nodes } : null,
      progress ? `${progress.nodes} gold nodes · official step-based ${pct(progress.step_based)}` : 'no Sequential or Mixed tasks'),
  );
}

/**
 * Renders the dashboard for `run` ({label, outcomes}); `others` are comparison rows of
 * other runs loaded in the page; `models` the published models to compare with.
 */
export async function renderDashboard(run, others, models) {
  const outcomes = JSON.stringify(run.outcomes);
  const report = JSON.parse(runReport(outcomes));
  $('dash-empty').hidden = true;
  const partial = report.status === 'done' ? '' : ` · ${report.status}: rates are over scored tasks only`;
  $('dash-label').textContent = `${run.label} · ${report.sessions} sessions · ${report.tasks_scored} of ${report.tasks_total} tasks scored${partial}`;
  renderHeadline($('headline'), report);
  const lb = await loadLeaderboard();
  let rows = [];
  if (lb) {
    try { rows = JSON.parse(leaderboardRows(lb, JSON.stringify(models))); } catch { rows = []; }
  }
  const charts = JSON.parse(dashboardCharts(run.label, outcomes, JSON.stringify([...others, ...rows])));
  $('charts').replaceChildren(...charts.map(chartFigure));
  return report;
}
