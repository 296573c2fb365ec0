// End-to-end: every view checked with axe-core (no serious or critical violations), at
// phone and desktop widths, light and dark; no sideways scrolling at 390 px; chart text
// at least 11 px; keyboard focus moves to what changed and is always visible.
// Screenshots of every view go to test-artifacts/ (not in git).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

let server;
let browser;
let axeSource;

before(async () => {
  [server, browser, axeSource] = await Promise.all([
    startServer(),
    launchBrowser(),
    readFile(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'),
  ]);
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);

/** Serious and critical axe violations on the current page. */
async function axe(page) {
  // Evaluated through the devtools protocol, so the page's CSP does not apply to it.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The smallest chart text on screen, in CSS pixels. */
const smallestChartText = (page) => page.evaluate(() => {
  let min = Infinity;
  for (const t of document.querySelectorAll('.chart svg text')) {
    if (!t.textContent.trim()) continue;
    const size = parseFloat(getComputedStyle(t).fontSize);
    const svg = t.ownerSVGElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    min = Math.min(min, size * scale);
  }
  return min;
});

const VIEWS = ['setup', 'run', 'dashboard', 'traces', 'offline', 'history', 'compare', 'generate', 'sweep'];

test('every view passes axe at 390 and 1,400 px, light and dark; screenshots', async () => {
  const { page, problems } = await openPage(browser.context, `${server.url}?provider=baseline&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
  // A generated suite and a small sweep, so those views show their results.
  await page.click('nav [data-view="generate"]');
  await page.fill('#gen-sessions', '8');
  await page.click('#generate');
  await page.waitForFunction(() => document.body.dataset.generate === 'done', null, { timeout: 60_000 });
  await page.click('#generated details > summary');
  await page.click('nav [data-view="sweep"]');
  await page.fill('#sweep-levels', '0,2');
  await page.fill('#sweep-per-level', '4');
  await page.click('#sweep-start');
  await page.waitForFunction(() => document.body.dataset.sweep === 'done', null, { timeout: 120_000 });
  // Open a trace, so the traces view shows steps.
  await page.click('nav [data-view="traces"]');
  await page.click('#trace-list > li:first-child > details > summary');
  await page.waitForSelector('#trace-list .task-detail');
  await page.click('#trace-list details.step > summary');
  const report = [];
  const timings = {};
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [390, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      for (const view of VIEWS) {
        await page.click(`nav [data-view="${view}"]`);
        await page.waitForFunction((v) => document.body.dataset.view === v, view);
        await page.waitForTimeout(50);
        // A render of this view (the hook reports the last frame: build in Rust, patch in JS).
        await page.evaluate(() => window.dispatchEvent(new Event('resize')));
        await page.waitForTimeout(400);
        (timings[`${view} ${width}px`] ||= []).push(Number(await hook(page, 'renderMs')));
        const violations = await axe(page);
        for (const v of violations) report.push(`${view} ${width}px ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
        if (width === 390) {
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          if (overflow > 0) report.push(`${view} 390px ${scheme}: the page scrolls sideways by ${overflow} px`);
          if (view === 'dashboard') {
            const min = await smallestChartText(page);
            if (min < 11) report.push(`dashboard 390px ${scheme}: chart text ${min.toFixed(1)} px`);
          }
        }
        await screenshot(page, `view-${view}-${width}-${scheme}.png`);
      }
    }
  }
  console.log(`render times (ms, light/dark): ${Object.entries(timings).map(([k, v]) => `${k} ${v.join('/')}`).join('; ')}`);
  assert.deepEqual(report, []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the dashboard\'s first screen shows the headline and charts; exports and sharing come below', async () => {
  const { page } = await openPage(browser.context, `${server.url}?provider=gold&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
  // The charts are drawn by the lazily loaded lab module.
  await page.waitForSelector('#charts', { timeout: 60_000 });
  for (const width of [390, 1400]) {
    await page.setViewportSize({ width, height: 900 });
    const top = (sel) => page.$eval(sel, (e) => e.getBoundingClientRect().top + window.scrollY);
    const [headline, charts, exports, share] = [await top('#headline'), await top('#charts'), await top('#exports'), await top('#share')];
    assert.ok(headline < 900 && charts < 900, `headline ${headline}, charts ${charts} on the first screen at ${width}px`);
    assert.ok(exports > charts && share > charts, 'exports and sharing below the charts');
  }
  await page.close();
});

test('keyboard: Start moves focus to the run view, focus is always visible, no invisible tab stops', async () => {
  const { page } = await openPage(browser.context, `${server.url}?provider=gold`);
  await page.waitForFunction(() => document.body.dataset.dataset);
  await page.focus('#start-run');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.view === 'run');
  await page.waitForFunction(() => document.activeElement?.id === 'run-title' || document.activeElement?.id === 'dashboard-title');
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
  // The dashboard's charts are drawn by the lab module (a loading note until they arrive).
  await drawn(page);
  // Walk the whole tab order: every stop is visible and shows a focus indicator.
  await page.evaluate(() => document.activeElement?.blur());
  const seen = new Set();
  const bad = [];
  for (let i = 0; i < 200; i += 1) {
    await page.keyboard.press('Tab');
    const info = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const key = `${el.tagName}#${el.id}.${el.className}:${el.textContent.slice(0, 30)}:${Math.round(r.top + window.scrollY)}`;
      const visible = r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.opacity !== '0';
      const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
      return { key, visible, ring };
    });
    if (!info) break;
    if (seen.has(info.key)) break;
    seen.add(info.key);
    if (!info.visible) bad.push(`invisible tab stop: ${info.key}`);
    if (!info.ring) bad.push(`no visible focus: ${info.key}`);
  }
  assert.ok(seen.size > 10, `tab stops: ${seen.size}`);
  assert.deepEqual(bad, []);
  assert.equal(await hook(page, 'runOutcome'), 'done');
  await page.close();
});

test('the lab views (comparison, ranked leaderboard, repeated trials) pass axe at 390 and 1,400 px, light and dark; screenshots', async () => {
  // A browser of its own, where the bundled suite is listed as the official dataset (so
  // the ranked leaderboard shows) and the history holds gold, baseline and baseline × 3 trials.
  const fresh = await launchBrowser();
  try {
    let fp = null;
    await fresh.context.route('**/data/official-datasets.json', (r) => (fp
      ? r.fulfill({ contentType: 'application/json', body: JSON.stringify({ format: 'wildtool-official-datasets-1', datasets: [{ name: 'WildToolBench (test)', file: 'suite.jsonl', source: { repository: 'https://example.invalid/r', path: 'suite.jsonl', commit: '0123456789abcdef0123456789abcdef01234567' }, fingerprint: fp, git_blob: null, sessions: 64, tasks: 256 }] }) })
      : r.continue()));
    const { page, problems } = await openPage(fresh.context, server.url);
    await page.waitForFunction(() => document.body.dataset.dataset);
    fp = await hook(page, 'dataset');
    await page.goto(`${server.url}?provider=gold&autorun=1`);
    await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 120_000 });
    for (const trials of ['1', '3']) {
      await page.click('nav [data-view="setup"]');
      await page.selectOption('#m-provider', 'baseline');
      await page.fill('#m-trials', trials);
      await page.dispatchEvent('#m-trials', 'change');
      await page.click('#start-run');
      await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 240_000 });
    }
    await page.waitForFunction(() => document.body.dataset.trials === 'ready' && document.body.dataset.leaderboard === 'shown' && document.getElementById('leaderboard-table'), null, { timeout: 60_000 });
    // The comparison of the two single-trial runs (the history is newest first).
    await page.click('nav [data-view="compare"]');
    const boxes = await page.$$('#compare-picker input[type="checkbox"]');
    assert.equal(boxes.length, 3);
    await boxes[1].check();
    await boxes[2].check();
    await page.waitForFunction(() => document.body.dataset.compare === 'ready', null, { timeout: 60_000 });
    const report = [];
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1400]) {
        await page.setViewportSize({ width, height: 900 });
        for (const view of ['dashboard', 'compare']) {
          await page.click(`nav [data-view="${view}"]`);
          await page.waitForFunction((v) => document.body.dataset.view === v, view);
          // Charts are drawn for the screen's width: wait for the lab module's answer.
          await page.evaluate(() => window.dispatchEvent(new Event('resize')));
          await page.waitForFunction((v) => (v === 'compare' ? document.body.dataset.compare === 'ready' : document.body.dataset.trials === 'ready' && document.getElementById('leaderboard-table')), view, { timeout: 60_000 });
          await page.waitForTimeout(400);
          for (const v of await axe(page)) report.push(`${view} ${width}px ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
          if (width === 390) {
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            if (overflow > 0) report.push(`${view} 390px ${scheme}: the page scrolls sideways by ${overflow} px`);
            const min = await smallestChartText(page);
            if (min < 11) report.push(`${view} 390px ${scheme}: chart text ${min.toFixed(1)} px`);
          }
          if (view === 'compare') {
            await screenshot(page, `lab-compare-${width}-${scheme}.png`);
          } else {
            for (const [id, name] of [['leaderboard-area', 'leaderboard'], ['trials-area', 'trials']]) {
              const el = await page.$(`#${id}`);
              await el.scrollIntoViewIfNeeded();
              await el.screenshot({ path: join(ROOT, 'test-artifacts', `lab-${name}-${width}-${scheme}.png`) });
            }
          }
        }
      }
    }
    assert.deepEqual(report, []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await fresh.close();
  }
});
