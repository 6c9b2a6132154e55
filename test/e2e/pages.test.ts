/**
 * The pages in a real browser (issue 20 #3): headless Chromium from Debian (`apt-get install
 * chromium`; `CHROMIUM_PATH` to use another) driven by playwright-core (no browser download)
 * against the server in-process over a test database holding the real data, imported as
 * `npm start` imports it (import, matching, basket matching, index, derived views).
 *
 * Every request the browser makes to a host other than the test server is recorded and aborted:
 * the test asserts there was none, so `/`, `/docs`, `/graphql` and `/dashboard` render with no
 * outside network. The dashboard's four panels must render with data; GraphiQL must open with a
 * query prefilled from `?query=` and run it. Screenshots go to facades/dashboard/screenshots/
 * (committed, linked from README).
 *
 * How old every fact is (issue 26): `/` and the dashboard show each chain's last collection day and
 * a warning banner when GET /api/v1/status says the data is stale (checked on the real status and on
 * stale, fresh and missing answers put in its place), the dashboard names the days nothing was
 * collected under the index chart and breaks the index lines on days with coverage 0 (checked on
 * what uPlot was given to draw), and the deals say the day they describe.
 *
 * Without Chromium the browser checks are skipped with a message (.ci/run installs it when it
 * can); the checks that need no browser (the JSON front door, the panel queries against the
 * schema, the GraphiQL page naming no outside host) always run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parse, validate } from 'graphql';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLLOW_SECONDS, formatDay, gapSentences, lineSegments, type DataStatus } from '../../facades/dashboard/facts.js';
import { DASHBOARD_DIR, FRONT_DOOR_LINKS } from '../../facades/http/pages.js';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { schema } from '../../src/graph/index.js';
import { runBasketMatching } from '../../workers/index/match.js';
import { runIndex } from '../../workers/index/compute.js';
import { runViews } from '../../workers/views/run.js';
import { runMatching } from '../../workers/match/match.js';
import { DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { createRealDataDatabase } from '../helpers/real-data.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const SHOTS = path.join(DASHBOARD_DIR, 'screenshots');
const PANELS = ['index', 'history', 'stores', 'deals', 'track-record'] as const;
const QUERY_FILES = fs.readdirSync(path.join(DASHBOARD_DIR, 'queries')).filter((f) => f.endsWith('.graphql'));

if (!HAS_CHROMIUM) {
  console.warn(`test/e2e/pages.test.ts: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH): the browser checks are skipped`);
}

/** The front door's links the landing page shows: the export manifest only once an export is published. */
function pageLinks(): string[] {
  const published = fs.existsSync(path.join(loadEnv().EXPORT_DIR, 'latest', 'manifest.json'));
  return Object.entries(FRONT_DOOR_LINKS)
    .filter(([key]) => published || key !== 'export_manifest')
    .map(([, href]) => href);
}

let db: TestDatabase;
let app: FastifyInstance;
let base: string;
let browser: Browser | undefined;
/** Requests the browser tried to send anywhere but the test server. */
const outside: string[] = [];

beforeAll(async () => {
  db = await createRealDataDatabase('pages_e2e'); // the run's one import of the real data, copied
  await runMatching(db.pool);
  await runBasketMatching(db.pool, { progress: false });
  await runIndex(db.pool, { dataDir: DATA_DIR, progress: false });
  await runViews(db.pool, { progress: false });
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
  if (HAS_CHROMIUM) {
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await db?.drop();
});

/** GET /api/v1/status as this server answers it. */
async function realStatus(): Promise<DataStatus> {
  const r = await fetch(`${base}/api/v1/status`);
  expect(r.status).toBe(200);
  return (await r.json()) as DataStatus;
}

/** A status put in place of the real one: stale (newest 3 Aug 2026, today 2 Dec 2026, a 448-day gap) or fresh. */
function statusFixture(fresh: boolean): DataStatus {
  const today = fresh ? '2026-08-04' : '2026-12-02';
  const since = fresh ? 1 : 121;
  const run = { status: 'finished', day: '2026-08-03', started_at: '2026-08-03T01:00:00Z', finished_at: '2026-08-03T03:00:00Z', scopes: 1, collected: 1, failed: 0, error: null };
  return {
    today,
    newest_day: '2026-08-03',
    fresh,
    stale_after_days: 2,
    cap_days: 14,
    gaps: [{ from: '2025-05-05', to: '2026-07-26', days: 448 }],
    retailers: [
      { slug: 'woolworths', name: 'Woolworths', first_day: '2024-08-05', last_day: '2026-08-03', last_run: '2026-08-03T03:00:00Z', days_since: since, stale: !fresh, stores_active: 190, stores_collected: 0, listings_seen: 20000, run, gaps: [{ from: '2025-05-05', to: '2026-07-26', days: 448 }] },
      { slug: 'paknsave', name: "PAK'nSAVE", first_day: '2026-07-27', last_day: '2026-08-03', last_run: '2026-08-03T03:00:00Z', days_since: since, stale: !fresh, stores_active: 58, stores_collected: 58, listings_seen: 9000, run: null, gaps: [] },
      { slug: 'warehouse', name: 'The Warehouse', first_day: null, last_day: null, last_run: null, days_since: null, stale: true, stores_active: 0, stores_collected: 0, listings_seen: 0, run: null, gaps: [] },
    ],
    computing: [],
    jobs: [],
  };
}

/** What the index chart was given to draw: its days (seconds) and one array per series (null = no line). */
async function drawnIndex(page: Page): Promise<{ segments: number; data: Array<Array<number | null>>; spanGaps: unknown[] }> {
  return page.evaluate(() => {
    const target = document.querySelector('[data-panel="index"] .chart') as HTMLElement & { uplot: { data: Array<Array<number | null>>; series: Array<{ spanGaps?: unknown }> } };
    return { segments: Number(target.dataset.segments), data: target.uplot.data.map((a) => Array.from(a)), spanGaps: target.uplot.series.slice(1).map((x) => x.spanGaps) };
  });
}

/** A page whose every request to another host is recorded in {@link outside} and aborted; page errors collected. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const context = await browser!.newContext({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 });
  const origin = new URL(base).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) return route.continue();
    outside.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

describe('without a browser', () => {
  it('GET / with Accept: application/json answers the JSON index; a browser gets the landing page', async () => {
    const json = await fetch(`${base}/`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.headers.get('vary')).toMatch(/accept/i);
    const body = (await json.json()) as { name: string; links: Record<string, string> };
    expect(body.name).toBe('NZ Grocery Prices API');
    expect(Object.keys(body.links).sort()).toEqual(Object.keys(FRONT_DOOR_LINKS).sort());
    const html = await fetch(`${base}/`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await html.text();
    // The manifest is linked only once an export is published (test/integration/front-door.test.ts).
    for (const href of pageLinks()) expect(text).toContain(`href="${href}"`);
  });

  it('each dashboard panel query is valid against the schema and runs on the real data', async () => {
    expect(QUERY_FILES.sort()).toEqual(['deals.graphql', 'food-index.graphql', 'price-history.graphql', 'shrinkflation.graphql', 'store-levels.graphql', 'track-record.graphql']);
    for (const file of QUERY_FILES) {
      const query = fs.readFileSync(path.join(DASHBOARD_DIR, 'queries', file), 'utf8');
      const doc = parse(query);
      expect(doc.definitions, file).toHaveLength(1); // one query per panel
      expect(validate(schema, doc).map((e) => e.message), file).toEqual([]);
      const variables = file === 'price-history.graphql' ? { q: 'milk' } : {};
      const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      const body = (await r.json()) as { errors?: unknown[]; data?: unknown };
      expect(body.errors, file).toBeUndefined();
      expect(r.status, file).toBe(200);
    }
  });

  it('the GraphiQL page and its assets name no outside host', async () => {
    const page = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/unpkg|jsdelivr|cdn\./i);
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs.length).toBeGreaterThan(0);
    for (const src of srcs) {
      expect(src.startsWith('/'), src).toBe(true);
      const r = await fetch(`${base}${src}`);
      expect(r.status, src).toBe(200);
      expect(r.headers.get('cache-control'), src).toMatch(/immutable/);
    }
  });
});

describe.skipIf(!HAS_CHROMIUM)('in headless Chromium, with no outside network', () => {
  it('/ renders the landing page with its links', async () => {
    const { page, errors } = await openPage();
    await page.goto(`${base}/`);
    await expect(page.locator('h1').textContent()).resolves.toContain('NZ Grocery Prices');
    for (const href of pageLinks()) expect(await page.locator(`a[href="${href}"]`).count(), href).toBeGreaterThan(0);
    // Each chain's last collection day from the real status, and the banner when it is stale.
    const status = await realStatus();
    const box = page.locator('[data-freshness]');
    await expect.poll(() => box.getAttribute('data-state'), { timeout: 20_000 }).toMatch(/^(stale|fresh)$/);
    for (const r of status.retailers) {
      const text = (await box.locator(`li[data-chain="${r.slug}"]`).textContent()) ?? '';
      expect(text, r.slug).toContain(r.last_day ? `${r.name}: prices as of ${formatDay(r.last_day)}` : `${r.name}: no prices collected yet`);
      expect(text, r.slug).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    }
    if (!status.fresh) {
      expect(await box.getAttribute('data-state')).toBe('stale');
      await expect(box.locator('.banner').isVisible()).resolves.toBe(true);
    }
    for (const sentence of gapSentences(status.gaps)) expect(await box.innerText()).toContain(sentence);
    await page.screenshot({ path: path.join(SHOTS, 'landing.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('/docs renders the API reference from the package, every operation listed', async () => {
    const { page, errors } = await openPage();
    await page.goto(`${base}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 30_000 });
    await expect(page.locator('.swagger-ui .info .title').textContent()).resolves.toContain('NZ Grocery Prices API');
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(30);
    await page.screenshot({ path: path.join(SHOTS, 'docs.png') });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('/graphql renders GraphiQL from the package, prefilled from ?query=, and runs the query', async () => {
    const { page, errors } = await openPage();
    const query = '{ retailers { slug name } }';
    await page.goto(`${base}/graphql?query=${encodeURIComponent(query)}`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
    expect(await page.content()).not.toContain('Loading ');
    const editor = page.locator('.graphiql-query-editor').first();
    await expect.poll(async () => (await editor.innerText()).replace(/\s+/g, ' '), { timeout: 20_000 }).toContain('retailers { slug name }');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(async () => page.locator('.graphiql-response').first().innerText(), { timeout: 20_000 }).toContain('woolworths');
    await page.screenshot({ path: path.join(SHOTS, 'graphiql.png') });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('/dashboard renders the five panels with the real data; each shows its query and links it to GraphiQL', async () => {
    const { page, errors } = await openPage();
    await page.goto(`${base}/dashboard`);
    for (const name of PANELS) {
      const panel = page.locator(`[data-panel="${name}"]`);
      await expect.poll(() => panel.getAttribute('data-state'), { timeout: 60_000, message: name }).toMatch(/^(ready|error|empty)$/);
      const error = await panel.locator('.error').allInnerTexts();
      expect(error, name).toEqual([]);
      expect(await panel.getAttribute('data-state'), name).toBe('ready');
      expect(Number(await panel.getAttribute('data-count')), name).toBeGreaterThan(0);
      const href = (await panel.locator('a.open-graphiql').getAttribute('href')) ?? '';
      expect(href, name).toMatch(/^\/graphql\?query=/);
      const query = new URL(href, base).searchParams.get('query') ?? '';
      expect(validate(schema, parse(query)).map((e) => e.message), name).toEqual([]);
      await panel.locator('button.view-query').click();
      await expect(panel.locator('pre.query').innerText()).resolves.toContain(query.split('\n').find((l) => l.startsWith('query '))!);
      await panel.locator('button.view-query').click();
    }
    expect(await page.locator('[data-panel="index"] .uplot').count()).toBe(1);
    expect(await page.locator('[data-panel="history"] .uplot').count()).toBe(1);
    expect(await page.locator('[data-panel="stores"] svg.map circle').count()).toBeGreaterThan(100);
    // The track record: months in words, changes in percent, and each aggregate's errors.
    const track = page.locator('[data-panel="track-record"]');
    expect(await track.locator('tbody tr').count()).toBeGreaterThan(3);
    expect(await track.locator('tbody tr td').first().innerText()).toMatch(/^[A-Z][a-z]{2} \d{4}$/);
    // Only months observed on every day (the real log: Nov 2024 to Apr 2025), as the summary counts them.
    expect(await track.locator('tbody tr').count()).toBe(Number(/\((\d+) months\)/.exec(await track.locator('ul.mae li').first().innerText())?.[1]));
    expect(await track.locator('ul.mae li').first().innerText()).toMatch(/^All food: nowcast /);
    // The latest month's estimate with its interval, in the words of facts.js estimateSentence.
    expect(await track.locator('p.estimate').innerText()).toMatch(/^All food, latest month: [A-Z][a-z]{2} \d{4} (so far \(days 1–\d+|\(complete).*: [−+]\d+\.\d\d % \(90 % interval [−+]\d+\.\d\d % to [−+]\d+\.\d\d %/);

    // How old it is: the banner and each chain's last day (real status), the gaps under the index chart.
    const status = await realStatus();
    const box = page.locator('[data-freshness]');
    await expect.poll(() => box.getAttribute('data-state'), { timeout: 20_000 }).toMatch(/^(stale|fresh)$/);
    if (!status.fresh) await expect(box.locator('.banner').isVisible()).resolves.toBe(true);
    for (const r of status.retailers.filter((x) => x.last_day)) {
      expect(await box.locator(`li[data-chain="${r.slug}"]`).textContent(), r.slug).toContain(`prices as of ${formatDay(r.last_day)}`);
    }
    const gapsText = await page.locator('[data-panel="index"] .gaps').innerText();
    expect(gapsText).toContain('No prices were collected');
    for (const sentence of gapSentences(status.gaps)) expect(gapsText).toContain(sentence);
    // The index lines are not drawn through a day with coverage 0 (uPlot breaks a line at null).
    const { indexGroups } = ((await (await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: fs.readFileSync(path.join(DASHBOARD_DIR, 'queries', 'food-index.graphql'), 'utf8'), variables: { days: 730 } }),
    })).json()) as { data: { indexGroups: { days: string[]; groups: Array<{ id: number; raw: Array<number | null>; coverage: Array<number | null> }> } } }).data;
    const drawn = await drawnIndex(page);
    expect(drawn.spanGaps.every((x) => x !== true)).toBe(true);
    const shown = indexGroups.groups.filter((g) => g.raw.some((v) => v != null));
    expect(drawn.data).toHaveLength(shown.length + 1);
    shown.forEach((g, k) => g.coverage.forEach((c, i) => c === 0 && expect(drawn.data[k + 1][i], `${g.id} ${indexGroups.days[i]}`).toBeNull()));
    expect(drawn.segments).toBe(lineSegments(indexGroups.days, shown[0].raw, shown[0].coverage).length);
    // The deals say the day they describe.
    const dealsNote = await page.locator('[data-panel="deals"] .deals-as-of').innerText();
    expect(dealsNote).toMatch(/^[\d,]+ special deals (as of|seen) \d{1,2} [A-Z][a-z]{2} \d{4}/);
    // Shrinkflation (issue 32 item 4): the real data holds one size per item, so the panel is empty and says why.
    const shrink = page.locator('[data-panel="shrinkflation"]');
    await expect.poll(() => shrink.getAttribute('data-state'), { timeout: 60_000 }).toBe('empty');
    expect(await shrink.locator('.shrink-body').innerText()).toMatch(/No pack got smaller at a flat or higher shelf price from \d{1,2} [A-Z][a-z]{2} \d{4} to \d{1,2} [A-Z][a-z]{2} \d{4}\.[\s\S]*one size per item/);
    expect(await shrink.locator('a.open-graphiql').getAttribute('href')).toMatch(/^\/graphql\?query=/);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard.png'), fullPage: true });

    // "open in GraphiQL" opens the panel's query in GraphiQL, offline too.
    const href = (await page.locator('[data-panel="deals"] a.open-graphiql').getAttribute('href'))!;
    await page.goto(`${base}${href}`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await page.locator('.graphiql-query-editor').first().innerText()).replace(/\s+/g, ' '), { timeout: 20_000 }).toContain('query Deals');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('/ and /dashboard show a banner when the status says stale, and each chain\'s last collection day', async () => {
    for (const where of ['/', '/dashboard']) {
      const { page, errors } = await openPage();
      await page.route('**/api/v1/status', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(statusFixture(false)) }));
      await page.goto(`${base}${where}`);
      const box = page.locator('[data-freshness]');
      await expect.poll(() => box.getAttribute('data-state'), { timeout: 30_000, message: where }).toBe('stale');
      const banner = box.locator('.banner[role="alert"]');
      await expect(banner.isVisible(), where).resolves.toBe(true);
      expect(await banner.textContent(), where).toContain('Prices are out of date: the newest were collected on 3 Aug 2026, 121 days before today (2 Dec 2026).');
      expect(await box.locator('li[data-chain="woolworths"]').textContent(), where).toBe('Woolworths: prices as of 3 Aug 2026 (121 days ago) stale');
      expect(await box.locator('li[data-chain="paknsave"]').getAttribute('data-stale'), where).toBe('true');
      expect(await box.locator('li[data-chain="warehouse"]').textContent(), where).toBe('The Warehouse: no prices collected yet');
      expect(await box.innerText(), where).not.toMatch(/\d{4}-\d{2}-\d{2}/);
      if (where === '/dashboard') {
        await expect.poll(() => page.locator('[data-panel="index"]').getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');
        await expect.poll(() => page.locator('[data-panel="index"] .gaps').innerText()).toContain('No prices were collected 5 May 2025 → 26 Jul 2026 (448 days).');
      } else {
        expect(await box.innerText()).toContain('No prices were collected 5 May 2025 → 26 Jul 2026 (448 days).');
      }
      expect(errors, where).toEqual([]);
      await page.context().close();
    }
  }, 120_000);

  it('/ says what is still being computed, follows the status, and drops the line once nothing is', async () => {
    const { page, errors } = await openPage();
    let asked = 0;
    await page.route('**/api/v1/status', (route) => {
      asked += 1;
      const status = { ...statusFixture(true), computing: asked === 1 ? ['import', 'match', 'index'] : [] };
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(status) });
    });
    await page.goto(`${base}/`);
    const box = page.locator('[data-freshness]');
    const line = box.locator('p.computing[role="status"]');
    await expect.poll(() => line.count(), { timeout: 30_000 }).toBe(1);
    expect(await line.textContent()).toBe(
      'Still being computed: importing the real data, matching products across chains, computing the food-price index. Figures derived from the prices (comparisons, the index, shelves) may change or be missing until this is done.',
    );
    // The page asks again (every FOLLOW_SECONDS) while something is computing, and stops once nothing is.
    await expect.poll(() => line.count(), { timeout: (FOLLOW_SECONDS + 20) * 1000 }).toBe(0);
    expect(asked).toBe(2);
    expect(await box.locator('li[data-chain="woolworths"]').textContent()).toBe('Woolworths: prices as of 3 Aug 2026 (yesterday)');
    await new Promise((r) => setTimeout(r, (FOLLOW_SECONDS + 1) * 1000));
    expect(asked).toBe(2);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('no banner when the status is fresh; nothing shown, and nothing broken, when it does not answer', async () => {
    for (const where of ['/', '/dashboard']) {
      const { page, errors } = await openPage();
      await page.route('**/api/v1/status', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(statusFixture(true)) }));
      await page.goto(`${base}${where}`);
      const box = page.locator('[data-freshness]');
      await expect.poll(() => box.getAttribute('data-state'), { timeout: 30_000, message: where }).toBe('fresh');
      expect(await box.locator('.banner').count(), where).toBe(0);
      expect(await box.locator('li[data-chain="woolworths"]').textContent(), where).toBe('Woolworths: prices as of 3 Aug 2026 (yesterday)');
      expect(errors, where).toEqual([]);
      await page.context().close();
    }
    for (const where of ['/', '/dashboard']) {
      const { page, errors } = await openPage();
      await page.route('**/api/v1/status', (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":{"status":404,"message":"Not found"}}' }));
      await page.goto(`${base}${where}`);
      await expect.poll(() => page.locator('body').getAttribute('data-ready'), { timeout: 60_000, message: where }).toBe('true');
      const box = page.locator('[data-freshness]');
      expect(await box.getAttribute('data-state'), where).toBe('none');
      await expect(box.isVisible(), where).resolves.toBe(false);
      if (where === '/dashboard') for (const name of PANELS) expect(await page.locator(`[data-panel="${name}"]`).getAttribute('data-state'), name).toBe('ready');
      expect(errors, where).toEqual([]);
      await page.context().close();
    }
  }, 180_000);

  it('the shrinkflation panel lists events as a table (a SYNTHETIC answer routed in place of /graphql\'s)', async () => {
    const { page, errors } = await openPage();
    const synthetic = {
      data: {
        shrinkflation: {
          asOf: '2026-07-27', from: '2025-07-28', total: 2,
          events: [
            { listingId: 1, retailer: 'woolworths', name: 'SYNTHETIC crisps', brand: 'Acme', day: '2026-07-20', oldSize: '150g', newSize: '140g', oldPrice: 399, newPrice: 399, compareUnit: 'kg', oldUnitPrice: 2660, newUnitPrice: 2850, unitPriceChange: 7.1 },
            { listingId: 2, retailer: 'newworld', name: 'SYNTHETIC juice', brand: null, day: '2026-07-01', oldSize: '1L', newSize: '900ml', oldPrice: 300, newPrice: 320, compareUnit: 'l', oldUnitPrice: 300, newUnitPrice: 355.56, unitPriceChange: 18.5 },
          ],
        },
      },
    };
    await page.route('**/graphql', (route) =>
      (route.request().postData() ?? '').includes('shrinkflation(')
        ? route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(synthetic) })
        : route.continue());
    await page.goto(`${base}/dashboard`);
    const shrink = page.locator('[data-panel="shrinkflation"]');
    await expect.poll(() => shrink.getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');
    expect(await shrink.getAttribute('data-count')).toBe('2');
    expect(await shrink.locator('.shrink-as-of').innerText()).toBe('2 shrinks from 28 Jul 2025 to 27 Jul 2026; the newest:');
    const first = await shrink.locator('tbody tr').first().locator('td').allInnerTexts();
    expect(first).toEqual(['Acme · SYNTHETIC crisps', 'woolworths', '20 Jul 2026', '150g → 140g', '$3.99 → $3.99', '$26.60 → $28.50 per kg', '+7.1 %']);
    expect(await shrink.locator('tbody tr').nth(1).locator('td').nth(5).innerText()).toBe('$3.00 → $3.56 per L');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('the index chart breaks its lines across days with coverage 0', async () => {
    const { page, errors } = await openPage();
    // The real index with coverage 0 on ten days in the middle of the all-food series (and 1 elsewhere).
    let zeroed: number[] = [];
    let expected = 0;
    await page.route('**/graphql', async (route) => {
      const req = route.request();
      if (req.method() !== 'POST' || !req.postData()?.includes('query FoodIndex')) return route.fallback();
      const response = await route.fetch();
      const body = (await response.json()) as { data: { indexGroups: { days: string[]; groups: Array<{ id: number; raw: Array<number | null>; coverage: Array<number | null> }> } } };
      const { days, groups } = body.data.indexGroups;
      const valued = groups[0].raw.flatMap((v, i) => (v == null ? [] : [i]));
      const mid = valued[Math.floor(valued.length / 2)];
      zeroed = Array.from({ length: 10 }, (_, k) => mid + k);
      for (const g of groups) g.coverage = g.raw.map((v, i) => (v == null ? null : zeroed.includes(i) ? 0 : 1));
      expected = lineSegments(days, groups[0].raw, groups[0].coverage).length;
      return route.fulfill({ response, json: body });
    });
    await page.goto(`${base}/dashboard`);
    await expect.poll(() => page.locator('[data-panel="index"]').getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');
    const drawn = await drawnIndex(page);
    expect(expected).toBeGreaterThanOrEqual(2);
    expect(drawn.segments).toBe(expected);
    for (const series of drawn.data.slice(1)) for (const i of zeroed) expect(series[i]).toBeNull();
    // All food is drawn either side: the line stops at the gap and starts again after it.
    expect(drawn.data[1][zeroed[0] - 1]).not.toBeNull();
    expect(drawn.data[1][zeroed[zeroed.length - 1] + 1]).not.toBeNull();
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('a panel query refused as busy (503, Retry-After) is asked again after the wait, and the panel fills', async () => {
    const { page, errors } = await openPage();
    // The server's answer to a query its GraphQL family cannot take (facades/concurrency.ts), faked once.
    let refused = 0;
    let asked = 0;
    await page.route('**/graphql', async (route) => {
      const req = route.request();
      if (req.method() !== 'POST' || !req.postData()?.includes('query TrackRecord')) return route.fallback();
      asked += 1;
      if (refused++ === 0) {
        return route.fulfill({
          status: 503,
          headers: { 'retry-after': '1', 'content-type': 'application/json' },
          body: JSON.stringify({ errors: [{ message: 'Service unavailable: too many GraphQL requests at once; retry shortly', extensions: { code: 'UNAVAILABLE' } }] }),
        });
      }
      return route.fallback();
    });
    await page.goto(`${base}/dashboard`);
    const track = page.locator('[data-panel="track-record"]');
    await expect.poll(() => track.getAttribute('data-state'), { timeout: 60_000 }).toMatch(/^(ready|error|empty)$/);
    expect(await track.locator('.error').allInnerTexts()).toEqual([]);
    expect(await track.getAttribute('data-state')).toBe('ready');
    expect(asked).toBe(2);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('no page tried to reach another host', () => {
    expect(outside).toEqual([]);
  });
});
