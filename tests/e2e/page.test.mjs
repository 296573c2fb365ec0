// End-to-end: the served page loads the WASM core, renders accessible charts, round
// trips a share link, and stays inert on hostile fragments.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

describe('static server', () => {
  test('serves wasm with application/wasm and refuses traversal', async () => {
    const wasm = await fetch(`${server.url}pkg/wildtool_bg.wasm`);
    assert.equal(wasm.status, 200);
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    const html = await fetch(server.url);
    assert.match(html.headers.get('content-type'), /^text\/html/);
    for (const path of ['%2e%2e/Cargo.toml', '..%2fCargo.toml', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'pkg/%00x']) {
      const res = await fetch(`${server.url}${path}`);
      assert.ok(res.status === 403 || res.status === 404, `${path} → ${res.status}`);
      assert.doesNotMatch(await res.text(), /\[package\]|root:/);
    }
  });
});

describe('dashboard', () => {
  test('wasm loads and every chart is an accessible SVG', async () => {
    const { page, problems } = await openPage(browser.context, server.url);
    assert.equal(await page.evaluate(() => document.body.dataset.wasm), 'ready');
    await page.waitForSelector('#charts figure svg[role="img"]');
    const charts = await page.$$eval('#charts figure svg', (svgs) => svgs.map((s) => ({
      role: s.getAttribute('role'),
      labelledby: s.getAttribute('aria-labelledby'),
      title: s.querySelector('title')?.textContent,
      desc: s.querySelector('desc')?.textContent,
      rects: s.querySelectorAll('rect').length,
      width: s.getBoundingClientRect().width,
    })));
    assert.ok(charts.length >= 6, `charts: ${charts.length}`);
    for (const c of charts) {
      assert.equal(c.role, 'img');
      assert.ok(c.title && c.desc && c.desc.length > 20, JSON.stringify(c));
      for (const id of c.labelledby.split(' ')) {
        assert.ok(await page.$(`[id="${id}"]`), `missing #${id}`);
      }
      assert.ok(c.rects > 3 && c.width > 200, JSON.stringify(c));
    }
    // Data-table fallbacks exist for every chart.
    assert.equal(await page.$$eval('#charts figure table.data-table', (t) => t.length), charts.length);
    assert.equal(await page.evaluate(() => document.body.dataset.share), 'ok');
    const headline = await page.$$eval('.metric-value', (v) => v.map((x) => x.textContent));
    assert.equal(headline.length, 6);
    assert.ok(headline.every((t) => /^\d+\.\d%$/.test(t)), headline.join(','));
    await screenshot(page, 'dashboard.png');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('share link opens the same dashboard in a fresh profile', async () => {
    const { page } = await openPage(browser.context, server.url);
    await page.waitForSelector('.metric-value');
    const link = await page.inputValue('#share-link');
    const fragment = link.split('#')[1];
    assert.match(fragment, /^v1\.[A-Za-z0-9_-]+$/);
    assert.ok(fragment.length <= 2000, `fragment ${fragment.length} chars`);
    const before = await page.$$eval('.metric-value', (v) => v.map((x) => x.textContent));
    const tablesBefore = await page.$$eval('table.data-table', (t) => t.map((x) => x.textContent));
    await page.close();

    const fresh = await launchBrowser();
    try {
      const { page: opened, problems } = await openPage(fresh.context, link);
      await opened.waitForSelector('.metric-value');
      assert.match(await opened.textContent('#status'), /Loaded from a share link/);
      assert.deepEqual(await opened.$$eval('.metric-value', (v) => v.map((x) => x.textContent)), before);
      assert.deepEqual(await opened.$$eval('table.data-table', (t) => t.map((x) => x.textContent)), tablesBefore);
      assert.deepEqual(problems, []);
      await screenshot(opened, 'shared-link.png');
    } finally {
      await fresh.close();
    }
  });

  for (const [name, fragment] of [
    ['markup payload', 'v1.<img src=x onerror=alert(1)>'],
    ['wrong version', 'v9.AAAA'],
    ['garbage', '%F0%9F%92%A5<svg/onload=alert(2)>'],
    ['truncated', 'v1.DndpbGR0b29s'],
  ]) {
    test(`hostile fragment is inert: ${name}`, async () => {
      const { page, problems } = await openPage(browser.context, `${server.url}#${fragment}`);
      await page.waitForSelector('#charts figure svg');
      const status = await page.textContent('#status');
      assert.match(status, /cannot be opened/);
      assert.equal(await page.$$eval('#status *', (n) => n.length), 0, 'status holds text only');
      assert.equal(await page.$$eval('img, script:not([src])', (n) => n.length), 0);
      assert.deepEqual(problems.filter((p) => !p.startsWith('console: Failed to load resource')), []);
      if (name === 'markup payload') await screenshot(page, 'hostile-link.png');
      await page.close();
    });
  }
});
