// End-to-end: the lab module (www/pkg/lab/, crates/lab) is loaded only when a view needs
// it, and its views appear in the page — the comparison of runs of the history.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);

/** Runs a built-in agent from Setup to the end. */
async function agentRun(page, agent) {
  await page.click('nav [data-view="setup"]');
  await page.selectOption('#m-provider', agent);
  await page.click('#start-run');
  await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 120_000 });
}

describe('lab module', () => {
  test('two runs in the history → comparison view, from the lazily loaded lab module', async () => {
    const { page, problems } = await openPage(browser.context, server.url);
    const labRequests = [];
    page.on('request', (r) => { if (r.url().includes('/pkg/lab/')) labRequests.push(r.url()); });
    await page.waitForFunction(() => document.body.dataset.dataset);
    await agentRun(page, 'gold');
    await agentRun(page, 'baseline');
    assert.deepEqual(labRequests, [], 'the lab module is not loaded before a view needs it');
    await page.click('nav [data-view="compare"]');
    assert.equal(await hook(page, 'compare'), 'waiting');
    const boxes = await page.$$('#compare-picker input[type="checkbox"]');
    assert.equal(boxes.length, 2);
    for (const b of boxes) await b.check();
    await page.waitForFunction(() => document.body.dataset.compare === 'ready', null, { timeout: 60_000 });
    // Baseline first (the history is newest first): A = baseline, B = gold.
    assert.match(await page.textContent('#pair-1-title'), /^baseline.* vs gold/);
    assert.match(await page.textContent('#pair-1-b-only'), /\d+$/);
    assert.match(await page.textContent('#pair-1-a-only'), /0$/);
    assert.match(await page.textContent('#pair-1-p'), /p (= |< )0\.\d{4}/);
    assert.match(await page.textContent('#pair-1-task-delta'), /pp \(95% CI [−+]?\d/);
    assert.ok(labRequests.some((u) => u.endsWith('wildtool_lab_bg.wasm')), labRequests.join(' '));
    const loads = labRequests.length;
    // Unticking and ticking again computes again without loading the module again.
    await boxes[0].uncheck();
    await page.waitForFunction(() => document.body.dataset.compare === 'waiting');
    await boxes[0].check();
    await page.waitForFunction(() => document.body.dataset.compare === 'ready');
    assert.equal(labRequests.length, loads);
    await screenshot(page, 'compare.png');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
