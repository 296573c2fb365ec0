// End-to-end: traces built for diagnosis on a 1,024-task run of the baseline agent — an
// error-class button on the dashboard opens the matching traces; search and sorting with
// their render times; a deep link opens the named task and step in a fresh page, focused
// and in view, and Back/Forward return to it; screenshots of a trace with argument
// differences at 390 and 1,400 px, light and dark, checked with axe-core.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

const DATASET = 'data/e2e-traces-1024.jsonl';

let server;
let browser;
let axeSource;

before(async () => {
  // 1,024 tasks: the bundled suite four times, sessions renumbered.
  const suite = (await readFile(join(ROOT, 'data/suite.jsonl'), 'utf8')).trim().split('\n');
  const lines = [];
  for (let copy = 0; copy < 4; copy += 1) {
    for (const line of suite) {
      const v = JSON.parse(line);
      v.id = `wild_tool_bench_${lines.length}`;
      lines.push(JSON.stringify(v));
    }
  }
  await writeFile(join(ROOT, 'www', DATASET), `${lines.join('\n')}\n`);
  [server, browser, axeSource] = await Promise.all([
    startServer(),
    launchBrowser(),
    readFile(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'),
  ]);
});

after(async () => {
  await browser?.close();
  server?.stop();
  await rm(join(ROOT, 'www', DATASET), { force: true });
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);

async function axe(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The rendered rows: key, summary text. */
const rowsOf = (page) => page.$$eval('#trace-list > li > details > summary', (s) => s.map((x) => x.textContent));
const countText = (page) => page.textContent('#trace-count');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs `action`, lets the page render (renders happen on the next animation frame) and
 * returns that render's time in ms (the `renderMs` hook: Rust builds the view, JS patches). */
async function renderAfter(page, action) {
  const before = await hook(page, 'renderMs');
  await action();
  await page.waitForFunction((b) => document.body.dataset.renderMs !== b, before, { timeout: 5_000 }).catch(() => {});
  return Number(await hook(page, 'renderMs'));
}

/** Time from an input event (value typed into `selector`) to the end of the frame that
 * shows its result: Rust's update and view, the DOM patch, and the wait for the frame. */
const typeAndPaint = (page, selector, value) => page.evaluate(async ([sel, v]) => {
  const input = document.querySelector(sel);
  const t0 = performance.now();
  input.value = v;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}, [selector, value]);

/** The same for a click. */
const clickAndPaint = (page, selector) => page.evaluate(async (sel) => {
  const t0 = performance.now();
  document.querySelector(sel).click();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}, selector);

test('traces on a 1,024-task run: class buttons, search, sort, deep links, screenshots', async () => {
  const { page, problems } = await openPage(browser.context, `${server.url}?dataset=${DATASET}&provider=baseline&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 300_000 });
  await drawn(page);
  assert.equal(JSON.parse(await hook(page, 'headline')).tasks_total, 1024);

  // The error taxonomy's classes, as buttons below its chart, open the matching traces.
  const buttons = await page.$$eval('figure[data-chart="errors"] .class-links button', (b) => b.map((x) => [x.dataset.class, x.textContent]));
  assert.ok(buttons.length > 0, 'the baseline agent fails in some class');
  const legend = await page.$$eval('figure[data-chart="errors"] table.data-table thead th', (t) => t.map((x) => x.textContent));
  await page.$eval('figure[data-chart="errors"]', (e) => e.scrollIntoView());
  await screenshot(page, 'dashboard-error-classes-1400-light.png', { fullPage: false });
  const [cls, label] = buttons[0];
  assert.ok(legend.includes(cls), `${cls} is a column of the chart's data table (${legend})`);
  const n = Number(label.match(/· (\d+) tasks?$/)[1]);
  const opened = await clickAndPaint(page, `figure[data-chart="errors"] .class-links button[data-class="${cls}"]`);
  await page.waitForFunction(() => document.body.dataset.view === 'traces');
  assert.equal(await page.$eval('#f-error', (s) => s.value), cls);
  assert.match(await countText(page), new RegExp(`^${n} of 1024 tasks match`));
  const rows = await rowsOf(page);
  assert.equal(rows.length, Math.min(n, 50));
  for (const r of rows) assert.ok(r.includes(` · ${cls}`), r);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'traces-title');
  // Keyboard: the class buttons are buttons (reachable and operable with the keyboard).
  await page.goBack();
  await page.waitForFunction(() => document.body.dataset.view === 'dashboard');
  await page.focus(`figure[data-chart="errors"] .class-links button[data-class="${cls}"]`);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.view === 'traces');

  // Search through messages, arguments and verdicts (their text comes from the lab
  // module, read when the traces are first shown); render times on 1,024 tasks.
  await page.waitForFunction(() => !document.getElementById('trace-reading'), null, { timeout: 60_000 });
  await page.selectOption('#f-error', '');
  const searchMs = [];
  for (const q of ['weather', 'error', 'zz-no-such-text', '"task 3"', 'budget', 'receipt', 'paris', 'failed']) {
    searchMs.push(await typeAndPaint(page, '#f-search', q));
  }
  assert.match(await countText(page), /^\d+ of 1024 tasks match/);
  await page.fill('#f-search', 'zz-no-such-text');
  await page.waitForFunction(() => /^0 of 1024/.test(document.getElementById('trace-count').textContent));
  await page.fill('#f-search', '');
  await page.waitForFunction(() => /^1024 of 1024/.test(document.getElementById('trace-count').textContent));

  // Sorting (the built-in agent records no tokens, so every row keeps its place).
  const sortMs = await renderAfter(page, () => page.selectOption('#f-sort', 'tokens'));
  assert.ok((await rowsOf(page))[0].startsWith('Session 1 (id '));
  await page.selectOption('#f-sort', 'error');
  await page.waitForFunction(() => document.querySelector('#trace-list > li > details > summary')?.textContent.includes(' · failed · '), null, { timeout: 10_000 }).catch(() => {});
  const classes = (await rowsOf(page)).map((r) => r.includes(' · failed · '));
  assert.ok(classes[0], 'failed tasks first when sorted by error class');
  await page.selectOption('#f-sort', 'task');
  await page.setViewportSize({ width: 390, height: 900 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'traces-filters-390-light.png', { fullPage: false });
  await page.setViewportSize({ width: 1360, height: 900 });
  console.log(`traces on 1,024 tasks (ms from the event to the painted frame): first open ${opened.toFixed(1)}; search ${searchMs.map((x) => x.toFixed(1)).join('/')} (median ${median(searchMs).toFixed(1)}); sort by tokens ${sortMs.toFixed(1)}`);

  // A deep link to session 201, task 3, step 1 (far beyond the first 50 rows), in a fresh page.
  const run = new URL(page.url()).searchParams.get('run');
  assert.ok(run, page.url());
  const link = `${server.url}?dataset=${DATASET}&view=traces&run=${encodeURIComponent(run)}&session=201&task=3&step=1`;
  const fresh = await openPage(browser.context, link);
  const p2 = fresh.page;
  await p2.waitForFunction(() => document.activeElement?.id === 'trace-201-3-1', null, { timeout: 60_000 });
  const inView = await p2.evaluate(() => {
    const r = document.activeElement.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  });
  assert.ok(inView, 'the named step is scrolled into view');
  assert.equal(await p2.$eval('#trace-201-3', (s) => s.parentElement.open), true);
  assert.match(await p2.textContent('#trace-list'), /… the linked task, row 803 of 1024:/);
  assert.match(p2.url(), /session=201&task=3&step=1/);
  assert.ok((await p2.textContent('#trace-201-3')).startsWith('Session 201 (id wild_tool_bench_200) · Task 3'));
  // The opened step's content comes from the lab module (loaded on demand).
  await p2.waitForFunction(() => document.getElementById('trace-201-3-1')?.parentElement.textContent.includes('Verdict:'), null, { timeout: 30_000 });
  // Back and Forward: to the dashboard and back to the named step.
  await p2.click('nav [data-view="dashboard"]');
  await p2.waitForFunction(() => document.body.dataset.view === 'dashboard');
  await p2.goBack();
  await p2.waitForFunction(() => document.body.dataset.view === 'traces');
  await p2.waitForFunction(() => document.activeElement?.id === 'trace-201-3-1');
  assert.match(p2.url(), /session=201&task=3&step=1/);
  await p2.goForward();
  await p2.waitForFunction(() => document.body.dataset.view === 'dashboard');
  assert.deepEqual(fresh.problems, []);
  await p2.close();

  // A trace with argument differences, for the screenshots and axe.
  const param = buttons.map(([c]) => c).find((c) => c.startsWith('Param'));
  assert.ok(param, `a parameter error class among ${buttons}`);
  await page.selectOption('#f-error', param);
  await page.click('#trace-list > li:first-child > details > summary');
  await page.waitForSelector('#trace-list .task-detail details.step');
  const steps = await page.$$eval('#trace-list .task-detail details.step > summary', (s) => s.map((x) => x.id));
  for (const id of steps) await page.click(`#${id}`);
  // Every opened step's content, rendered by the lab module.
  await page.waitForFunction((n) => document.querySelectorAll('#trace-list .task-detail details.step .step-body').length === n, steps.length, { timeout: 30_000 });
  await page.waitForSelector('#trace-list .d-changed, #trace-list .d-missing, #trace-list .d-extra');
  const marks = await page.$$eval('#trace-list .d-changed, #trace-list .d-missing, #trace-list .d-extra', (m) => m.map((x) => x.textContent));
  assert.ok(marks.every((t) => /^(changed|missing|extra): /.test(t)), `${marks}`);
  const report = [];
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [390, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(300);
      for (const v of await axe(page)) report.push(`${width}px ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
      if (width === 390) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (overflow > 0) report.push(`390px ${scheme}: the page scrolls sideways by ${overflow} px`);
      }
      await page.$eval('#trace-list > li:first-child', (e) => e.scrollIntoView());
      await screenshot(page, `traces-diff-${width}-${scheme}.png`, { fullPage: false });
    }
  }
  // The dashboard's glossary, open.
  await page.click('nav [data-view="dashboard"]');
  await page.click('#glossary > summary');
  await page.waitForFunction(() => document.getElementById('glossary').open);
  // Its text comes from the lab module, read when it is unfolded.
  await page.waitForFunction(() => document.querySelectorAll('#glossary dl dt').length === 11, null, { timeout: 30_000 });
  for (const v of await axe(page)) report.push(`glossary: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
  await page.$eval('#glossary', (e) => e.scrollIntoView());
  await screenshot(page, 'dashboard-glossary-1400-dark.png', { fullPage: false });
  assert.deepEqual(report, []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('search stays fast on a 1,024-task run with full logs (the gold agent)', async () => {
  const { page, problems } = await openPage(browser.context, `${server.url}?dataset=${DATASET}&provider=gold&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 300_000 });
  const opened = await clickAndPaint(page, 'nav [data-view="traces"]');
  await page.waitForFunction(() => /^1024 of 1024 tasks match/.test(document.getElementById('trace-count')?.textContent || ''));
  await page.waitForFunction(() => !document.getElementById('trace-reading'), null, { timeout: 60_000 });
  const searchMs = [];
  const counts = [];
  for (const q of ['ledger', 'prepare_to_answer', 'zz-no-such-text', '"task 3"', 'correct', 'receipt', 'budget', 'march']) {
    searchMs.push(await typeAndPaint(page, '#f-search', q));
    counts.push((await countText(page)).split(' ')[0]);
  }
  assert.equal(counts[2], '0');
  assert.equal(counts[4], '1024', 'every gold task is correct');
  console.log(`gold run, 1,024 tasks (ms from the event to the painted frame): first open of the traces ${opened.toFixed(1)}; search ${searchMs.map((x) => x.toFixed(1)).join('/')} (median ${median(searchMs).toFixed(1)}); matches ${counts.join('/')}`);
  assert.ok(median(searchMs) < 250, `search is interactive: ${searchMs}`);
  assert.deepEqual(problems, []);
  await page.close();
});
