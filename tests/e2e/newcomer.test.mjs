// End-to-end: what a first-time user meets (issue 19). A file that is not a dataset is
// refused with its reason and the loaded dataset stays; a dataset with no task cannot be
// started; `dataset=URL` reports its state on the same hooks (`datasetState`,
// `datasetError`). Screenshots at 390 and 1,400 px, light and dark, checked with axe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, axeSerious, launchBrowser, openPage, screenshot, suiteSetup } from './helpers.mjs';

const suite = suiteSetup(before, after);
const hooks = (page) => page.evaluate(() => ({ ...document.body.dataset }));
const axe = (page) => axeSerious(page, suite.axeSource);

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
  { name: 'result.jsonl', body: RESULT_LINE, says: /result file, not a dataset: score it in Offline scoring/ },
  { name: 'table.csv', body: 'id,model,passed\n1,a,true\n2,b,false\n', says: /CSV/ },
  { name: 'noise.bin', body: Buffer.from([0, 159, 146, 150, 0, 1, 2, 255, 254]), says: /binary/ },
  { name: 'empty.jsonl', body: '', says: /empty/ },
  { name: 'objects.jsonl', body: '{"a": 1}\n{"b": 2}\n', says: /no task could be read from it \(\d+ error\(s\); first: line 1/ },
];

test('an upload that is not a dataset is refused with its reason; the bundled suite stays loaded', async () => {
  const { page, problems } = await openPage(suite.browser.context, suite.server.url);
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
  await suite.browser.context.route('**/elsewhere/result.jsonl', (r) => r.fulfill({ body: RESULT_LINE, contentType: 'application/json' }));
  const { page } = await openPage(suite.browser.context, `${suite.server.url}?dataset=elsewhere/result.jsonl`);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'error', null, { timeout: 20_000 });
  const h = await hooks(page);
  assert.match(h.datasetError, /was not loaded as the dataset: this is a result file, not a dataset: score it in Offline scoring\. No dataset is loaded\.$/);
  assert.equal(h.dataset, undefined);
  assert.equal(await page.isDisabled('#start-run'), true, 'no run without a runnable dataset');
  assert.deepEqual(await everyLook(page, 'refused-url'), []);
  await page.close();
  await suite.browser.context.unroute('**/elsewhere/result.jsonl');
});

test('dataset=URL that cannot be fetched says why on the hooks', async () => {
  await suite.browser.context.route('**/gone/suite.jsonl', (r) => r.fulfill({ status: 404, body: 'not here' }));
  const { page } = await openPage(suite.browser.context, `${suite.server.url}?dataset=gone/suite.jsonl`);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'error', null, { timeout: 20_000 });
  const h = await hooks(page);
  assert.match(h.datasetError, /gone\/suite\.jsonl was not loaded as the dataset: .+\. No dataset is loaded\.$/);
  assert.doesNotMatch(h.datasetError, /dataset: \. /, 'the reason is not empty');
  await page.close();
  await suite.browser.context.unroute('**/gone/suite.jsonl');
});

test('a damaged line of an upload is named on the dashboard, by its file line and column', async () => {
  const { page, problems } = await openPage(suite.browser.context, `${suite.server.url}?provider=gold&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#exp-result')]);
  const text = await readFile(await dl.path(), 'utf8');
  const lines = text.split('\n').filter((l) => l.trim());
  lines[27] = lines[27].slice(0, Math.floor(lines[27].length / 2)); // line 28 cut in half
  await page.click('nav [data-view="offline"]');
  await page.setInputFiles('#result-file', { name: 'cut.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${lines.join('\n')}\n`) });
  await page.waitForFunction(() => document.body.dataset.view === 'dashboard' && document.querySelector('#dash-damage'), null, { timeout: 30_000 });
  const damage = await page.textContent('#dash-damage');
  assert.match(damage, /^1 line\(s\) of cut\.jsonl could not be read: (result )?line 28 looks cut off: /);
  assert.doesNotMatch(damage, /line 1 column/);
  const banner = await page.textContent('#dash-banner');
  assert.doesNotMatch(banner, /Partial — Partial/);
  assert.deepEqual(await everyLook(page, 'damaged-upload'), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the "Ready … start a run" banner is shown on Setup only', async () => {
  const { page } = await openPage(suite.browser.context, suite.server.url);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 20_000 });
  assert.match(await page.textContent('#status'), /^Ready: /);
  for (const view of ['traces', 'history', 'compare', 'offline']) {
    await page.click(`nav [data-view="${view}"]`);
    await page.waitForFunction((v) => document.body.dataset.view === v, view);
    assert.equal(await page.isVisible('#status'), false, `${view}: the Setup banner steps aside`);
  }
  await page.click('nav [data-view="setup"]');
  await page.waitForFunction(() => document.body.dataset.view === 'setup');
  await page.waitForFunction(() => /^Ready: /.test(document.getElementById('status')?.textContent ?? ''), null, { timeout: 10_000 });
  assert.equal(await page.isVisible('#status'), true, 'the banner is back on Setup');
  await page.close();
});

test('repeated trials: success and failure colours, and the note on deterministic agents', async () => {
  const { page, problems } = await openPage(suite.browser.context, `${suite.server.url}?provider=baseline&trials=2&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 90_000 });
  await page.waitForFunction(() => document.body.dataset.trials === 'ready', null, { timeout: 30_000 });
  const svg = await page.$eval('figure[data-chart="trials-consistency"] svg', (s) => s.outerHTML);
  assert.ok(!svg.includes('#009E73'), '"passed in none" is not green');
  assert.ok(svg.includes('#0072B2') && svg.includes('#D55E00'), 'blue for every trial, vermillion for none');
  assert.match(await page.textContent('#trials-deterministic'), /built-in gold and baseline agents answer the same way every time/);
  assert.deepEqual(await everyLook(page, 'trials'), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a failed run keeps no disabled controls or progress grid, and names a built-in agent once', async () => {
  const { page } = await openPage(suite.browser.context, `${suite.server.url}?provider=openai&base_url=http://127.0.0.1:9/v1&model=m&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
  assert.equal((await hooks(page)).runOutcome, 'failed');
  await page.waitForSelector('#run-failure');
  assert.equal(await page.$('#pause-run'), null);
  assert.equal(await page.$('#cancel-run'), null);
  assert.equal(await page.$('#run-stats'), null);
  assert.doesNotMatch(await page.textContent('#run-label'), /\((openai)\).*\1/);
  // Port 9 is one the browser refuses: said as such, not as a server that is down.
  const why = (await hooks(page)).runError;
  assert.match(why, /the browser refuses to connect to this port/, why);
  assert.doesNotMatch(why, /nothing answered/);
  assert.match(await page.textContent('#run-failure + p + p'), /serve the endpoint on another port/);
  await page.close();
});

test('dark mode draws charts on the dark surface; the focus ring is not the error colour', async () => {
  const { page } = await openPage(suite.browser.context, `${suite.server.url}?provider=gold&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
  await page.waitForFunction(() => document.body.dataset.dashboard === 'ready' && !document.querySelector('[data-loading]'), null, { timeout: 30_000 });
  await page.emulateMedia({ colorScheme: 'dark' });
  const backs = await page.$$eval('#charts .chart svg > rect[fill="#ffffff"]', (r) => r.map((x) => getComputedStyle(x).fill));
  assert.ok(backs.length > 0);
  for (const b of backs) assert.notEqual(b, 'rgb(255, 255, 255)', 'no bright white chart card');
  const card = await page.$eval('#charts .chart', (c) => getComputedStyle(c).backgroundColor);
  assert.notEqual(card, 'rgb(255, 255, 255)');
  assert.deepEqual(await everyLook(page, 'dashboard-gold'), []);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.focus('#exp-metric');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineColor);
  assert.notEqual(ring, 'rgb(194, 65, 12)', 'the focus ring is not the orange of an error');
  // The share link's underscores (below the baseline) are not cut by its field.
  const link = await page.$eval('#share-link', (e) => { const c = getComputedStyle(e); return { lh: parseFloat(c.lineHeight), fs: parseFloat(c.fontSize), h: e.clientHeight }; });
  assert.ok(link.lh >= 1.3 * link.fs && link.h >= link.lh, JSON.stringify(link));
  assert.deepEqual(await everyLook(page, 'dashboard-gold'), []);
  await page.close();
});
test('Generate and Sweep: unknown factors listed, buttons name the model, a sweep loads the dataset before it again', async () => {
  const { page, problems } = await openPage(suite.browser.context, `${suite.server.url}?provider=baseline&view=generate`);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 20_000 });
  const bundled = (await hooks(page)).dataset;
  await page.fill('#gen-sessions', '8');
  await page.fill('#gen-factors', 'foo=1');
  await page.click('#generate');
  await page.waitForFunction(() => document.body.dataset.generate === 'error', null, { timeout: 60_000 });
  assert.match(await page.textContent('#generated-info'), /unknown factor "foo" \(known: seed, sessions, transitions, .*distractors/);
  // The factors and their levels are offered from the core's table; typing stays possible.
  await page.fill('#gen-factors', '');
  await page.click('#factor-picker summary');
  await page.click('#factor-picker button[data-value="transitions=1"]');
  assert.equal(await page.inputValue('#gen-factors'), 'transitions=1');
  await page.click('#factor-picker button[data-value="multi=parallel"]');
  assert.equal(await page.inputValue('#gen-factors'), 'transitions=1,multi=parallel');
  assert.deepEqual(await everyLook(page, 'generate-picker'), []);
  await page.fill('#gen-factors', 'transitions=1');
  await page.click('#generate');
  await page.waitForFunction(() => document.body.dataset.generate === 'done', null, { timeout: 60_000 });
  assert.equal((await page.textContent('#generated-run')).trim(), 'Run it now with the baseline agent');
  const generated = (await hooks(page)).dataset;
  assert.notEqual(generated, bundled);
  await page.click('nav [data-view="sweep"]');
  assert.equal((await page.textContent('#sweep-start')).trim(), 'Start the sweep with the baseline agent');
  await page.waitForSelector('#factor-picker button[data-value="depth=2,3,4,5"]', { state: 'attached' });
  await page.click('#factor-picker summary');
  await page.click('#factor-picker button[data-value="depth=2,3,4,5"]');
  assert.equal(await page.inputValue('#sweep-factor'), 'depth');
  assert.equal(await page.inputValue('#sweep-levels'), '2,3,4,5');
  await page.fill('#sweep-factor', 'transitions');
  await page.fill('#sweep-levels', '0,2');
  await page.fill('#sweep-per-level', '4');
  await page.click('#sweep-start');
  await page.waitForFunction(() => document.body.dataset.sweep === 'done', null, { timeout: 120_000 });
  // The levels' suites were loaded one after another; the suite before the sweep is back.
  assert.equal((await hooks(page)).dataset, generated, 'the dataset before the sweep is loaded again');
  assert.match(await page.textContent('#status'), /^Sweep finished\. Loaded again: the generated suite/);
  // The chart's screen-reader description is not a visible paragraph.
  const caption = await page.$eval('[data-chart="sweep"] figcaption', (c) => c.getBoundingClientRect().width * c.getBoundingClientRect().height);
  assert.ok(caption <= 1, `the sweep chart's description is visually hidden (${caption} px²)`);
  const analysis = await page.textContent('#sweep-progress');
  await page.waitForTimeout(1000); // the store's write of the analysis settles
  // A reload keeps the generated suite (generated again from its spec) and the sweep's analysis.
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 60_000 });
  assert.equal((await hooks(page)).dataset, generated, 'the generated suite is generated again after a reload');
  await page.click('nav [data-view="sweep"]');
  await page.waitForFunction(() => document.body.dataset.sweep === 'done', null, { timeout: 20_000 });
  const kept = await page.textContent('#sweep-progress');
  assert.ok(kept.startsWith('transitions=0,2 · baseline'), kept.slice(0, 200));
  const tail = kept.slice('transitions=0,2 · baseline'.length);
  assert.ok(tail.length > 50 && analysis.endsWith(tail), `the same analysis: ${tail.slice(0, 200)}`);
  assert.deepEqual(await everyLook(page, 'sweep-kept'), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a reload keeps the set-up (not the key) and the dataset loaded from a URL; an address wins', async () => {
  const fresh = await launchBrowser();
  const MINI = join(ROOT, 'tests/fixtures/mini.jsonl');
  await fresh.context.route('**/other/mini.jsonl', (r) => r.fulfill({ path: MINI, contentType: 'application/json' }));
  try {
    const { page, problems } = await openPage(fresh.context, suite.server.url);
    await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 20_000 });
    const bundled = (await hooks(page)).dataset;
    await page.selectOption('#m-provider', 'openai');
    await page.fill('#m-base', 'http://127.0.0.1:9999/v1');
    await page.fill('#m-model', 'qwen-kept');
    await page.fill('#m-conc', '3');
    await page.fill('#m-key', 'sk-not-kept');
    await page.check('input[name="ds-kind"][value="url"]');
    await page.fill('#ds-url', `${suite.server.url}other/mini.jsonl`);
    await page.click('[data-action="load-dataset"]');
    await page.waitForFunction((b) => document.body.dataset.datasetState === 'ready' && document.body.dataset.dataset !== b, bundled, { timeout: 20_000 });
    const mini = (await hooks(page)).dataset;
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 20_000 });
    assert.equal((await hooks(page)).dataset, mini, 'the dataset from the URL is loaded again');
    assert.equal(await page.inputValue('#m-provider'), 'openai');
    assert.equal(await page.inputValue('#m-base'), 'http://127.0.0.1:9999/v1');
    assert.equal(await page.inputValue('#m-model'), 'qwen-kept');
    assert.equal(await page.inputValue('#m-conc'), '3');
    assert.equal(await page.inputValue('#m-key'), '', 'a key not remembered is not kept');
    const stored = await page.evaluate(async () => {
      const all = [JSON.stringify(localStorage)];
      for (const { name } of await indexedDB.databases()) {
        const db = await new Promise((ok, no) => { const r = indexedDB.open(name); r.onsuccess = () => ok(r.result); r.onerror = no; });
        for (const store of db.objectStoreNames) {
          const rows = await new Promise((ok) => { const r = db.transaction(store).objectStore(store).getAll(); r.onsuccess = () => ok(r.result); });
          all.push(JSON.stringify(rows));
        }
        db.close();
      }
      return all.join('\n');
    });
    assert.match(stored, /qwen-kept/, 'the set-up is kept');
    assert.doesNotMatch(stored, /sk-not-kept/, 'the key is not');
    // An address naming settings wins over what was kept.
    await page.goto(`${suite.server.url}?provider=baseline`);
    await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 20_000 });
    assert.equal(await page.inputValue('#m-provider'), 'baseline');
    assert.equal((await hooks(page)).dataset, bundled);
    // The kept endpoint is asked for its model list, and nothing listens there.
    assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_REFUSED/.test(p)), []);
    await page.close();
  } finally {
    await fresh.close();
  }
});

test('runs are told apart: when, where from, trials; uploads named after their file; unique series names; downloads named after label and start', async () => {
  const fresh = await launchBrowser();
  try {
    for (let i = 0; i < 2; i += 1) {
      const { page } = await openPage(fresh.context, `${suite.server.url}?provider=gold&autorun=1`);
      await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 60_000 });
      await page.waitForTimeout(1100); // the two runs start in different seconds
      await page.close();
    }
    const { page, problems } = await openPage(fresh.context, `${suite.server.url}?view=history`);
    // The list is drawn by the lab module (loaded on first use): current once no answer is owed.
    await page.waitForFunction(() => Number(document.body.dataset.history) === 2 && document.body.dataset.lab === 'idle', null, { timeout: 60_000 });
    await page.waitForSelector('[data-action="compare-add"]');
    while (await page.$('[data-action="compare-add"]')) {
      await page.click('[data-action="compare-add"]');
      await page.waitForTimeout(200);
    }
    await page.click('nav [data-view="compare"]');
    const rows = await page.$$eval('#compare-picker li', (li) => li.map((l) => l.textContent.trim()));
    assert.equal(rows.length, 2);
    assert.notEqual(rows[0], rows[1], 'two runs of one model have different rows');
    for (const r of rows) assert.match(r, /started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · built-in gold agent/);
    assert.deepEqual(await everyLook(page, 'compare-two-gold'), []);
    await page.click('nav [data-view="history"]');
    await page.click('[data-action="history-open"]');
    await page.waitForFunction(() => document.body.dataset.dashboard === 'ready', null, { timeout: 20_000 });
    await page.waitForFunction(() => !document.querySelector('[data-loading]'), null, { timeout: 30_000 });
    const legend = await page.$$eval('.chart svg text', (t) => t.map((x) => x.textContent));
    assert.ok(legend.some((t) => t.includes('gold (2)')), `legend: ${legend.filter((t) => t.startsWith('gold')).join(' | ')}`);
    const titles = await page.$$eval('#charts figure', (f) => f.map((x) => x.textContent));
    assert.ok(titles.some((t) => /gold beside \d+ other run\(s\) or model\(s\), by task type/.test(t)), `comparison title: ${titles.map((t) => t.slice(0, 80)).join(' | ')}`);
    assert.ok(!titles.some((t) => t.includes('published leaderboard')));
    assert.ok(legend.includes('No failed tasks'));
    // At phone width chart labels and titles wrap: nothing is cut off or drawn outside.
    await page.setViewportSize({ width: 390, height: 900 });
    await page.waitForFunction(() => !document.querySelector('[data-loading]'), null, { timeout: 30_000 });
    await page.waitForTimeout(500);
    const cut = await page.$$eval('#charts .chart svg', (svgs) => svgs.flatMap((svg) => {
      const box = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('text')]
        .filter((t) => {
          const r = t.getBoundingClientRect();
          return t.textContent.endsWith('…') || r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1;
        })
        .map((t) => t.textContent);
    }));
    assert.deepEqual(cut, [], `cut or clipped at 390 px: ${cut.join(' | ')}`);
    await page.setViewportSize({ width: 1360, height: 900 });
    // Downloads carry the run's label and start.
    const [metric] = await Promise.all([page.waitForEvent('download'), page.click('#exp-metric')]);
    assert.match(metric.suggestedFilename(), /^gold_\d{4}-\d\d-\d\d_\d{6}_metric\.json$/);
    const [result] = await Promise.all([page.waitForEvent('download'), page.click('#exp-result')]);
    assert.match(result.suggestedFilename(), /^gold_\d{4}-\d\d-\d\d_\d{6}/);
    // An upload is named after its file, and its row says it was uploaded.
    const body = await readFile(await result.path());
    await page.click('nav [data-view="offline"]');
    await page.setInputFiles('#result-file', { name: 'my-gold-answers.jsonl', mimeType: 'application/x-ndjson', buffer: body });
    await page.waitForFunction(() => document.body.dataset.offline === 'done', null, { timeout: 30_000 });
    await page.click('nav [data-view="history"]');
    // The list is drawn by the lab module: it is current once no answer is owed.
    await page.waitForFunction(() => Number(document.body.dataset.history) === 3 && document.body.dataset.lab === 'idle', null, { timeout: 20_000 });
    const titlesH = await page.$$eval('.run-title', (h) => h.map((x) => x.textContent));
    assert.ok(titlesH.includes('my-gold-answers'), titlesH.join(' | '));
    await page.click('nav [data-view="compare"]');
    const picker = await page.textContent('#compare-picker');
    assert.match(picker, /my-gold-answers — .* · uploaded file/);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await fresh.close();
  }
});

test('a refused upload in Offline scoring is said once, in its note', async () => {
  const { page, problems } = await openPage(suite.browser.context, `${suite.server.url}?view=offline`);
  await page.waitForFunction(() => document.body.dataset.datasetState === 'ready', null, { timeout: 20_000 });
  await page.setInputFiles('#result-file', { name: 'table.csv', mimeType: 'text/csv', buffer: Buffer.from('id,model,passed\n1,a,true\n') });
  await page.waitForFunction(() => document.body.dataset.offline === 'error', null, { timeout: 20_000 });
  const note = await page.textContent('#offline-info');
  assert.match(note, /CSV/);
  const main = await page.textContent('body');
  assert.equal(main.split('CSV').length - 1, note.split('CSV').length - 1, `said once: ${main.slice(0, 400)}`);
  assert.deepEqual(problems, []);
  await page.close();
});
