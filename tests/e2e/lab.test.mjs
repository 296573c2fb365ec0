// End-to-end: the lab module (www/pkg/lab/, crates/lab) is loaded only when a view needs
// it, and its views appear in the page — the comparison of runs of the history, the
// comparison link opened in a fresh browser, the ranked leaderboard (official data only)
// and the pass^j curve of a run with repeated trials.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

const SUITE = join(ROOT, 'data/suite.jsonl');
const MINI = join(ROOT, 'tests/fixtures/mini.jsonl');
/** The numbers of the comparison view, by element id, for the link test. */
const PAIR_IDS = ['pair-1-title', 'pair-1-a-only', 'pair-1-b-only', 'pair-1-p', 'pair-1-task-delta', 'pair-1-session-delta'];

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
const texts = (page, ids) => Promise.all(ids.map((id) => page.textContent(`#${id}`)));
/** What the first test's comparison showed, and its link. */
let compared = null;

/** The published-datasets list naming the dataset of fingerprint `fp` as the official one. */
const officialList = (fp) => JSON.stringify({
  format: 'wildtool-official-datasets-1',
  datasets: [{
    name: 'WildToolBench (test: the bundled suite as official)',
    file: 'suite.jsonl',
    source: { repository: 'https://example.invalid/r', path: 'suite.jsonl', commit: '0123456789abcdef0123456789abcdef01234567' },
    fingerprint: fp,
    git_blob: null,
    sessions: 64,
    tasks: 256,
  }],
});

/** Runs a built-in agent from Setup to the end. */
async function agentRun(page, agent) {
  await page.click('nav [data-view="setup"]');
  await page.selectOption('#m-provider', agent);
  await page.click('#start-run');
  await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 120_000 });
  await drawn(page);
}

describe('lab module', () => {
  test('two runs in the history → comparison view, from the lazily loaded lab module', async () => {
    const { page, problems } = await openPage(browser.context, server.url);
    const labRequests = [];
    page.on('request', (r) => { if (r.url().includes('/pkg/lab/')) labRequests.push(r.url()); });
    await page.waitForFunction(() => document.body.dataset.dataset);
    assert.deepEqual(labRequests, [], 'the lab module is not loaded before a view needs it');
    await agentRun(page, 'gold');
    await agentRun(page, 'baseline');
    // The lab module is loaded for the first run, at most once on each thread: on this
    // one for the scorer (called synchronously), in the worker for the charts and views.
    assert.deepEqual(
      labRequests.map((u) => u.split('/pkg/lab/')[1]).sort(),
      ['wildtool_lab.js', 'wildtool_lab.js', 'wildtool_lab_bg.wasm', 'wildtool_lab_bg.wasm'],
      'the lab module is loaded once by the page and once by its worker, for the first run',
    );
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
    // Each row of the per-task table opens both runs' traces of its task side by side (vs=).
    assert.match(await page.getAttribute('#pair-1-tasks a[href*="vs="]', 'href'), /view=traces&run=[^&]+&vs=[^&]+&session=\d+&task=\d+/);
    await screenshot(page, 'compare.png');
    // Copy comparison link: the clipboard gets the address the view shows.
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    const link = await page.inputValue('#pair-1-link');
    assert.match(link, /\?view=compare#v2\./);
    assert.ok(link.split('#')[1].length <= 3_500, `${link.length} characters`);
    await page.click('#pair-1-copy');
    await page.waitForFunction(() => /Comparison link copied/.test(document.getElementById('status')?.textContent || ''), null, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    compared = { link, values: await texts(page, PAIR_IDS) };
    // A row's "side by side" link: both runs' traces of its task in two columns, each with
    // its own verdict (the row is a discordant task: gold passed it, baseline failed it)
    // and steps. A and B are the pair's runs in the order the table names them.
    const [nameA, nameB] = (await page.textContent('#pair-1-title')).split(' vs ');
    const sbs = await page.getAttribute('#pair-1-tasks a.pair-link', 'href');
    assert.match(sbs, /view=traces&run=[^&]+&vs=[^&]+&session=\d+&task=\d+/);
    await page.click('#pair-1-tasks a.pair-link');
    const want = nameA.startsWith('gold') ? ['correct', 'failed'] : ['failed', 'correct'];
    const bothShown = () => page.waitForFunction(([va, vb]) => document.querySelector('#trace-pair')?.dataset.pair === 'ready'
      && document.querySelector('#pair-a')?.dataset.verdict === va
      && document.querySelector('#pair-b')?.dataset.verdict === vb, want, { timeout: 60_000 });
    await bothShown();
    assert.equal(await hook(page, 'view'), 'traces');
    assert.ok(page.url().includes(sbs.slice(1)), `${page.url()} names ${sbs}`);
    assert.equal(await page.textContent('#pair-a-title'), `A · ${nameA}`);
    assert.equal(await page.textContent('#pair-b-title'), `B · ${nameB}`);
    const [gold, baseline] = nameA.startsWith('gold') ? ['#pair-a', '#pair-b'] : ['#pair-b', '#pair-a'];
    assert.match(await page.textContent(baseline), /Verdict: failed · .+Step 1 ·/s);
    assert.match(await page.textContent(gold), /Verdict: correct.+Step 1 · names correct.+Model output/s);
    const boxes2 = async () => page.evaluate(() => ['pair-a', 'pair-b'].map((id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width };
    }));
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.waitForFunction(() => window.innerWidth === 1400);
    let [a, b] = await boxes2();
    assert.ok(b.x > a.x + a.w - 1 && Math.abs(a.y - b.y) < 2, `side by side at 1,400 px: ${JSON.stringify([a, b])}`);
    await screenshot(page, 'lab-side-by-side-1400.png');
    await page.setViewportSize({ width: 390, height: 900 });
    await page.waitForFunction(() => window.innerWidth === 390);
    [a, b] = await boxes2();
    assert.ok(b.y >= a.y + 10, `stacked at 390 px: ${JSON.stringify([a, b])}`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0, 'no sideways scroll at 390 px');
    await screenshot(page, 'lab-side-by-side-390.png');
    await page.setViewportSize({ width: 1360, height: 900 });
    // A reload keeps it (the address names both runs and the task).
    await page.reload();
    await bothShown();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the comparison link rebuilds the same view in a fresh browser (dataset asked for, fingerprint checked)', async () => {
    assert.ok(compared, 'the first test made a comparison link');
    const fresh = await launchBrowser();
    try {
      // Another dataset is loaded first: the link asks for its own (by fingerprint).
      await fresh.context.route('**/other/mini.jsonl', (r) => r.fulfill({ path: MINI, contentType: 'application/json' }));
      const fragment = compared.link.split('#')[1];
      const { page, problems } = await openPage(fresh.context, `${server.url}?dataset=${encodeURIComponent(`${server.url}other/mini.jsonl`)}#${fragment}`);
      await page.waitForFunction(() => document.body.dataset.share === 'needs-dataset', null, { timeout: 30_000 });
      assert.equal(await hook(page, 'view'), 'setup');
      assert.match(await page.textContent('#status'), /another dataset \(fingerprint [0-9a-f]{16}\)/);
      assert.equal(await hook(page, 'compare'), undefined);
      // Loading the dataset the link was made on opens the comparison, computed afresh.
      await page.check('input[name="ds-kind"][value="upload"]');
      await page.setInputFiles('#ds-file', SUITE);
      await page.waitForFunction(() => document.body.dataset.share === 'opened' && document.body.dataset.compare === 'ready', null, { timeout: 60_000 });
      assert.equal(await hook(page, 'view'), 'compare');
      assert.deepEqual(await texts(page, PAIR_IDS), compared.values);
      assert.match(await page.textContent('#compare-from-link'), /comparison link/);
      // The same link (the address before `#` keeps the page's own parameters).
      assert.equal((await page.inputValue('#pair-1-link')).split('#')[1], fragment);
      // The per-task table is there, without trace links (a link never carries a trace).
      assert.ok(Number(await page.getAttribute('#pair-1-tasks', 'data-rows')) > 0);
      assert.equal(await page.$('#pair-1-tasks a[href*="vs="]'), null);
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await fresh.close();
    }
  });

  test('the ranked leaderboard: hidden on the bundled suite, shown when its identity is the official one', async () => {
    const fresh = await launchBrowser();
    try {
      let fp = null;
      await fresh.context.route('**/data/official-datasets.json', (r) => (fp ? r.fulfill({ body: officialList(fp), contentType: 'application/json' }) : r.continue()));
      const first = await openPage(fresh.context, `${server.url}?provider=gold&autorun=1`);
      await first.page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 120_000 });
      await first.page.waitForFunction(() => document.body.dataset.leaderboard === 'hidden', null, { timeout: 10_000 });
      assert.match(await first.page.textContent('#leaderboard-hidden'), /hidden/);
      assert.equal(await first.page.$('#leaderboard-table'), null);
      fp = await hook(first.page, 'dataset');
      assert.match(fp, /^[0-9a-f]{16}$/);
      assert.deepEqual(first.problems, []);
      await first.page.close();
      // The same data, now listed as the official dataset: the ranked table.
      const { page, problems } = await openPage(fresh.context, `${server.url}?provider=baseline&autorun=1`);
      await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 120_000 });
      await page.waitForFunction(() => document.body.dataset.leaderboard === 'shown' && document.getElementById('leaderboard-table'), null, { timeout: 60_000 });
      const table = await page.textContent('#leaderboard-table');
      assert.match(table, /baseline \(your run\)/);
      assert.match(table, /GPT-4o/);
      const rows = await page.$$eval('#leaderboard-table tbody tr', (r) => r.length);
      assert.ok(rows > 5, `${rows} rows`);
      // Sorting by another column: the header says so (aria-sort) and the order changes.
      const firstRow = () => page.$eval('#leaderboard-table tbody tr th[scope="row"]', (e) => e.textContent);
      const before = await firstRow();
      await page.click('#leaderboard-table button[data-arg="label"]');
      await page.waitForFunction(() => document.querySelector('#leaderboard-table th[aria-sort] button')?.dataset.arg === 'label', null, { timeout: 30_000 });
      await page.waitForFunction((b) => document.querySelector('#leaderboard-table tbody tr th[scope="row"]')?.textContent !== b, before, { timeout: 10_000 }).catch(() => {});
      assert.notEqual(await firstRow(), before);
      await screenshot(page, 'leaderboard.png');
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await fresh.close();
    }
  });

  test('a run with trials=3 (baseline agent) shows the pass^j curve from the lab module', async () => {
    const { page, problems } = await openPage(browser.context, server.url);
    await page.waitForFunction(() => document.body.dataset.dataset);
    await page.click('nav [data-view="setup"]');
    await page.selectOption('#m-provider', 'baseline');
    await page.fill('#m-trials', '3');
    await page.dispatchEvent('#m-trials', 'change');
    await page.click('#start-run');
    await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.dashboard === 'ready', null, { timeout: 240_000 });
    await page.waitForFunction(() => document.body.dataset.trials === 'ready', null, { timeout: 60_000 });
    assert.match(await page.textContent('#trials-title'), /3 trials/);
    assert.match(await page.textContent('#trials-note'), /trial 1/);
    assert.match(await page.textContent('#trials-passk'), /pass\^3/);
    // The curve: one line per series over j = 1..3, with its text alternative.
    const curve = await page.$eval('#trials figure.chart svg', (svg) => ({ lines: svg.querySelectorAll('polyline, path').length, title: svg.querySelector('title')?.textContent || '', desc: svg.closest('figure').querySelector('figcaption')?.textContent || '' }));
    assert.ok(curve.lines >= 2, JSON.stringify(curve));
    assert.match(curve.desc, /Line chart of .*over 3 points/);
    await screenshot(page, 'trials.png');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('figure: time to compare two 1,024-task runs in the page', { skip: !process.env.LAB_BIG && 'set LAB_BIG to a 1,024-task dataset (wildtool generate --sessions 256) to measure' }, async () => {
    const fresh = await launchBrowser();
    try {
      const { page, problems } = await openPage(fresh.context, server.url);
      await page.waitForFunction(() => document.body.dataset.dataset);
      await page.click('nav [data-view="setup"]');
      await page.check('input[name="ds-kind"][value="upload"]');
      await page.setInputFiles('#ds-file', process.env.LAB_BIG);
      await page.waitForFunction(() => /256 sessions/.test(document.getElementById('ds-info')?.textContent || ''), null, { timeout: 60_000 });
      await agentRun(page, 'gold');
      await agentRun(page, 'baseline');
      await page.click('nav [data-view="compare"]');
      // Warm the lab module (loaded once per page), then time a comparison from the tick.
      const boxes = await page.$$('#compare-picker input[type="checkbox"]');
      await boxes[0].check();
      await boxes[1].check();
      await page.waitForFunction(() => document.body.dataset.compare === 'ready', null, { timeout: 120_000 });
      const times = [];
      for (let i = 0; i < 3; i += 1) {
        await boxes[1].uncheck();
        await page.waitForFunction(() => document.body.dataset.compare === 'waiting');
        const t0 = Date.now();
        await boxes[1].check();
        await page.waitForFunction(() => document.body.dataset.compare === 'ready', null, { timeout: 120_000, polling: 5 });
        times.push(Date.now() - t0);
      }
      console.log(`compare two 1,024-task runs in the page (ms, module loaded): ${times.join(', ')}`);
      assert.deepEqual(problems, []);
    } finally {
      await fresh.close();
    }
  });
});
