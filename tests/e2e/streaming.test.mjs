// End-to-end: streaming against the mock endpoint — `wildtool run --stream` and a page
// run with `stream=1` give the same labels and metric.json as the same run without
// streaming (the mock answers streamed requests as event streams, token by token); the
// run view shows first-token latency; the page's Check streaming button passes on a
// faithful mock and names the difference on one that drops arguments when streaming
// (axe-checked, at 390 and 1,400 px, light and dark).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';
import { startMock } from './mock-openai.mjs';

const run = promisify(execFile);
const CLI = join(ROOT, 'target/debug/wildtool');
const SUITE = join(ROOT, 'data/suite.jsonl');

let server;
let browser;
let mock;
let work;
let axeSource;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-stream-'));
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
const labelsOf = (scoreJsonl) => scoreJsonl.trim().split('\n').map((l) => JSON.parse(l)).map((s) => [s.id, s.results.map((t) => t.label)]);
const cli = (args) => run(CLI, args, { cwd: ROOT, maxBuffer: 1 << 26 });

async function downloadText(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

async function axe(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('streamed runs', () => {
  test('wildtool run --stream and a streamed page run score exactly like the run without streaming', async () => {
    const plain = join(work, 'plain');
    const streamed = join(work, 'streamed');
    const base = ['run', '--dataset', SUITE, '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--concurrency', '4', '--api-key-env', 'WILDTOOL_E2E_NO_KEY'];
    await cli([...base, '--out', plain]);
    const { stderr } = await cli([...base, '--out', streamed, '--stream']);
    assert.match(stderr, /stream: first token .* median/);
    const metric = await readFile(join(plain, 'metric.json'), 'utf8');
    const labels = labelsOf(await readFile(join(plain, 'score.jsonl'), 'utf8'));
    assert.equal(await readFile(join(streamed, 'metric.json'), 'utf8'), metric);
    assert.deepEqual(labelsOf(await readFile(join(streamed, 'score.jsonl'), 'utf8')), labels);

    const q = new URLSearchParams({ dataset: 'bundled', provider: 'openai', base_url: mock.url, model: 'mock', concurrency: '4', stream: '1', autorun: '1' });
    const before = mock.stats.requests;
    const { page } = await openPage(browser.context, `${server.url}?${q}`);
    await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 180_000 });
    assert.equal(await hook(page, 'runOutcome'), 'done');
    assert.ok(mock.stats.requests > before);
    await page.click('nav [data-view="run"]');
    assert.match(await page.textContent('#run-stats'), /First token\s*[\d.]+ s median/);
    await page.click('nav [data-view="dashboard"]');
    assert.equal(await downloadText(page, '#exp-metric'), metric);
    assert.deepEqual(labelsOf(await downloadText(page, '#exp-score')), labels);
    await page.close();
  });
});

describe('the streaming check', () => {
  test('passes on a faithful server and names the difference on one that drops arguments', async () => {
    const q = new URLSearchParams({ provider: 'openai', base_url: mock.url, model: 'mock' });
    const { page, problems } = await openPage(browser.context, `${server.url}?${q}`);
    await page.click('#probe-stream');
    await page.waitForFunction(() => document.body.dataset.probeState && document.body.dataset.probeState !== 'running', null, { timeout: 60_000 });
    assert.notEqual(await hook(page, 'probeState'), 'differ', await page.textContent('#probe-report'));

    mock.setStreamFault('drop-arguments');
    try {
      await page.click('#probe-stream');
      await page.waitForFunction(() => document.body.dataset.probeState === 'differ', null, { timeout: 60_000 });
      const report = await page.textContent('#probe-report');
      assert.match(report, /loses or changes tool calls when streaming/);
      assert.match(report, /lost its arguments when streaming/);
      assert.match(report, /streamed: +\w+\(\{\}\)/);
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const width of [390, 1400]) {
          await page.setViewportSize({ width, height: 900 });
          const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
          assert.equal(scrolls, false, `no sideways scrolling at ${width} px`);
          assert.deepEqual(await axe(page), [], `${scheme} ${width}`);
          await screenshot(page, `probe-${scheme}-${width}.png`);
        }
      }
    } finally {
      mock.setStreamFault(null);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
});
