/**
 * The feeds in a real browser (issue 32 items 3 and 4): headless Chromium (as
 * test/e2e/pages.test.ts: Debian's `chromium`, `CHROMIUM_PATH` for another, driven by
 * playwright-core) opens an Atom feed and a JSON feed from the running server over the real data
 * (test/helpers/prices.ts) and shows them without error (the shrinkflation feed empty there, saying why): the Atom feed as text (Chromium renders no feed type as a
 * document) that the browser's own XML parser reads as an Atom `feed`, the JSON Feed as text that parses as JSON Feed 1.1. Whether the feeds are
 * valid is the parsers' job (test/integration/feeds.test.ts); this checks what a browser makes of
 * them (their media types: application/atom+xml, application/feed+json). Skipped without Chromium.
 */
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices } from '../helpers/prices.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAS_CHROMIUM) console.warn(`test/e2e/feeds-browser.test.ts: no Chromium at ${CHROMIUM}: skipped`);

let db: TestDatabase;
let app: FastifyInstance;
let base: string;
let browser: Browser | undefined;

beforeAll(async () => {
  db = await createTestDatabase('feeds_browser');
  await seedRealPrices(db.pool);
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
  if (HAS_CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await db?.drop();
});

describe.skipIf(!HAS_CHROMIUM)('the feeds in headless Chromium', () => {
  it('shows the Atom feed of a chain’s new specials as text its XML parser reads as an Atom feed with entries', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const response = await page.goto(`${base}/feeds/deals/woolworths.atom`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('application/atom+xml; charset=utf-8');
    // Chromium shows an Atom feed as text (it renders no feed media type as a document); its own
    // XML parser (DOMParser) then reads that text as an Atom feed without a parser error.
    const doc = await page.evaluate(() => {
      const shown = document.body.innerText;
      const xml = new DOMParser().parseFromString(shown, 'application/xml');
      const atom = 'http://www.w3.org/2005/Atom';
      return {
        xml: xml instanceof XMLDocument,
        root: xml.documentElement.localName,
        ns: xml.documentElement.namespaceURI,
        parseErrors: xml.getElementsByTagName('parsererror').length,
        title: xml.documentElement.getElementsByTagNameNS(atom, 'title')[0]?.textContent?.trim(),
        entries: xml.documentElement.getElementsByTagNameNS(atom, 'entry').length,
      };
    });
    expect(doc).toMatchObject({ xml: true, root: 'feed', ns: 'http://www.w3.org/2005/Atom', parseErrors: 0, title: 'New special deals at Woolworths' });
    expect(doc.entries).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('opens the JSON Feed of a search’s drops as text that is JSON Feed 1.1', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const response = await page.goto(`${base}/feeds/search.json?q=mandarins`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('application/feed+json; charset=utf-8');
    // Shown, not downloaded: the page's text is the feed.
    const text = await page.evaluate(() => document.body.innerText);
    const feed = JSON.parse(text);
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(feed.title).toBe('Price drops for “mandarins”');
    expect(feed.items.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the shrinkflation Atom feed (empty on the real data, saying why) as an Atom feed its XML parser reads', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const response = await page.goto(`${base}/feeds/shrinkflation.atom`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('application/atom+xml; charset=utf-8');
    const doc = await page.evaluate(() => {
      const xml = new DOMParser().parseFromString(document.body.innerText, 'application/xml');
      const atom = 'http://www.w3.org/2005/Atom';
      return {
        root: xml.documentElement.localName,
        parseErrors: xml.getElementsByTagName('parsererror').length,
        subtitle: xml.documentElement.getElementsByTagNameNS(atom, 'subtitle')[0]?.textContent ?? '',
        entries: xml.documentElement.getElementsByTagNameNS(atom, 'entry').length,
      };
    });
    expect(doc).toMatchObject({ root: 'feed', parseErrors: 0, entries: 0 });
    expect(doc.subtitle).toMatch(/Empty: no pack got smaller/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
