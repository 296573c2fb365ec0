// End-to-end: the served page (built-in agents, a live run against the scripted mock,
// reload → resume, offline scoring, share links, exports, hostile inputs), compared with
// the `wildtool` CLI on the same inputs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';
import { HOSTILE, startMock } from './mock-openai.mjs';

const run = promisify(execFile);
const CLI = join(ROOT, 'target/debug/wildtool');
const SUITE = join(ROOT, 'data/suite.jsonl');
const MINI = join(ROOT, 'tests/fixtures/mini.jsonl');

let server;
let browser;
let mock;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-work-'));
  [server, browser, mock] = await Promise.all([startServer(), launchBrowser(), startMock()]);
  try {
    await run('cargo', ['build', '--quiet', '--bin', 'wildtool'], { cwd: ROOT, maxBuffer: 1 << 24 });
  } catch (err) {
    throw new Error(`cannot build the CLI: ${err.stderr || err.message}`);
  }
});

after(async () => {
  await browser?.close();
  server?.stop();
  await mock?.stop();
});

async function downloadText(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

async function waitDone(page, timeout = 180_000) {
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout });
  await drawn(page);
}

const headline = (page) => page.$$eval('#headline .metric-value', (v) => v.map((x) => x.textContent));
const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);
const labelsOf = (scoreJsonl) => scoreJsonl.trim().split('\n').map((l) => JSON.parse(l)).map((s) => [s.id, Array.isArray(s.results) ? s.results.map((t) => t.label) : s.results]);

/** Chooses "Upload" in Setup and loads `path` as the dataset. */
async function uploadDataset(page, path, sessions) {
  await page.check('input[name="ds-kind"][value="upload"]');
  await page.setInputFiles('#ds-file', path);
  await page.waitForFunction((n) => new RegExp(`${n} sessions`).test(document.getElementById('ds-info')?.textContent || ''), sessions);
}

/** Scores `path` in Offline scoring; resolves to the final `offline` hook. */
async function scoreUpload(page, path) {
  await page.click('nav [data-view="offline"]');
  const before = Number(await hook(page, 'offlineFinished') || 0);
  await page.setInputFiles('#result-file', path);
  await page.waitForFunction((b) => Number(document.body.dataset.offlineFinished || 0) > b, before, { timeout: 120_000 });
  return hook(page, 'offline');
}

async function cli(args) {
  const { stdout } = await run(CLI, args, { cwd: ROOT, maxBuffer: 1 << 26 });
  return stdout;
}

/** Asserts nothing from hostile inputs became markup or ran. */
async function assertInert(page) {
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'a hostile payload ran');
  assert.equal(await page.$$eval('img, iframe, object, embed, script:not([src])', (n) => n.length), 0, 'hostile markup became elements');
}

describe('static server and page source', () => {
  test('serves wasm with application/wasm and refuses traversal', async () => {
    const wasm = await fetch(`${server.url}pkg/wildtool_bg.wasm`);
    assert.equal(wasm.status, 200);
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    for (const path of ['%2e%2e/Cargo.toml', '..%2fCargo.toml', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'pkg/%00x']) {
      const res = await fetch(`${server.url}${path}`);
      assert.ok(res.status === 403 || res.status === 404, `${path} → ${res.status}`);
      assert.doesNotMatch(await res.text(), /\[package\]|root:/);
    }
  });

  test('no HTML-string sinks or eval anywhere in www/', async () => {
    const files = [];
    const walk = async (dir) => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) { if (e.name !== 'data') await walk(p); } else if (/\.(js|mjs|html)$/.test(e.name)) files.push(p);
      }
    };
    await walk(join(ROOT, 'www'));
    assert.ok(files.length >= 5, files.join(','));
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      for (const sink of [/\binnerHTML\b/, /\bouterHTML\b/, /insertAdjacentHTML/, /document\.write/, /\beval\s*\(/, /new Function\s*\(/, /\bsrcdoc\b/]) {
        assert.doesNotMatch(text, sink, `${f} uses ${sink}`);
      }
    }
    const html = await readFile(join(ROOT, 'www/index.html'), 'utf8');
    const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1] || '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
    assert.match(csp, /connect-src 'self' [^;]*https:/);
    assert.doesNotMatch(csp, /unsafe-inline|'unsafe-eval'/);
  });
});

describe('built-in agents', () => {
  test('gold agent run from the setup panel → 100%, every chart accessible', async () => {
    const { page, problems } = await openPage(browser.context, server.url);
    await page.waitForFunction(() => document.body.dataset.dataset);
    await screenshot(page, 'setup.png');
    await page.selectOption('#m-provider', 'gold');
    await page.click('#start-run');
    await waitDone(page);
    assert.deepEqual((await headline(page)).slice(0, 2), ['100.0%', '100.0%']);
    const charts = await page.$$eval('#charts figure svg', (svgs) => svgs.map((s) => ({
      role: s.getAttribute('role'),
      labelledby: s.getAttribute('aria-labelledby'),
      title: s.querySelector('title')?.textContent,
      desc: s.querySelector('desc')?.textContent,
    })));
    assert.ok(charts.length >= 6, `charts: ${charts.length}`);
    for (const c of charts) {
      assert.equal(c.role, 'img');
      assert.ok(c.title && c.desc && c.desc.length > 10, JSON.stringify(c));
      for (const id of c.labelledby.split(' ')) assert.ok(await page.$(`[id="${id}"]`), `missing #${id}`);
    }
    assert.equal(await page.$$eval('#charts figure table.data-table', (t) => t.length), charts.length);
    const ids = await page.$$eval('#charts figure', (f) => f.map((x) => x.dataset.chart));
    assert.deepEqual(ids, ['by-type', 'by-position', 'by-subtype', 'by-transitions', 'errors', 'comparison']);
    // Exports: metric.json says 100%, CSV has one row per task, SVG/PNG downloads work.
    const metric = JSON.parse(await downloadText(page, '#exp-metric'));
    assert.equal(metric.total_info.task.accuracy, 1);
    const csv = await downloadText(page, '#exp-csv');
    assert.equal(csv.trim().split('\n').length, 1 + 256);
    const svg = await downloadText(page, '#charts figure button[aria-label$="as SVG"]');
    assert.match(svg, /^<svg/);
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#charts figure button[aria-label$="as PNG"]')]);
    assert.match(png.suggestedFilename(), /\.png$/);
    await screenshot(page, 'dashboard-gold.png');
    assert.deepEqual(problems, []);
    await page.close();
  });
});

let pageMockMetric;

describe('live run against the mock endpoint', () => {
  test('page run (autorun via query parameters) gives the same labels and metric.json as `wildtool run`', async () => {
    const out = join(work, 'cli-mock');
    await cli(['run', '--dataset', SUITE, '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--concurrency', '4', '--out', out, '--api-key-env', 'WILDTOOL_E2E_NO_KEY']);
    const cliMetric = await readFile(join(out, 'metric.json'), 'utf8');
    const cliScore = await readFile(join(out, 'score.jsonl'), 'utf8');

    const q = new URLSearchParams({ dataset: 'bundled', provider: 'openai', base_url: mock.url, model: 'mock', concurrency: '4', autorun: '1' });
    const { page, problems } = await openPage(browser.context, `${server.url}?${q}`);
    await page.waitForFunction(() => Number(document.body.dataset.tasksSaved || 0) > 5);
    await screenshot(page, 'run.png');
    await waitDone(page);
    assert.equal(await hook(page, 'runOutcome'), 'done');
    pageMockMetric = await downloadText(page, '#exp-metric');
    const pageScore = await downloadText(page, '#exp-score');
    assert.deepEqual(labelsOf(pageScore), labelsOf(cliScore));
    assert.equal(pageMockMetric, cliMetric);
    const result = await downloadText(page, '#exp-result');
    assert.equal(result.trim().split('\n').length, 64);
    const [runDl] = await Promise.all([page.waitForEvent('download'), page.click('#exp-run')]);
    const runFile = join(work, 'page-run.wildtool-run.json');
    await runDl.saveAs(runFile);
    const runDoc = await readFile(runFile, 'utf8');
    assert.ok(!runDoc.includes(mock.url), 'the run file holds no endpoint URL');
    // The page's checkpoint is a CLI checkpoint: `wildtool run` resumes from it (nothing left to run).
    const [ckDl] = await Promise.all([page.waitForEvent('download'), page.click('#exp-checkpoint')]);
    const resumeDir = join(work, 'cli-resume-from-page');
    await mkdir(resumeDir, { recursive: true });
    await ckDl.saveAs(join(resumeDir, 'checkpoint.jsonl'));
    const before = mock.stats.requests;
    await cli(['run', '--dataset', SUITE, '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--out', resumeDir, '--api-key-env', 'WILDTOOL_E2E_NO_KEY']);
    assert.ok(mock.stats.requests - before <= 1, 'the CLI found every task in the page checkpoint (at most its preflight was sent)');
    assert.equal(await readFile(join(resumeDir, 'metric.json'), 'utf8'), cliMetric);

    // Traces: failed tasks, opened down to the steps; the model's hostile text stays text.
    await page.click('nav [data-view="traces"]');
    await page.check('#f-failed');
    await page.waitForFunction(() => /tasks match/.test(document.getElementById('trace-count')?.textContent || ''));
    const rows = await page.$$('#trace-list > li');
    assert.ok(rows.length > 0 && rows.length <= 50);
    for (let i = 0; i < Math.min(rows.length, 4); i += 1) {
      await page.click(`#trace-list > li:nth-child(${i + 1}) > details > summary`);
      await page.waitForSelector(`#trace-list > li:nth-child(${i + 1}) .task-detail`);
      const steps = await page.$$(`#trace-list > li:nth-child(${i + 1}) details.step > summary`);
      if (steps.length) {
        await steps[0].click();
        await page.waitForSelector(`#trace-list > li:nth-child(${i + 1}) .verdict`);
      }
    }
    const text = await page.textContent('#trace-list');
    assert.ok(text.includes('Verdict'), 'trace text rendered');
    assert.match(page.url(), /view=traces/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'traces.png', { fullPage: false });
    await assertInert(page);

    // Offline: the page's run file and the CLI's checkpoint score to the same metric.json.
    for (const file of [runFile, join(out, 'checkpoint.jsonl')]) {
      assert.equal(await scoreUpload(page, file), 'done', await page.textContent('#status'));
      assert.equal(await downloadText(page, '#exp-metric'), cliMetric, file);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('reload during a run → resume → same metric.json', async () => {
    mock.setDelay(60);
    const q = new URLSearchParams({ dataset: 'bundled', provider: 'openai', base_url: mock.url, model: 'mock', concurrency: '2', autorun: '1' });
    const { page, problems } = await openPage(browser.context, `${server.url}?${q}`);
    await page.waitForFunction(() => Number(document.body.dataset.tasksSaved || 0) >= 20, null, { timeout: 60_000 });
    await page.click('#pause-run');
    await page.waitForFunction(() => document.body.dataset.runState === 'paused');
    await page.waitForTimeout(400); // in-flight tasks settle
    const paused = Number(await hook(page, 'tasksSaved'));
    await page.waitForTimeout(500);
    assert.equal(Number(await hook(page, 'tasksSaved')), paused, 'no task starts while paused');
    await page.click('#pause-run'); // resume
    await page.waitForFunction((n) => Number(document.body.dataset.tasksSaved) > n, paused);
    const saved = Number(await hook(page, 'tasksSaved'));
    await page.goto(server.url);
    await page.waitForFunction(() => document.body.dataset.resume === 'offered', null, { timeout: 20_000 });
    const offer = await page.textContent('#resume-text');
    const stored = Number(offer.match(/(\d+) of 256 tasks saved/)?.[1]);
    assert.match(offer, /^mock on the bundled suite: \d+ of 256 tasks saved \(interrupted\)/);
    assert.ok(stored >= saved - 2, `${stored} stored, ${saved} seen saved before the reload`);
    await screenshot(page, 'resume-offer.png', { fullPage: false });
    mock.setDelay(0);
    await page.click('#resume-run');
    await waitDone(page);
    assert.equal(await hook(page, 'runOutcome'), 'done');
    assert.equal(await downloadText(page, '#exp-metric'), pageMockMetric);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a CLI checkpoint dropped on the page resumes there', async () => {
    mock.setDelay(0);
    const out = join(work, 'cli-partial');
    await mkdir(out, { recursive: true });
    // A checkpoint of the first 10 sessions only, as an interrupted `wildtool run` leaves it.
    await cli(['run', '--dataset', SUITE, '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--sessions', '0-9', '--out', out, '--api-key-env', 'WILDTOOL_E2E_NO_KEY']);
    const q = new URLSearchParams({ provider: 'openai', base_url: mock.url, model: 'mock', concurrency: '4' });
    const { page, problems } = await openPage(browser.context, `${server.url}?${q}`);
    assert.equal(await scoreUpload(page, join(out, 'checkpoint.jsonl')), 'done');
    assert.match(await page.textContent('#dash-banner'), /40 of 256 tasks scored/);
    await page.click('nav [data-view="history"]');
    await page.click('#history-list button[aria-label^="Resume"]');
    await waitDone(page);
    assert.equal(await hook(page, 'runOutcome'), 'done');
    assert.equal(JSON.parse(await hook(page, 'headline')).tasks_scored, 256);
    assert.equal(await downloadText(page, '#exp-metric'), pageMockMetric);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('network failures', () => {
  test('an endpoint without CORS fails the run at the preflight, with the reason and the help', async () => {
    const closed = await startMock(0, { cors: false });
    try {
      const q = new URLSearchParams({ provider: 'openai', base_url: closed.url, model: 'm', concurrency: '2', autorun: '1' });
      const { page } = await openPage(browser.context, `${server.url}?${q}`);
      await waitDone(page, 30_000);
      assert.equal(await hook(page, 'runOutcome'), 'failed');
      assert.match(await hook(page, 'runError'), /CORS|origin/);
      assert.match(await page.textContent('#run-error'), /CORS|origin/);
      assert.equal(await hook(page, 'tasksSaved'), '0');
      await page.click('nav [data-view="setup"]');
      assert.equal(await page.$eval('#cors-help', (d) => d.open), true);
      assert.match(await page.textContent('#cors-help'), /OLLAMA_ORIGINS/);
      assert.match(await page.textContent('#cors-help'), /--allowed-origins/);
      await screenshot(page, 'cors-help.png');
      await page.close();
    } finally {
      await closed.stop();
    }
  });
});

describe('Chinese data', () => {
  test('lang=zh run loads jieba lazily and matches `wildtool run --lang zh` on the mock', async () => {
    const text = (await readFile(MINI, 'utf8')).replaceAll('Paris', '巴黎').replaceAll('Berlin', '柏林').replaceAll('Madrid', '马德里');
    const path = join(work, 'mini-zh.jsonl');
    await writeFile(path, text);
    const out = join(work, 'cli-zh');
    await cli(['run', '--dataset', path, '--lang', 'zh', '--provider', 'openai', '--base-url', mock.url, '--model', 'mock-zh', '--out', out, '--api-key-env', 'WILDTOOL_E2E_NO_KEY']);
    const cliMetric = await readFile(join(out, 'metric.json'), 'utf8');
    const cliScore = await readFile(join(out, 'score.jsonl'), 'utf8');

    const q = new URLSearchParams({ provider: 'openai', base_url: mock.url, model: 'mock-zh', lang: 'zh' });
    const { page, problems } = await openPage(browser.context, `${server.url}?${q}`);
    assert.equal(await hook(page, 'dictionary'), undefined, 'no dictionary before Chinese text');
    await uploadDataset(page, path, 8);
    await page.click('#start-run');
    await waitDone(page);
    assert.equal(await page.evaluate(() => document.body.dataset.dictionary), 'loaded');
    // The lazily loaded module is jieba itself (accurate mode, HMM on).
    const words = await page.evaluate(async () => {
      const mod = await import('./pkg/jieba/wildtool_jieba.js');
      await mod.default();
      const dict = new Uint8Array(await (await fetch('./data/jieba-dict.txt')).arrayBuffer());
      return new mod.Segmenter(dict).cut('我来到北京清华大学');
    });
    assert.deepEqual(words, ['我', '来到', '北京', '清华大学']);
    assert.deepEqual(labelsOf(await downloadText(page, '#exp-score')), labelsOf(cliScore));
    assert.equal(await downloadText(page, '#exp-metric'), cliMetric);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('offline scoring', () => {
  for (const seed of ['mock-seed-0', 'mock-seed-5']) {
    test(`upload ${seed}/mini_result.jsonl + mini.jsonl → same metric.json as \`wildtool score\``, async () => {
      const results = join(ROOT, 'tests/fixtures/official-runs', seed, 'mini_result.jsonl');
      const out = join(work, `cli-${seed}`);
      await cli(['score', '--dataset', MINI, '--results', results, '--out', out]);
      const cliMetric = await readFile(join(out, 'metric.json'), 'utf8');
      const cliScore = await readFile(join(out, 'score.jsonl'), 'utf8');

      const { page, problems } = await openPage(browser.context, server.url);
      await page.waitForFunction(() => document.body.dataset.dataset);
      await uploadDataset(page, MINI, 8);
      assert.equal(await scoreUpload(page, results), 'done', await page.textContent('#status'));
      assert.equal(await downloadText(page, '#exp-metric'), cliMetric);
      assert.equal(await downloadText(page, '#exp-score'), cliScore);
      if (seed === 'mock-seed-0') {
        // The CLI's HTML report of the same run, for a look next to the page.
        await cli(['report', '--dataset', MINI, '--score-dir', out, '--out', join(out, 'report.html')]);
        const report = await browser.context.newPage();
        await report.goto(`file://${join(out, 'report.html')}`);
        assert.equal(await report.$$eval('figure svg[role="img"]', (s) => s.length), 6);
        await screenshot(report, 'report-html.png');
        await report.close();
        await page.click('nav [data-view="offline"]');
        await screenshot(page, 'offline.png');
        await page.click('nav [data-view="dashboard"]');
        await screenshot(page, 'dashboard-offline.png');
      }
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});

describe('uploads say what they are', () => {
  test('garbage, empty, CSV, dataset, binary and a bad checkpoint field are refused with their own messages; another dataset\'s results too', async () => {
    const files = {
      'garbage.jsonl': ['this is not a result file\n', 'This is not a result file'],
      'empty.jsonl': ['', 'The file is empty'],
      'tasks.csv': ['session,task,correct\n0,0,true\n0,1,false\n', 'looks like a CSV file'],
      'image.bin': [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]), 'This is not a text file'],
      'bad-checkpoint.jsonl': ['{"wildtool_checkpoint": 1, "model_name": 7, "dataset": "x"}\n', 'field "model_name" must be a string'],
    };
    const { page, problems } = await openPage(browser.context, server.url);
    await page.waitForFunction(() => /64 sessions/.test(document.getElementById('ds-info')?.textContent || ''));
    const refused = async (path, expected) => {
      assert.equal(await scoreUpload(page, path), 'error', path);
      const status = await page.textContent('#offline-info');
      assert.ok(status.includes(expected), `${path}: ${status}`);
      return status;
    };
    const seen = new Set();
    for (const [name, [body, expected]] of Object.entries(files)) {
      const path = join(work, name);
      await writeFile(path, body);
      seen.add(await refused(path, expected));
    }
    seen.add(await refused(SUITE, 'This is a dataset file, not results'));
    // The mini run scored against the bundled suite: ids 0-7 exist in both, the user turns do not.
    seen.add(await refused(join(ROOT, 'tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl'), 'These results belong to another dataset: 32 of 32 recorded user turns differ'));
    assert.equal(seen.size, Object.keys(files).length + 2, 'every refusal has its own message');
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('large uploads', () => {
  test('a 40 MB result file is streamed in slices without freezing the tab', async () => {
    const src = (await readFile(join(ROOT, 'tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl'), 'utf8')).trim().split('\n');
    const copies = [];
    let size = 0;
    while (size < 40 * 1048576) {
      for (const l of src) { copies.push(l); size += l.length + 1; }
    }
    const path = join(work, 'big_result.jsonl');
    await writeFile(path, `${copies.join('\n')}\n`);
    const { page, problems } = await openPage(browser.context, server.url);
    await uploadDataset(page, MINI, 8);
    await page.click('nav [data-view="offline"]');
    await page.evaluate(() => {
      window.__lag = 0;
      window.__seen = new Set();
      let last = performance.now();
      setInterval(() => {
        const now = performance.now();
        if (document.body.dataset.offline === 'scoring') window.__lag = Math.max(window.__lag, now - last - 50);
        last = now;
        const bar = document.getElementById('offline-bar');
        if (bar) window.__seen.add(bar.getAttribute('value'));
      }, 50);
    });
    const started = Date.now();
    await page.setInputFiles('#result-file', path);
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.offline), null, { timeout: 120_000 });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(await hook(page, 'offline'), 'done');
    await page.click('nav [data-view="offline"]');
    // Every line repeats one of the mini fixture's 8 sessions: each task is shown once, and
    // the note says metric.json counts every line, as the official scorer does (P19).
    const info = await page.textContent('#offline-info');
    assert.match(info, /32 of 32 tasks scored/);
    assert.match(info, new RegExp(`${copies.length - 8} result line\\(s\\) repeat a session`));
    const lag = await page.evaluate(() => window.__lag);
    const steps = await page.evaluate(() => window.__seen.size);
    console.log(`40 MB upload: scored in ${seconds.toFixed(1)} s; longest event-loop stall while scoring ${Math.round(lag)} ms; ${steps} progress updates`);
    assert.ok(lag < 1000, `event loop stalled ${lag} ms`);
    // The worker reports progress every 16 MB (www/js/workers/score-worker.js), so the bar
    // of a 40 MB file takes at least three values before it is done: read in slices.
    assert.ok(steps >= 3, `progress updates: ${steps}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('share links', () => {
  test('a 1,024-task run fits in 2,000 characters and reopens identically in a fresh profile (dataset asked for, fingerprint checked)', async () => {
    // 4 × the bundled suite, ids renumbered: 256 sessions, 1,024 tasks.
    const lines = (await readFile(SUITE, 'utf8')).trim().split('\n');
    const big = [];
    for (let k = 0; k < 4; k += 1) {
      for (const l of lines) {
        const v = JSON.parse(l);
        v.id = `wild_tool_bench_${big.length}`;
        big.push(JSON.stringify(v));
      }
    }
    const bigPath = join(work, 'suite-x4.jsonl');
    await writeFile(bigPath, `${big.join('\n')}\n`);

    const { page } = await openPage(browser.context, `${server.url}?provider=baseline&concurrency=8`);
    await page.check('input[name="ds-kind"][value="upload"]');
    await page.setInputFiles('#ds-file', bigPath);
    await page.waitForFunction(() => /1024 tasks/.test(document.getElementById('ds-info')?.textContent || ''));
    await page.click('#start-run');
    await waitDone(page);
    const link = await page.inputValue('#share-link');
    const fragment = link.split('#')[1];
    assert.match(fragment, /^v1\.[A-Za-z0-9_-]+$/);
    console.log(`share link for a 1,024-task run: ${fragment.length} characters in the fragment, ${link.length} in the URL`);
    assert.ok(fragment.length <= 2000, `fragment ${fragment.length} chars`);
    const before = await headline(page);
    const tables = await page.$$eval('#charts table.data-table', (t) => t.map((x) => x.textContent));
    await page.close();

    const fresh = await launchBrowser();
    try {
      const { page: opened, problems } = await openPage(fresh.context, link);
      await opened.waitForFunction(() => document.body.dataset.share === 'needs-dataset');
      assert.match(await opened.textContent('#status'), /another dataset/);
      // The bundled suite does not match; the right dataset is accepted.
      await opened.check('input[name="ds-kind"][value="upload"]');
      await opened.setInputFiles('#ds-file', bigPath);
      await opened.waitForFunction(() => document.body.dataset.share === 'opened', null, { timeout: 30_000 });
      assert.match(await opened.textContent('#status'), /Loaded from a share link/);
      assert.deepEqual(await headline(opened), before);
      await drawn(opened);
      assert.deepEqual(await opened.$$eval('#charts table.data-table', (t) => t.map((x) => x.textContent)), tables);
      await screenshot(opened, 'shared-link.png');
      assert.deepEqual(problems, []);
    } finally {
      await fresh.close();
    }
  });

  test('bundled-suite link opens directly with the same numbers', async () => {
    const { page } = await openPage(browser.context, `${server.url}?provider=baseline&autorun=1`);
    await waitDone(page);
    const link = await page.inputValue('#share-link');
    const before = await headline(page);
    await page.close();
    const fresh = await launchBrowser();
    try {
      const { page: opened, problems } = await openPage(fresh.context, link);
      await opened.waitForFunction(() => document.body.dataset.share === 'opened');
      assert.deepEqual(await headline(opened), before);
      assert.deepEqual(problems, []);
    } finally {
      await fresh.close();
    }
  });

  for (const [name, fragment] of [
    ['markup payload', `v1.${encodeURIComponent(HOSTILE)}`],
    ['wrong version', 'v9.AAAA'],
    ['garbage', '%F0%9F%92%A5<svg/onload=alert(2)>'],
    ['bad percent-encoding', '%E0%A4%A'],
    ['truncated', 'v1.DndpbGR0b29s'],
  ]) {
    test(`hostile fragment is inert: ${name}`, async () => {
      const { page, problems } = await openPage(browser.context, `${server.url}#${fragment}`);
      await page.waitForFunction(() => document.body.dataset.share === 'error');
      assert.match(await page.textContent('#status'), /cannot be opened/);
      assert.equal(await page.$$eval('#status *', (n) => n.length), 0, 'status holds text only');
      await assertInert(page);
      assert.deepEqual(problems.filter((p) => !p.startsWith('console: Failed to load resource')), []);
      if (name === 'markup payload') await screenshot(page, 'hostile-link.png');
      await page.close();
    });
  }
});

describe('hostile dataset', () => {
  test('payloads in ids, messages, tools and problems stay text through validation, run, dashboard and traces', async () => {
    const lines = (await readFile(MINI, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    const payload = '<img src=x onerror=window.__pwned=1>';
    const evil = lines.map((v, i) => {
      const s = JSON.stringify(v).replaceAll('Paris', `Paris ${payload}`).replaceAll('Get the current weather', `Get the current weather ${payload}`);
      const o = JSON.parse(s);
      if (i === 7) o.english_tasks = payload; // a validation error with hostile text
      return JSON.stringify(o);
    });
    evil.push(JSON.stringify({ id: HOSTILE }));
    const path = join(work, 'hostile.jsonl');
    await writeFile(path, `${evil.join('\n')}\n`);
    const { page, problems } = await openPage(browser.context, `${server.url}?provider=gold`);
    await page.check('input[name="ds-kind"][value="upload"]');
    await page.setInputFiles('#ds-file', path);
    await page.waitForSelector('#ds-problems table', { timeout: 20_000 });
    assert.ok((await page.textContent('#ds-problems')).length > 20);
    await assertInert(page);
    await screenshot(page, 'hostile-dataset.png');
    await page.click('#start-run');
    await waitDone(page);
    await page.click('nav [data-view="traces"]');
    const rows = await page.$$('#trace-list > li');
    for (let i = 1; i <= Math.min(rows.length, 8); i += 1) {
      await page.click(`#trace-list > li:nth-child(${i}) > details > summary`);
      await page.waitForSelector(`#trace-list > li:nth-child(${i}) .task-detail`);
      for (const step of await page.$$(`#trace-list > li:nth-child(${i}) details.step > summary`)) await step.click();
    }
    await page.waitForTimeout(200);
    await page.$$eval('#trace-list details.sub', (ds) => ds.forEach((d) => { d.open = true; }));
    assert.ok((await page.textContent('#trace-list')).includes(payload));
    await assertInert(page);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
