// End-to-end: a remembered API key is bound to the origin it was saved for. A link that
// chooses another endpoint (automation parameters, autorun) must not send it there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, settledValue, startServer } from './helpers.mjs';
import { startMock } from './mock-openai.mjs';

const SECRET = 'sk-remembered-e2e-7f3a9c';
let server;
let browser;
let own;
let capture;

before(async () => {
  [server, browser, own, capture] = await Promise.all([startServer(), launchBrowser(), startMock(), startMock()]);
});

after(async () => {
  await browser?.close();
  server?.stop();
  await own?.stop();
  await capture?.stop();
});

const carriesKey = (auth) => auth.some((a) => typeof a === 'string' && a.includes(SECRET));

test('a remembered key never reaches another origin, even from an autorun link', async () => {
  // Remember the key for the user's own endpoint, through the setup panel.
  const { page, problems } = await openPage(browser.context, server.url);
  await page.selectOption('#m-provider', 'openai');
  await page.fill('#m-base', own.url);
  await page.fill('#m-key', SECRET);
  await page.check('#m-remember');
  const stored = await page.evaluate(() => localStorage.getItem('wildtool.rememberedKey'));
  assert.deepEqual(JSON.parse(stored), { origin: new URL(own.url).origin, key: SECRET });

  // A link pointing at another host starts a run there without the key.
  const hostile = new URLSearchParams({ provider: 'openai', base_url: capture.url, model: 'x', concurrency: '4', autorun: '1' });
  await page.goto(`${server.url}?${hostile}`);
  await page.waitForFunction(() => document.body.dataset.wasm !== 'loading');
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 120_000 });
  await page.click('nav [data-view="setup"]');
  assert.equal(await settledValue(page, '#m-key', ''), '', 'the remembered key is not shown for another endpoint');
  assert.ok(capture.stats.requests > 256, `the run reached the capture server (${capture.stats.requests} requests)`);
  assert.equal(carriesKey(capture.stats.auth), false, 'no request to the other origin carried the key');
  assert.ok(capture.stats.auth.every((a) => a === null), 'no credentials at all went to the other origin');

  // The same link for the key's own origin may use it (it is where the user saved it).
  const mine = new URLSearchParams({ provider: 'openai', base_url: own.url, model: 'x', concurrency: '2', autorun: '1' });
  await page.goto(`${server.url}?${mine}`);
  await page.waitForFunction(() => document.body.dataset.runState === 'running', null, { timeout: 20_000 });
  await page.waitForFunction(() => Number(document.body.dataset.tasksSaved || 0) > 2);
  await page.click('#cancel-run');
  await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 30_000 });
  assert.ok(carriesKey(own.stats.auth), 'the key went to its own endpoint');
  assert.equal(carriesKey(capture.stats.auth), false);

  // Typing another base URL by hand hides the key again; unticking forgets it.
  await page.click('nav [data-view="setup"]');
  await page.fill('#m-base', capture.url);
  assert.equal(await settledValue(page, '#m-key', ''), '');
  await page.fill('#m-base', own.url);
  assert.equal(await settledValue(page, '#m-key', SECRET), SECRET);
  await page.uncheck('#m-remember');
  await page.waitForFunction(() => localStorage.getItem('wildtool.rememberedKey') === null, null, { timeout: 5_000 }).catch(() => {});
  assert.equal(await page.evaluate(() => localStorage.getItem('wildtool.rememberedKey')), null);
  assert.deepEqual(problems, []);
  await page.close();
});
