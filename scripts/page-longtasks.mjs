#!/usr/bin/env node
// Scoring a big upload in the page, as a browser runs it: makes a result file of about
// SIZE MB (the mini fixture's result lines repeated; default 200), uploads it in headless
// Chromium against the mini dataset, and prints the longest main-thread task seen by a
// Long Tasks `PerformanceObserver` while scoring, the number of tasks over 50 ms, the
// page's scoring time and throughput, and `wildtool score` on the same file (the native
// CLI, whole process) for the ratio. A measurement, not a test.
// Usage: bash scripts/build-web.sh && node scripts/page-longtasks.mjs [--mb 200] [--wildtool target/release/wildtool]
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, openPage } from '../tests/e2e/helpers.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const opt = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const MB = Number(opt('mb', 200));
const WILDTOOL = opt('wildtool', join(ROOT, 'target/release/wildtool'));
const MINI = join(ROOT, 'tests/fixtures/mini.jsonl');

const work = await mkdtemp(join(tmpdir(), 'wildtool-longtasks-'));
const src = (await readFile(join(ROOT, 'tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl'), 'utf8')).trim().split('\n');
const copies = [];
let size = 0;
while (size < MB * 1048576) for (const l of src) { copies.push(l); size += l.length + 1; }
const path = join(work, 'result.jsonl');
await writeFile(path, `${copies.join('\n')}\n`);
copies.length = 0;

const server = await startServer();
const browser = await launchBrowser();
try {
  const { page } = await openPage(browser.context, server.url);
  await page.check('input[name="ds-kind"][value="upload"]');
  await page.setInputFiles('#ds-file', MINI);
  await page.waitForFunction(() => /8 sessions/.test(document.getElementById('ds-info')?.textContent || ''));
  await page.click('nav [data-view="offline"]');
  // The bundled server compresses each file on its first request, one at a time (brotli
  // at quality 11: about 30 s for jieba's 5 MB dictionary on this machine, 10 s for the lab
  // module), which a static host does ahead of time: ask for what the workers fetch once
  // first (not kept by the browser), so the time measured is the page's.
  await page.evaluate(() => Promise.all(['./data/jieba-dict.txt', './pkg/scorer/wildtool_scorer_bg.wasm', './pkg/scorer/wildtool_scorer.js',
    './pkg/lab/wildtool_lab_bg.wasm', './pkg/lab/wildtool_lab.js', './js/workers/client.js', './js/workers/score-worker.js', './js/workers/lab-worker.js']
    .map((u) => fetch(u, { cache: 'no-store' }).then((r) => r.arrayBuffer()))));
  await page.evaluate(() => {
    window.__tasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__tasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: false });
  });
  const t0 = await page.evaluate(() => performance.now());
  const started = Date.now();
  await page.setInputFiles('#result-file', path);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.offline), null, { timeout: 1_800_000, polling: 500 });
  const seconds = (Date.now() - started) / 1000;
  const state = await page.evaluate(() => document.body.dataset.offline);
  // Until the dashboard is drawn: scoring, then showing the run.
  await page.waitForTimeout(500);
  const tasks = (await page.evaluate(() => window.__tasks)).filter((t) => t.start >= t0);
  const longest = tasks.reduce((m, t) => Math.max(m, t.ms), 0);
  console.log(`page: ${state} in ${seconds.toFixed(1)} s (${(size / 1048576 / seconds).toFixed(1)} MB/s) for ${(size / 1048576).toFixed(0)} MB`);
  console.log(`long tasks (> 50 ms) on the main thread: ${tasks.length}; longest ${Math.round(longest)} ms; all: ${tasks.map((t) => Math.round(t.ms)).join(', ')}`);
  await page.close();
} finally {
  await browser.close();
  server.close?.();
}
try {
  const out = join(work, 'cli');
  const t = Date.now();
  execFileSync(WILDTOOL, ['score', '--dataset', MINI, '--results', path, '--out', out], { stdio: 'ignore' });
  const cli = (Date.now() - t) / 1000;
  console.log(`cli: wildtool score in ${cli.toFixed(1)} s (${(size / 1048576 / cli).toFixed(1)} MB/s) — whole process, wall clock`);
} catch (e) {
  console.log(`cli: not measured (${e.message.split('\n')[0]})`);
}
await rm(work, { recursive: true, force: true });
process.exit(0);
