// End-to-end: what a first-time user meets (issue 19). A file that is not a dataset is
// refused with its reason and the loaded dataset stays; a dataset with no task cannot be
// started; `dataset=URL` reports its state on the same hooks (`datasetState`,
// `datasetError`). Screenshots at 390 and 1,400 px, light and dark, checked with axe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

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

const hooks = (page) => page.evaluate(() => ({ ...document.body.dataset }));

async function axe(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** axe and screenshots of the page as it is, at both widths and in both schemes. */
async function everyLook(page, name) {
  const report = [];
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [390, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(200);
      for (const v of await axe(page)) report.push(`${name} ${width}px ${scheme}: ${v.id} ${v.help} — ${v.nodes.join(', ')}`);
      if (width === 390) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (overflow > 0) report.push(`${name} 390px ${scheme}: scrolls sideways by ${overflow} px`);
      }
      await screenshot(page, `newcomer-${name}-${width}-${scheme}.png`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1360, height: 900 });
  return report;
}

const RESULT_LINE = `${JSON.stringify({ id: 'wild_tool_bench_0', model_name: 'gold', result: [] })}\n`;
const NOT_DATASETS = [
  { name: 'result.jsonl', body: RESULT_LINE, says: /result file.*Offline scoring/ },
  { name: 'table.csv', body: 'id,model,passed\n1,a,true\n2,b,false\n', says: /CSV/ },
  { name: 'noise.bin', body: Buffer.from([0, 159, 146, 150, 0, 1, 2, 255, 254]), says: /binary/ },
  { name: 'empty.jsonl', body: '', says: /empty/ },
  { name: 'objects.jsonl', body: '{"a": 1}\n{"b": 2}\n', says: /no task could be read from it \(\d+ error\(s\); first: line 1/ },
];

test('an upload that is not a dataset is refused with its reason; the bundled suite stays loaded', async () => {
  const { page, problems } = await openPage(browser.context, server.url);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 20_000 });
  const bundled = (await hooks(page)).dataset;
  await page.check('input[name="ds-kind"][value="upload"]');
  for (const f of NOT_DATASETS) {
    await page.setInputFiles('#ds-file', { name: f.name, mimeType: 'application/octet-stream', buffer: Buffer.from(f.body) });
    await page.waitForFunction(() => document.body.dataset.datasetState === 'error', null, { timeout: 10_000 });
    const h = await hooks(page);
    assert.match(h.datasetError, f.says, f.name);
    assert.ok(h.datasetError.startsWith(`${f.name} was not loaded as the dataset: `), h.datasetError);
    assert.match(h.datasetError, /Still loaded: the bundled suite\.$/);
    assert.equal(h.dataset, bundled, `${f.name}: the bundled suite stays loaded`);
    assert.equal(await page.textContent('#status'), h.datasetError, 'the banner says the same');
    assert.equal(await page.isEnabled('#start-run'), true, 'the bundled suite can still be run');
    if (f.name === 'result.jsonl') assert.deepEqual(await everyLook(page, 'refused-upload'), []);
  }
  // The bundled suite still runs after the refusals, to a real result.
  await page.selectOption('#m-provider', 'gold').catch(() => {});
  await page.click('#start-run');
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
  const h = await hooks(page);
  assert.equal(h.runOutcome, 'done');
  assert.equal(JSON.parse(h.headline).tasks_total, 256);
  assert.deepEqual(problems, []);
  await page.close();
});

test('dataset=URL naming a result file: datasetState error with the reason, and Start stays disabled', async () => {
  await browser.context.route('**/elsewhere/result.jsonl', (r) => r.fulfill({ body: RESULT_LINE, contentType: 'application/json' }));
  const { page } = await openPage(browser.context, `${server.url}?dataset=elsewhere/result.jsonl`);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'error', null, { timeout: 20_000 });
  const h = await hooks(page);
  assert.match(h.datasetError, /was not loaded as the dataset: this is a result file .*Offline scoring\. No dataset is loaded\.$/);
  assert.equal(h.dataset, undefined);
  assert.equal(await page.isDisabled('#start-run'), true, 'no run without a runnable dataset');
  assert.deepEqual(await everyLook(page, 'refused-url'), []);
  await page.close();
  await browser.context.unroute('**/elsewhere/result.jsonl');
});

test('dataset=URL that cannot be fetched says why on the hooks', async () => {
  await browser.context.route('**/gone/suite.jsonl', (r) => r.fulfill({ status: 404, body: 'not here' }));
  const { page } = await openPage(browser.context, `${server.url}?dataset=gone/suite.jsonl`);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'error', null, { timeout: 20_000 });
  const h = await hooks(page);
  assert.match(h.datasetError, /gone\/suite\.jsonl was not loaded as the dataset: .+\. No dataset is loaded\.$/);
  assert.doesNotMatch(h.datasetError, /dataset: \. /, 'the reason is not empty');
  await page.close();
  await browser.context.unroute('**/gone/suite.jsonl');
});
