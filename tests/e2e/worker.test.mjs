// Uploads are scored in the page's Web Worker (the upload scorer module): the page's main
// thread stays free (a click is answered while a big file is being scored), and the files
// the page gives are the CLI's bytes (the official fixture run, which the parity tests
// check against the CLI; a big upload, whose score lines come back as a Blob, against
// `wildtool score` on the same file).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launchBrowser, openPage, startServer } from './helpers.mjs';

const MINI = join(ROOT, 'tests/fixtures/mini.jsonl');
const CLI = join(ROOT, 'target/debug/wildtool');
const run = promisify(execFile);
const RUN = join(ROOT, 'tests/fixtures/official-runs/mock-seed-0');

let server;
let browser;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-worker-'));
  server = await startServer();
  browser = await launchBrowser();
  await run('cargo', ['build', '--quiet', '--bin', 'wildtool'], { cwd: ROOT, maxBuffer: 1 << 24 });
});

after(async () => {
  await browser?.close();
  server?.stop();
});

async function downloadText(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

async function start(page) {
  await page.check('input[name="ds-kind"][value="upload"]');
  await page.setInputFiles('#ds-file', MINI);
  await page.waitForFunction(() => /8 sessions/.test(document.getElementById('ds-info')?.textContent || ''));
  await page.click('nav [data-view="offline"]');
}

describe('scoring in the worker', () => {
  test('an upload is scored in the worker and gives the CLI\'s score and metric bytes', async () => {
    const { page, problems } = await openPage(browser.context, server.url);
    await start(page);
    await page.setInputFiles('#result-file', join(RUN, 'mini_result.jsonl'));
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.offline), null, { timeout: 120_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.offline), 'done', await page.textContent('#status'));
    assert.ok(page.workers().length >= 1, 'a worker runs');
    assert.equal(await downloadText(page, '#exp-score'), await readFile(join(RUN, 'mini_score.jsonl'), 'utf8'));
    assert.equal(await downloadText(page, '#exp-metric'), await readFile(join(RUN, 'mini_metric.json'), 'utf8'));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a click is answered while a big upload is scored, and its files are the CLI\'s', async () => {
    const src = (await readFile(join(RUN, 'mini_result.jsonl'), 'utf8')).trim().split('\n');
    const copies = [];
    let size = 0;
    while (size < 30 * 1048576) for (const l of src) { copies.push(l); size += l.length + 1; }
    const path = join(work, 'big_result.jsonl');
    await writeFile(path, `${copies.join('\n')}\n`);
    const { page, problems } = await openPage(browser.context, server.url);
    await start(page);
    await page.setInputFiles('#result-file', path);
    await page.waitForFunction(() => /background worker/.test(document.getElementById('offline-info')?.textContent || ''));
    await page.click('nav [data-view="setup"]');
    await page.waitForFunction(() => /view=setup/.test(location.href));
    assert.equal(await page.evaluate(() => document.body.dataset.offline), 'scoring', 'the click was answered before scoring ended');
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.offline), null, { timeout: 300_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.offline), 'done');
    const out = join(work, 'cli');
    await run(CLI, ['score', '--dataset', MINI, '--results', path, '--out', out], { cwd: ROOT, maxBuffer: 1 << 24 });
    await page.click('nav [data-view="dashboard"]');
    const cliScore = await readFile(join(out, 'score.jsonl'), 'utf8');
    assert.ok((await downloadText(page, '#exp-score')) === cliScore, 'score.jsonl differs from the CLI\'s');
    assert.equal(await downloadText(page, '#exp-metric'), await readFile(join(out, 'metric.json'), 'utf8'));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
