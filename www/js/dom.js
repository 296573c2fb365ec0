// DOM helpers. Untrusted text (dataset, traces, model output, link content) only ever
// reaches the page through textContent or attribute values set with setAttribute.

import { formatPercent } from '../pkg/wildtool.js';

export const $ = (id) => document.getElementById(id);

/** Creates an element with optional class, text, attributes and children. */
export function el(tag, { cls, text, attrs, kids } = {}) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids || []) if (kid) node.append(kid);
  return node;
}

/** Shows a message in the global status bar. kind: info | ok | error | warn. */
export function setStatus(text, kind = 'info') {
  const s = $('status');
  s.textContent = text;
  s.dataset.kind = kind;
}

/** Parses Rust-generated SVG markup into a node owned by this document. */
export function svgNode(markup) {
  const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
    throw new Error('chart SVG could not be parsed');
  }
  for (const bad of root.querySelectorAll('script, foreignObject')) bad.remove();
  return document.importNode(root, true);
}

/** A data table from `{caption, headers, rows}`. */
export function tableNode(model, cls = 'data-table') {
  const table = el('table', { cls });
  if (model.caption) table.append(el('caption', { text: model.caption }));
  const thead = el('thead');
  thead.append(el('tr', { kids: model.headers.map((h) => el('th', { text: h, attrs: { scope: 'col' } })) }));
  const body = el('tbody');
  for (const row of model.rows) {
    body.append(el('tr', {
      kids: row.map((cell, i) => el(i === 0 ? 'th' : 'td', { text: cell, attrs: i === 0 ? { scope: 'row' } : {} })),
    }));
  }
  table.append(thead, body);
  return table;
}

/** Saves a Blob under `name` through a temporary link. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { attrs: { href: url, download: name } });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}

export const textBlob = (text, type = 'text/plain') => new Blob([text], { type: `${type};charset=utf-8` });

/** Resolves on the next macrotask: lets the browser paint and handle input. */
export const yieldToBrowser = () => new Promise((r) => setTimeout(r, 0));

/** A proportion as a percentage, formatted by the Rust core like the charts. */
export const pct = (x) => (x === null || x === undefined || Number.isNaN(x) ? '—' : formatPercent(x));

export function formatSeconds(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}
