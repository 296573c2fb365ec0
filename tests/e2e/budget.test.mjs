// End-to-end: evaluating on a budget in the page, against the CLI on the same mock and
// dataset — Setup's "What will this cost?" is `wildtool run --dry-run`'s estimate; the
// price table is edited, an invalid entry refused naming its field, a valid one kept in
// localStorage; the Compare view's planner prints
// the lines of `wildtool plan --pilot A --pilot-b B` for the same two runs; the dashboard
// and the comparison show a run's cost, cost per task and per solved task as the CLI's
// report.json has them, and "cost unknown" for a server without usage. Axe-checked
// at 390 and 1,400 px, light and dark, with screenshots in test-artifacts/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';
import { startMock } from './mock-openai.mjs';

const run = promisify(execFile);
const CLI = join(ROOT, 'target/debug/wildtool');
const SUITE = join(ROOT, 'data/suite.jsonl');
const PRICES = '{"wildtool_prices": 1, "currency": "USD", "models": {"mock": {"input": 2.0, "cached_input": 1.0, "output": 8.0}}}';

let server;
let browser;
let mock;
let work;
let axeSource;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-budget-'));
  [server, browser, mock, axeSource] = await Promise.all([
    startServer(),
    launchBrowser(),
    startMock(),
    readFile(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'),
  ]);
  await run('cargo', ['build', '--quiet', '--bin', 'wildtool'], { cwd: ROOT, maxBuffer: 1 << 24 });
});

after(async () => {
  await browser?.close();
  server?.stop();
  await mock?.stop();
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);
/** The core's `cost::figures::money`: 2 to 10 decimals, about 4 significant digits. */
const money = (x) => (x === 0 ? '0.00' : x.toFixed(Math.min(10, Math.max(2, 3 - Math.floor(Math.log10(Math.abs(x)))))));
/** The rows of a cost table (cell texts). */
const costRows = (page, id) => page.$$eval(`#${id} tbody tr`, (rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
const cli = (args) => run(CLI, args, { cwd: ROOT, maxBuffer: 1 << 26 });

async function axe(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Axe at both widths and schemes, no sideways scrolling, a screenshot of each. */
async function checkLooks(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [390, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      assert.equal(scrolls, false, `${name}: no sideways scrolling at ${width} px`);
      assert.deepEqual(await axe(page), [], `${name} ${scheme} ${width}`);
      await screenshot(page, `${name}-${scheme}-${width}.png`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1360, height: 900 });
}

describe('cost and the planner', () => {
  test('estimate, prices, cost and plan are the CLI\'s for the same runs', async () => {
    const prices = join(work, 'prices.json');
    await writeFile(prices, PRICES);
    const base = ['run', '--dataset', SUITE, '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--concurrency', '4', '--api-key-env', 'WILDTOOL_E2E_NO_KEY', '--prices', prices];
    const { stdout: dry } = await cli([...base, '--out', join(work, 'dry'), '--dry-run']);
    const estimate = dry.match(/estimated cost: (\S+) USD \(± 30%/)?.[1];
    assert.ok(estimate, dry);
    await cli([...base, '--out', join(work, 'mock')]);
    await cli(['run', '--dataset', SUITE, '--provider', 'baseline', '--out', join(work, 'baseline')]);
    const { stdout: plan } = await cli(['plan', '--pilot', join(work, 'mock'), '--pilot-b', join(work, 'baseline'), '--dataset', SUITE, '--sessions', '200', '--difference', '5']);

    const q = new URLSearchParams({ dataset: 'bundled', provider: 'openai', base_url: mock.url, model: 'mock', concurrency: '4' });
    const { page, problems } = await openPage(browser.context, `${server.url}?${q}`);
    await page.waitForFunction(() => document.body.dataset.dataset);
    // Setup: the panel is closed (no lab module loaded for it); opened, it says the bundled
    // table has no price for "mock".
    await page.click('#prices-details summary');
    await page.waitForSelector('#cost-estimate');
    assert.match(await page.textContent('#cost-estimate'), /Unknown: no price for "mock"/);
    // An invalid entry is refused naming the field; nothing is stored.
    await page.fill('#prices-text', PRICES.replace('"output": 8.0', '"output": "eight"'));
    await page.click('#prices-editor button[data-arg="prices-save"]');
    await page.waitForSelector('#prices-error');
    assert.match(await page.textContent('#prices-error'), /models\.mock\.output/);
    assert.equal(await page.evaluate(() => localStorage.getItem('wildtool.prices')), null);
    await checkLooks(page, 'budget-setup-refused');
    // A valid table is saved in localStorage and used by the estimate: the dry run's.
    await page.fill('#prices-text', PRICES);
    await page.click('#prices-editor button[data-arg="prices-save"]');
    await page.waitForFunction(() => document.querySelector('#prices-source')?.textContent.includes('saved in this browser'));
    assert.equal(await page.evaluate(() => localStorage.getItem('wildtool.prices')), PRICES);
    await page.waitForFunction((e) => document.querySelector('#cost-estimate')?.textContent.includes(`About ${e} USD`), estimate, { timeout: 10_000 });
    await checkLooks(page, 'budget-setup');
    // A run against the mock (its priced report is the CLI's report.json above).
    await page.click('#start-run');
    await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 180_000 });
    await drawn(page);
    // Its cost on the dashboard: the CLI's report.json figures for the same run.
    const { cost } = JSON.parse(await readFile(join(work, 'mock', 'report.json'), 'utf8'));
    assert.ok(cost && cost.total > 0, JSON.stringify(cost));
    const want = [cost.total, cost.per_task, cost.per_solved_task].map((x) => `${money(x)} USD`);
    await page.waitForSelector('#dash-cost table', { timeout: 30_000 });
    const dash = await costRows(page, 'dash-cost');
    assert.equal(dash.length, 1);
    assert.deepEqual(dash[0].slice(1, 4), want, dash[0].join(' | '));
    await checkLooks(page, 'cost-dashboard');
    // A second run (the baseline agent) and the comparison: the planner's lines are
    // `wildtool plan`'s (the pilots' labels aside).
    // As `wildtool run --provider baseline` without --model: the run is named after the
    // agent (the Setup form's hidden model field would still say "mock").
    await page.goto(`${server.url}?view=setup&dataset=bundled&provider=baseline&model=baseline`);
    await page.waitForFunction(() => document.body.dataset.datasetState === 'ready');
    await page.click('#start-run');
    await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 120_000 });
    await page.click('nav [data-view="compare"]');
    const picks = await page.$$('#compare-picker input[type=checkbox]');
    // The history lists the newest first: the mock run is the second.
    await picks[1].check();
    await picks[0].check();
    await page.waitForSelector('#plan-result .plan-line', { timeout: 60_000 });
    // The comparison is drawn by the lab module: while it still owes an answer the
    // planner's fields may be replaced, and a value typed into a replaced field is lost.
    await page.waitForFunction(() => document.body.dataset.lab === 'idle', null, { timeout: 60_000 });
    await page.fill('#plan-sessions', '200');
    await page.waitForFunction(() => document.body.dataset.lab === 'idle', null, { timeout: 60_000 });
    await page.fill('#plan-difference', '5');
    await page.waitForFunction(() => [...document.querySelectorAll('#plan-result .plan-line')].some((p) => p.textContent.includes('for a drop of 5.0 points')), null, { timeout: 30_000 });
    const lines = await page.$$eval('#plan-result .plan-line', (ps) => ps.map((p) => p.textContent));
    const cliLines = plan.trim().split('\n');
    assert.equal(lines.length, cliLines.length, `${lines.join('\n')}\n---\n${plan}`);
    const unlabelled = (l) => l.replace(/^pilot: [^;]*;/, 'pilot:;');
    assert.deepEqual(lines.map(unlabelled), cliLines.map(unlabelled));
    // Both runs' costs below the comparison: the mock run's as on its dashboard, the
    // baseline agent's "no cost" (a built-in agent asks no model, so there is nothing to price).
    await page.waitForSelector('#compare-cost table', { timeout: 30_000 });
    const both = await costRows(page, 'compare-cost');
    assert.equal(both.length, 2, JSON.stringify(both));
    const priced = both.find((r) => r[0] === 'mock');
    assert.deepEqual(priced?.slice(1, 4), want, JSON.stringify(both));
    assert.ok(both.some((r) => /^no cost: a built-in agent answers without asking a model$/.test(r[1])), JSON.stringify(both));
    await checkLooks(page, 'budget-compare');
    assert.equal(await hook(page, 'view'), 'compare');
    assert.deepEqual(problems, []);
    await page.close();

    // A server that reports no usage: the cost is unknown, said in words.
    const quiet = await startMock(0, { usage: false });
    try {
      const q2 = new URLSearchParams({ dataset: 'bundled', provider: 'openai', base_url: quiet.url, model: 'mock', concurrency: '4' });
      const opened = await openPage(browser.context, `${server.url}?${q2}`);
      await opened.page.waitForSelector('#start-run');
      await opened.page.click('#start-run');
      await opened.page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 180_000 });
      await opened.page.waitForSelector('#dash-cost table', { timeout: 30_000 });
      const none = await costRows(opened.page, 'dash-cost');
      assert.equal(none[0][1], 'cost unknown: the server reported no usage');
      await checkLooks(opened.page, 'cost-unknown');
      assert.deepEqual(opened.problems, []);
      await opened.page.close();
    } finally {
      await quiet.stop();
    }
  });
});
