// End-to-end: cassettes in the page. A page run recorded with "Record a cassette" against
// the mock and replayed from the downloaded cassette.jsonl with the mock stopped gives
// the same result.jsonl, score.jsonl and metric.json; a cassette without some exchanges
// ends those tasks incomplete; a cassette recorded by `wildtool run --cassette` replays
// in the page, and the page's replays with `wildtool run --offline` (same metric.json).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, launchBrowser, openPage, startServer } from './helpers.mjs';
import { startMock } from './mock-openai.mjs';

const run = promisify(execFile);
const CLI = join(ROOT, 'target/debug/wildtool');
const SUITE = join(ROOT, 'data/suite.jsonl');

const REFUSED = /^\d+ of \d+ tasks did not finish; last failure: offline: this request is not in the cassette \(key [0-9a-f]{12}…\); nothing was sent$/;

let server;
let browser;
let mock;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-cassette-'));
  [server, browser, mock] = await Promise.all([startServer(), launchBrowser(), startMock()]);
  await run('cargo', ['build', '--quiet', '--bin', 'wildtool'], { cwd: ROOT, maxBuffer: 1 << 24 });
});

after(async () => {
  await browser?.close();
  server?.stop();
  await mock?.stop();
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);
const cli = (args) => run(CLI, args, { cwd: ROOT, maxBuffer: 1 << 26 });

async function downloadText(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

/// A page run with the given cassette choice; its outcome and export files.
async function pageRun(url, { record = false, replay = null, dataset = null } = {}) {
  const q = new URLSearchParams({ provider: 'openai', base_url: url, model: 'mock', concurrency: '4' });
  if (!dataset) q.set('dataset', 'bundled');
  const { page } = await openPage(browser.context, `${server.url}?${q}`);
  if (dataset) {
    await page.check('input[name="ds-kind"][value="upload"]');
    await page.setInputFiles('#ds-file', dataset);
    const name = dataset.split('/').pop();
    await page.waitForFunction((n) => (document.getElementById('ds-info')?.textContent || '').startsWith(`${n}: `), name);
  }
  await page.waitForSelector('#start-run');
  if (record) await page.click('#cassette-record');
  if (replay) {
    await page.setInputFiles('#cassette-input', replay);
    await page.waitForSelector('#cassette-replaying');
  }
  await page.click('#start-run');
  await page.waitForFunction(() => ['done', 'ended', 'failed'].includes(document.body.dataset.runState) || document.body.dataset.runOutcome, null, { timeout: 180_000 });
  await page.waitForFunction(() => document.body.dataset.runOutcome, null, { timeout: 180_000 });
  const outcome = await hook(page, 'runOutcome');
  const reason = await hook(page, 'runError');
  await page.click('nav [data-view="dashboard"]');
  const files = {};
  for (const f of ['result', 'score', 'metric']) files[f] = await downloadText(page, `#exp-${f}`);
  if (record) files.cassette = await downloadText(page, '#exp-cassette');
  await page.close();
  return { outcome, reason, files };
}

describe('page cassettes', () => {
  test('record in the page, replay with the mock stopped; CLI and page cassettes replay in each other', async () => {
    const cliTape = join(work, 'cli.jsonl');
    const cliOut = join(work, 'cli');
    await cli(['run', '--dataset', SUITE, '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--concurrency', '4', '--api-key-env', 'WILDTOOL_E2E_NO_KEY', '--out', cliOut, '--cassette', cliTape]);
    const cliMetric = await readFile(join(cliOut, 'metric.json'), 'utf8');

    const recorded = await pageRun(mock.url, { record: true });
    assert.equal(recorded.outcome, 'done');
    assert.match(recorded.files.cassette, /^\{"wildtool_cassette": 1\}\n/);
    assert.ok(!recorded.files.cassette.includes('127.0.0.1'), 'no origin in the cassette');
    const pageTape = join(work, 'page.jsonl');
    await writeFile(pageTape, recorded.files.cassette);

    const url = mock.url;
    await mock.stop();
    mock = null;
    const replayed = await pageRun(url, { replay: pageTape });
    assert.equal(replayed.outcome, 'done');
    for (const f of ['result', 'score', 'metric']) assert.equal(replayed.files[f], recorded.files[f], `${f} of the replay`);

    // The CLI's cassette in the page, and the page's with the CLI.
    const fromCli = await pageRun(url, { replay: cliTape });
    assert.equal(fromCli.outcome, 'done');
    assert.equal(fromCli.files.metric, cliMetric);
    const offline = join(work, 'offline');
    await cli(['run', '--dataset', SUITE, '--provider', 'openai', '--base-url', url, '--model', 'mock', '--concurrency', '4', '--api-key-env', 'WILDTOOL_E2E_NO_KEY', '--out', offline, '--cassette', pageTape, '--offline']);
    assert.equal(await readFile(join(offline, 'metric.json'), 'utf8'), recorded.files.metric);

    // Without its last ten exchanges, those requests are refused: tasks end incomplete.
    const lines = recorded.files.cassette.trim().split('\n');
    const short = join(work, 'short.jsonl');
    await writeFile(short, lines.slice(0, -10).join('\n') + '\n');
    const missing = await pageRun(url, { replay: short });
    assert.equal(missing.outcome, 'incomplete');
    assert.match(missing.reason, REFUSED);

    // A changed dataset (the first session's date): its requests are not in the cassette.
    // A server is listening this time, and gets nothing.
    const suite = (await readFile(SUITE, 'utf8')).split('\n');
    // Every date of the first session's line (its English and Chinese fields alike).
    const first = suite[0].replaceAll('18:40:00', '18:41:00');
    assert.notEqual(first, suite[0]);
    suite[0] = first;
    const changed = join(work, 'changed.jsonl');
    await writeFile(changed, suite.join('\n'));
    const listening = await startMock();
    try {
      const other = await pageRun(listening.url, { replay: pageTape, dataset: changed });
      assert.equal(other.outcome, 'incomplete');
      assert.match(other.reason, REFUSED);
      assert.equal(listening.stats.requests, 0, 'nothing sent while replaying');
    } finally {
      await listening.stop();
    }
  });
});
