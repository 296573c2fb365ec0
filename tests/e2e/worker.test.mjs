// Uploads are scored in the lab module's Web Worker: the page's main thread stays free (a
// click is answered while a big file is being scored), and the files the page gives are
// the CLI's bytes (the official fixture run, which the parity tests check against the CLI).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launchBrowser, openPage, startServer } from './helpers.mjs';

const MINI = join(ROOT, 'tests/fixtures/mini.jsonl');
const RUN = join(ROOT, 'tests/fixtures/official-runs/mock-seed-0');

let server;
let browser;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-worker-'));
  server = await startServer();
  browser = await launchBrowser();
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

  test('a click is answered while a big upload is being scored', async () => {
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
    assert.deepEqual(problems, []);
    await page.close();
  });
});
