// End-to-end: endpoints from the page — the endpoint check (one test per failure class a
// browser can see), presets and the server's model list, how many requests the page keeps
// in flight against a local HTTP/1.1 server, Cancel during a hanging request, and a run
// against the Gemini API's own format.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { launchBrowser, openPage, screenshot, settledValue, startServer } from './helpers.mjs';
import { startMock } from './mock-openai.mjs';

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
const waitDone = (page, timeout = 120_000) => page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout });
const link = (params) => `${server.url}?${new URLSearchParams({ provider: 'openai', model: 'm', autorun: '1', ...params })}`;
const stats = (page) => page.textContent('#run-stats');
/** Waits until the element `selector` shows text matching `re`, then returns that text. */
async function settledText(page, selector, re, timeout = 10_000) {
  try {
    await page.waitForFunction(
      ([sel, src, flags]) => new RegExp(src, flags).test(document.querySelector(sel)?.textContent || ''),
      [selector, re.source, re.flags],
      { timeout },
    );
  } catch {
    // Fall through: the caller's assertion reports what the element shows.
  }
  return (await page.textContent(selector)) ?? '';
}

async function closedPort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

describe('the endpoint check', () => {
  const cases = [
    {
      name: 'authentication failed (401)',
      fail: { status: 401, body: '{"error": {"message": "Incorrect API key provided: sk-wrong", "type": "invalid_request_error", "code": "invalid_api_key"}}' },
      reason: /401|API key/i,
      fix: /key/i,
      check: /authentication failed/,
    },
    {
      name: 'model not found (404)',
      fail: { status: 404, body: '{"error": {"message": "The model `m` does not exist or you do not have access to it.", "type": "invalid_request_error", "code": "model_not_found"}}' },
      reason: /does not exist/,
      fix: /model name/i,
      check: /model not found/,
    },
    {
      name: 'no tool support (vLLM 400)',
      fail: { status: 400, body: '{"object": "error", "message": "\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "type": "BadRequestError", "param": null, "code": 400}' },
      reason: /auto.*tool choice/,
      fix: /--enable-auto-tool-choice --tool-call-parser/,
      check: /cannot do tool calls/,
    },
    {
      name: 'blocked by CORS',
      cors: false,
      reason: /CORS|origin/,
      fix: /OLLAMA_ORIGINS|--cors|allowed-origins/,
      check: /CORS/,
    },
    {
      name: 'unreachable',
      closed: true,
      reason: /nothing answered/,
      fix: /server is running/,
      check: /unreachable/,
    },
  ];
  for (const c of cases) {
    test(`${c.name}: the run fails before any task, the fix beside the endpoint`, async () => {
      const mock = c.closed ? null : await startMock(0, { fail: c.fail ?? null, cors: c.cors ?? true });
      try {
        const url = mock ? mock.url : `http://127.0.0.1:${await closedPort()}/v1`;
        const { page } = await openPage(browser.context, link({ base_url: url, concurrency: '4' }));
        await waitDone(page);
        assert.equal(await hook(page, 'runState'), 'done');
        assert.equal(await hook(page, 'runOutcome'), 'failed');
        assert.match(await hook(page, 'runError'), c.reason);
        assert.equal(await hook(page, 'tasksSaved'), '0');
        if (mock) assert.ok(mock.stats.requests <= 1, `only the check reached the server (${mock.stats.requests})`);
        await page.click('nav [data-view="setup"]');
        const note = await settledText(page, '#setup-error', c.check);
        assert.match(note, c.check);
        assert.match(note, c.reason);
        assert.match(note, c.fix);
        await page.close();
      } finally {
        await mock?.stop();
      }
    });
  }
});

describe('presets and the model list', () => {
  test('a preset fills the endpoint; the model field offers what the server lists', async () => {
    const mock = await startMock();
    try {
      const { page, problems } = await openPage(browser.context, server.url);
      await page.waitForFunction(() => document.body.dataset.dataset, null, { timeout: 30_000 });
      await page.selectOption('#m-preset', 'lmstudio');
      assert.equal(await settledValue(page, '#m-base', 'http://127.0.0.1:1234/v1'), 'http://127.0.0.1:1234/v1');
      assert.equal(await settledValue(page, '#m-provider', 'openai'), 'openai');
      assert.match(await settledText(page, '#preset-note', /lms server start --cors/), /lms server start --cors/);
      assert.match(await settledText(page, 'label[for="m-key"]', /not needed/), /not needed/);
      await page.selectOption('#m-preset', 'anthropic');
      assert.equal(await settledValue(page, '#m-provider', 'anthropic'), 'anthropic');
      assert.match(await settledText(page, 'label[for="m-key"]', /needed for Anthropic/), /needed for Anthropic/);
      // The mock's own list, through the page's fetch.
      await page.selectOption('#m-provider', 'openai');
      await settledValue(page, '#m-provider', 'openai');
      await page.fill('#m-base', mock.url);
      await settledValue(page, '#m-base', mock.url);
      await page.click('#m-list');
      assert.match(await settledText(page, '#m-models-note', /2 models/), /2 models/);
      await page.waitForFunction(() => document.querySelectorAll('#m-models option').length === 2, null, { timeout: 10_000 }).catch(() => {});
      const offered = await page.$$eval('#m-models option', (o) => o.map((x) => x.value));
      assert.deepEqual(offered, ['mock', 'mock-large']);
      // Lists that could not be had (nothing at LM Studio's port, no network) said nothing:
      // only the browser's own network log mentions them.
      assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), []);
      await page.close();
    } finally {
      await mock.stop();
    }
  });
});

describe('requests in flight against a local HTTP/1.1 server', () => {
  // Each answer takes 400 ms, so requests overlap; at concurrency 24 the page asks for 24 at once.
  const params = (url) => link({ base_url: url, concurrency: '24', preflight: '0', model: 'mock' });

  test('spread over host names of the server: more than six in flight', async () => {
    const mock = await startMock(0, { delayMs: 400 });
    try {
      const { page, problems } = await openPage(browser.context, params(mock.url));
      await page.waitForFunction(() => /spread over 4 host names/.test(document.getElementById('run-stats')?.textContent || ''), null, { timeout: 60_000 });
      const started = mock.stats.requests;
      await new Promise((r) => setTimeout(r, 4000));
      const rate = (mock.stats.requests - started) / 4;
      console.log(`aliases: peak ${mock.stats.peak} requests in flight at the mock, ${rate.toFixed(1)} requests/s, names ${JSON.stringify(mock.stats.hosts)}`);
      assert.ok(mock.stats.peak > 6, `peak ${mock.stats.peak}`);
      assert.ok(Object.keys(mock.stats.hosts).length >= 2, JSON.stringify(mock.stats.hosts));
      assert.doesNotMatch(await stats(page), /per-host limit/);
      await screenshot(page, 'throughput-aliases.png', { fullPage: false });
      await page.click('#cancel-run');
      await waitDone(page);
      assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), []);
      await page.close();
    } finally {
      await mock.stop();
    }
  });

  test('a server that answers one name only: six in flight, and the view says why', async () => {
    const mock = await startMock(0, { delayMs: 400, strictHost: true });
    try {
      const { page } = await openPage(browser.context, params(mock.url));
      await page.waitForFunction(() => /per-host limit is 6/.test(document.getElementById('run-stats')?.textContent || ''), null, { timeout: 60_000 });
      const started = mock.stats.requests;
      await new Promise((r) => setTimeout(r, 4000));
      const rate = (mock.stats.requests - started) / 4;
      console.log(`one name: peak ${mock.stats.peak} requests in flight at the mock, ${rate.toFixed(1)} requests/s`);
      assert.ok(mock.stats.peak <= 6, `peak ${mock.stats.peak}`);
      assert.ok(mock.stats.peak >= 5, `peak ${mock.stats.peak}`);
      assert.match(await stats(page), /6 in flight: the browser's per-host limit is 6/);
      await screenshot(page, 'throughput-capped.png', { fullPage: false });
      await page.click('#cancel-run');
      await waitDone(page);
      await page.close();
    } finally {
      await mock.stop();
    }
  });
});

describe('Cancel and Gemini', () => {
  test('Cancel takes effect within 1 s during a hanging request', async () => {
    const mock = await startMock(0, { delayMs: 120_000 });
    try {
      const { page } = await openPage(browser.context, link({ base_url: mock.url, preflight: '0', concurrency: '4' }));
      await page.waitForFunction(() => /Requests\s*[1-9]/.test(document.getElementById('run-stats')?.textContent || ''), null, { timeout: 60_000 });
      for (let t = 0; t < 100 && mock.stats.requests < 1; t += 1) await new Promise((r) => setTimeout(r, 100));
      assert.ok(mock.stats.requests >= 1, 'a request hangs at the server');
      const started = Date.now();
      await page.click('#cancel-run');
      await waitDone(page, 5_000);
      const ms = Date.now() - started;
      console.log(`Cancel during a hanging request: the run ended ${ms} ms after the click`);
      assert.ok(ms < 1000, `cancel took ${ms} ms`);
      assert.ok(['cancelled', 'failed'].includes(await hook(page, 'runOutcome')));
      await page.close();
    } finally {
      await mock.stop();
    }
  });

  test('a run against the Gemini API format sends the key as x-goog-api-key, to its own endpoint only', async () => {
    const mock = await startMock();
    try {
      const base = mock.url.replace(/\/v1$/, '/v1beta');
      const q = new URLSearchParams({ provider: 'gemini', base_url: base, model: 'gemini-mock', concurrency: '4' });
      const { page, problems } = await openPage(browser.context, `${server.url}?${q}`);
      await page.waitForFunction(() => document.body.dataset.dataset, null, { timeout: 30_000 });
      await page.fill('#m-key', 'gemini-test-key');
      await settledValue(page, '#m-key', 'gemini-test-key');
      await page.click('#m-list');
      await settledText(page, '#m-models-note', /1 model/);
      await page.waitForFunction(() => document.querySelectorAll('#m-models option').length === 1, null, { timeout: 10_000 }).catch(() => {});
      assert.deepEqual(await page.$$eval('#m-models option', (o) => o.map((x) => x.value)), ['gemini-mock']);
      await page.click('#start-run');
      await waitDone(page, 180_000);
      assert.equal(await hook(page, 'runOutcome'), 'done');
      const h = JSON.parse(await hook(page, 'headline'));
      assert.equal(h.tasks_scored, 256);
      assert.ok(mock.stats.geminiKeys.length > 256, `${mock.stats.geminiKeys.length} Gemini requests`);
      assert.ok(mock.stats.geminiKeys.every((k) => k === 'gemini-test-key'), 'every request carried the key in its header');
      assert.ok(mock.stats.urls.every((u) => !/[?&]key=/.test(u)), 'never in the URL');
      assert.deepEqual(Object.keys(mock.stats.hosts), ['127.0.0.1'], 'a keyed run stays on its own host name');
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await mock.stop();
    }
  });
});
