// End-to-end: what a new user runs into when things go wrong — a refused key, an
// unreachable endpoint, files that are not results, another dataset's results, a
// cancelled run shared by link, a reload after a run, Cancel during retry waits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';
import { startMock } from './mock-openai.mjs';

let server;
let browser;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-fail-'));
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);
const waitDone = async (page, timeout = 60_000) => {
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout });
  await drawn(page);
};
const endpointRun = (url, extra = {}) => `${server.url}?${new URLSearchParams({ provider: 'openai', base_url: url, model: 'm', concurrency: '4', autorun: '1', ...extra })}`;

/** A port on which nothing listens. */
async function closedPort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

async function assertFailedWithoutScore(page, reason) {
  await waitDone(page);
  assert.equal(await hook(page, 'runOutcome'), 'failed');
  const error = await hook(page, 'runError');
  assert.match(error, reason);
  // Shown where the user is looking: the run view, with the reason.
  assert.equal(await hook(page, 'view'), 'run');
  assert.match(await page.textContent('#run-error'), reason);
  const h = JSON.parse(await hook(page, 'headline'));
  assert.equal(h.tasks_scored, 0);
  assert.equal(h.task_accuracy, null);
  assert.equal(h.session_accuracy, null);
  await page.click('nav [data-view="dashboard"]');
  await page.waitForSelector('#dash-banner');
  assert.match(await page.textContent('#dash-banner'), /Failed/);
  assert.equal(await page.$('#share-link'), null, 'a failed run has no share link');
  assert.deepEqual(await page.$$eval('#headline .metric-value', (v) => v.map((x) => x.textContent)), ['—', '—', '—', '—']);
}

test('a refused key (401) ends the run as failed with the endpoint\'s reason and no score', async () => {
  const mock = await startMock(0, { fail: { status: 401, body: '{"error": {"message": "Incorrect API key provided: sk-wrong"}}' } });
  try {
    const { page, problems } = await openPage(browser.context, endpointRun(mock.url));
    await assertFailedWithoutScore(page, /401|API key/i);
    assert.ok(mock.stats.requests <= 2, `only the preflight reached the endpoint (${mock.stats.requests} requests)`);
    await screenshot(page, 'failed-401-dashboard.png', { fullPage: false });
    assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), []);
    await page.close();
  } finally {
    await mock.stop();
  }
});

test('an unreachable endpoint ends the run as failed, with counters moving and the reason shown', async () => {
  const url = `http://127.0.0.1:${await closedPort()}/v1`;
  const { page } = await openPage(browser.context, endpointRun(url, { preflight: '0', retries: '1', backoff: '0.2' }));
  await page.waitForFunction(() => /Requests\s*[1-9]/.test(document.getElementById('run-stats')?.textContent || ''), null, { timeout: 20_000 });
  await assertFailedWithoutScore(page, /nothing answered|unreachable/i);
  await page.click('nav [data-view="run"]');
  await screenshot(page, 'failed-unreachable.png', { fullPage: false });
  await page.close();
});

test('Cancel takes effect within 1 s while tasks wait to retry', async () => {
  const mock = await startMock(0, { fail: { status: 503, retryAfter: 60, body: '{"error": {"message": "overloaded"}}' } });
  try {
    const { page } = await openPage(browser.context, endpointRun(mock.url, { preflight: '0', backoff: '30', retries: '6' }));
    await page.waitForFunction(() => /Waiting to retry\s*[1-9]/.test(document.getElementById('run-stats')?.textContent || ''), null, { timeout: 20_000 });
    const started = Date.now();
    await page.click('#cancel-run');
    await waitDone(page, 5_000);
    const ms = Date.now() - started;
    console.log(`Cancel during retry waits: the run ended ${ms} ms after the click`);
    assert.ok(ms < 1000, `cancel took ${ms} ms`);
    assert.ok(['cancelled', 'failed'].includes(await hook(page, 'runOutcome')));
    await page.close();
  } finally {
    await mock.stop();
  }
});

test('files that are not results are refused, each with its own message', async () => {
  const suite = await readFile(join(ROOT, 'data/suite.jsonl'), 'utf8');
  const files = {
    'garbage.bin': Buffer.from([0, 159, 146, 150, 255, 1, 2, 3, 10, 200]),
    'empty.jsonl': '',
    'tasks.csv': 'session,id,task,correct\n1,wild_tool_bench_0,1,true\n',
    'suite.jsonl': suite,
  };
  const { page, problems } = await openPage(browser.context, server.url);
  await page.waitForFunction(() => document.body.dataset.dataset);
  await page.click('nav [data-view="offline"]');
  const messages = [];
  for (const [name, content] of Object.entries(files)) {
    const path = join(work, name);
    await writeFile(path, content);
    const before = Number((await hook(page, 'offlineFinished')) || 0);
    await page.setInputFiles('#result-file', path);
    await page.waitForFunction((b) => Number(document.body.dataset.offlineFinished || 0) > b, before);
    assert.equal(await hook(page, 'offline'), 'error', name);
    assert.equal(await hook(page, 'view'), 'offline', `${name} stays on the upload view`);
    messages.push(await page.textContent('#offline-info'));
  }
  assert.equal(new Set(messages).size, 4, messages.join('\n'));
  assert.match(messages[0], /not a text file/);
  assert.match(messages[1], /empty/i);
  assert.match(messages[2], /CSV/);
  assert.match(messages[3], /dataset/i);
  assert.equal(await hook(page, 'dashboard'), undefined, 'nothing was scored');
  await screenshot(page, 'upload-refused.png', { fullPage: false });
  // The set-up kept from the earlier tests names their stopped mock endpoint, whose model
  // list the page asks for quietly at start; the browser logs that refused request.
  assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), []);
  await page.close();
});

test('a result file of another dataset is refused, in the page and by `results=`', async () => {
  const result = join(ROOT, 'tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl');
  const { page } = await openPage(browser.context, server.url);
  await page.waitForFunction(() => document.body.dataset.dataset);
  await page.click('nav [data-view="offline"]');
  await page.setInputFiles('#result-file', result);
  await page.waitForFunction(() => Number(document.body.dataset.offlineFinished || 0) > 0);
  assert.equal(await hook(page, 'offline'), 'error');
  const message = await page.textContent('#offline-info');
  assert.match(message, /belong to another dataset/);
  await page.close();
});

test('after a cancel, the author\'s headline equals the link recipient\'s', async () => {
  const mock = await startMock(0, { delayMs: 40 });
  try {
    const { page } = await openPage(browser.context, endpointRun(mock.url, { model: 'mock', concurrency: '2' }));
    await page.waitForFunction(() => Number(document.body.dataset.tasksSaved || 0) >= 30, null, { timeout: 60_000 });
    await page.click('#cancel-run');
    await waitDone(page);
    assert.equal(await hook(page, 'runOutcome'), 'cancelled');
    const author = JSON.parse(await hook(page, 'headline'));
    assert.ok(author.tasks_scored > 0 && author.tasks_scored < 256, JSON.stringify(author));
    assert.match(await page.textContent('#dash-banner'), new RegExp(`${author.tasks_scored} of 256 tasks scored`));
    const link = await page.inputValue('#share-link');
    await page.close();
    const fresh = await launchBrowser();
    try {
      const { page: opened } = await openPage(fresh.context, link);
      await opened.waitForFunction(() => document.body.dataset.share === 'opened');
      assert.deepEqual(JSON.parse(await hook(opened, 'headline')), author);
      assert.match(await opened.textContent('#dash-banner'), /Partial/);
    } finally {
      await fresh.close();
    }
  } finally {
    await mock.stop();
  }
});

test('a finished run is still listed after a reload, and the comparison set survives it', async () => {
  // A built-in agent's run is named after the agent (its model field is hidden).
  const { page } = await openPage(browser.context, `${server.url}?provider=gold&autorun=1`);
  await waitDone(page);
  await page.click('#add-compare');
  await page.click('#add-compare').catch(() => {});
  await page.reload();
  await page.waitForFunction(() => Number(document.body.dataset.history || 0) > 0);
  await page.click('nav [data-view="history"]');
  const list = await page.textContent('#history-list');
  assert.match(list, /^gold/);
  assert.match(list, /256 of 256 tasks scored/);
  const compared = await page.$$eval('#history-list button', (b) => b.filter((x) => x.textContent === 'Remove from comparison').length);
  assert.equal(compared, 1, 'added once, kept after the reload');
  await page.click('#history-list button[aria-label="Open gold"]');
  await page.waitForFunction(() => document.body.dataset.view === 'dashboard');
  assert.equal(JSON.parse(await hook(page, 'headline')).task_accuracy, '100.0%');
  await page.close();
});
