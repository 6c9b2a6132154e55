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
import { DASHBOARD_DIR, FRONT_DOOR_LINKS } from '../../facades/http/pages.js';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { schema } from '../../src/graph/index.js';
import { runBasketMatching } from '../../workers/index/match.js';
import { runIndex } from '../../workers/index/compute.js';
import { importRealData } from '../../workers/import/index.js';
import { runViews } from '../../workers/levels/run.js';
import { runMatching } from '../../workers/match/match.js';
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const SHOTS = path.join(DASHBOARD_DIR, 'screenshots');
const PANELS = ['index', 'history', 'stores', 'deals'] as const;
const QUERY_FILES = fs.readdirSync(path.join(DASHBOARD_DIR, 'queries')).filter((f) => f.endsWith('.graphql'));

if (!HAS_CHROMIUM) {
  console.warn(`test/e2e/pages.test.ts: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH): the browser checks are skipped`);
}

let db: TestDatabase;
let app: FastifyInstance;
let base: string;
let browser: Browser | undefined;
/** Requests the browser tried to send anywhere but the test server. */
const outside: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase('pages_e2e');
  await importRealData(db.pool, DATA_DIR);
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
    for (const href of Object.values(FRONT_DOOR_LINKS)) expect(text).toContain(`href="${href}"`);
  });

  it('each dashboard panel query is valid against the schema and runs on the real data', async () => {
    expect(QUERY_FILES.sort()).toEqual(['deals.graphql', 'food-index.graphql', 'price-history.graphql', 'store-levels.graphql']);
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
    for (const href of Object.values(FRONT_DOOR_LINKS)) expect(await page.locator(`a[href="${href}"]`).count(), href).toBeGreaterThan(0);
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

  it('/dashboard renders the four panels with the real data; each shows its query and links it to GraphiQL', async () => {
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
    await page.screenshot({ path: path.join(SHOTS, 'dashboard.png'), fullPage: true });

    // "open in GraphiQL" opens the panel's query in GraphiQL, offline too.
    const href = (await page.locator('[data-panel="deals"] a.open-graphiql').getAttribute('href'))!;
    await page.goto(`${base}${href}`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await page.locator('.graphiql-query-editor').first().innerText()).replace(/\s+/g, ' '), { timeout: 20_000 }).toContain('query Deals');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('no page tried to reach another host', () => {
    expect(outside).toEqual([]);
  });
});
