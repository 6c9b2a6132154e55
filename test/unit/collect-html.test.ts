/**
 * What the HTML parser buys the collectors (issue 27 item 4): The Warehouse's grid and the MyFoodLink
 * storefronts are read through htmlparser2 (workers/collect/html.ts), so
 * - a page with harmless markup changes (attribute order, single or double quotes, unquoted values,
 *   extra attributes and class tokens, upper-case names, line breaks and spaces inside tags and
 *   text, comments, `&#34;`/`&#38;`/`&nbsp;` in place of `&quot;`/`&amp;`/spaces, a lazy `data-src`
 *   image) parses to exactly the rows of the recorded page
 *   (test/fixtures/collect/*\/…-variant.html, described in their README.md);
 * - a page that is not what was recorded (a challenge page, a card without a name, a body cut
 *   anywhere) is a MalformedPage with a message saying what is wrong, never another error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MalformedPage, type CollectContext, type PageRequest, type ParsedPage } from '../../workers/collect/types.js';
import { warehouse, warehouseTiles } from '../../workers/collect/warehouse.js';
import { freshchoice, myFoodLinkCards } from '../../workers/collect/freshchoice.js';
import { supervalue } from '../../workers/collect/supervalue.js';
import { attr, findFirst, htmlText, parseHtml, scriptJson, textOf } from '../../workers/collect/html.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/collect');
const html = (file: string): string => fs.readFileSync(path.join(FIXTURES, file), 'utf8');
const DAY = '2026-08-03';
const REPLAY = 'http://127.0.0.1:4010';
const HTML = { accept: 'text/html,application/xhtml+xml' };

const whCtx: CollectContext = { origin: REPLAY, day: DAY, store: null };
const whReq = (start: number): PageRequest => ({ url: `${REPLAY}/search/updategrid?cgid=foodhouseholdpets&start=${start}&sz=32`, headers: HTML, responseType: 'text' });
const fcCtx: CollectContext = { origin: REPLAY, day: DAY, store: 'hc' };
const fcReq: PageRequest = { url: `${REPLAY}/freshchoice/hc/category/meat`, headers: HTML, responseType: 'text' };

/** The error a parse throws (or null when it returns). */
function failure(parse: () => ParsedPage): unknown {
  try {
    parse();
    return null;
  } catch (e) {
    return e;
  }
}

describe('the HTML helpers (workers/collect/html.ts)', () => {
  it('reads decoded attributes and the text a shopper reads', () => {
    const doc = parseHtml(`<DIV Class='a  b' TITLE="Fish &amp; Chips &#x27;n&#39; peas"><p>Fish&nbsp;&amp;
      <b>Chips</b></p><script>var x = "<p>not text</p>";</script><br>3&nbsp;for<!-- c -->&#36;5</div>`);
    const div = findFirst(doc, { cls: 'b' })!;
    expect(div.name).toBe('div');
    expect(attr(div, 'title')).toBe("Fish & Chips 'n' peas");
    expect(attr(div, 'data-x')).toBeNull();
    expect(textOf(div)).toBe('Fish & Chips 3 for$5');
    expect(htmlText('Pams &amp; Co &lt;3')).toBe('Pams & Co <3');
  });

  it('reads a JSON literal a script assigns, to its matching bracket', () => {
    const doc = parseHtml(`<html><head><script>var other = 1;</script><script>
      window.gtmDataLayer = [{"name":"Tricky ]; name","brand":"A \\"B\\""}];
      window.after = [1];</script></head></html>`);
    expect(scriptJson(doc, 'window.gtmDataLayer')).toEqual([{ name: 'Tricky ]; name', brand: 'A "B"' }]);
    expect(scriptJson(doc, 'window.missing')).toBeUndefined();
    expect(scriptJson(parseHtml('<script>window.gtmDataLayer = [{oops}];</script>'), 'window.gtmDataLayer')).toBeUndefined();
  });
});

describe('harmless markup changes parse to the same rows', () => {
  it('The Warehouse: reordered, re-quoted, re-escaped tiles (grid-start32-variant.html)', () => {
    const recorded = warehouse.parsePage(html('warehouse/grid-start32.html'), whReq(32), whCtx);
    expect(recorded.rows).toHaveLength(3);
    expect(warehouse.parsePage(html('warehouse/grid-start32-variant.html'), whReq(32), whCtx)).toEqual(recorded);
  });

  it('The Warehouse: every tile of a full page with its JSON in single quotes, first, unescaped', () => {
    const page = html('warehouse/grid-start0.html');
    const requoted = page.replace(/<div class="product-tile" data-pid="(R\d+)" data-gtm-product="([^"]*)">/g, (_m, pid: string, json: string) => {
      const raw = json.replace(/&quot;/g, '"').replace(/&#x27;/g, '&#39;'); // the JSON's own `'` stays a reference inside '…'
      return `<div data-gtm-product='${raw}'\n  data-pid="${pid}" class="product-tile js-tile" data-new="">`;
    });
    expect(requoted).not.toBe(page);
    expect(requoted).not.toContain('data-gtm-product="');
    expect(warehouse.parsePage(requoted, whReq(0), whCtx)).toEqual(warehouse.parsePage(page, whReq(0), whCtx));
  });

  it('MyFoodLink: reordered classes and attributes, wrapped text, references, comments (category-meat-page1-variant.html)', () => {
    const recorded = freshchoice.parsePage(html('freshchoice/category-meat-page1.html'), fcReq, fcCtx);
    expect(recorded.rows).toHaveLength(3);
    expect(recorded.next).not.toBeNull();
    expect(freshchoice.parsePage(html('freshchoice/category-meat-page1-variant.html'), fcReq, fcCtx)).toEqual(recorded);
    // The card texts themselves, not only the rows: names with "&" decoded once, whitespace collapsed.
    expect(myFoodLinkCards(html('freshchoice/category-meat-page1-variant.html')).map((c) => [c.name, c.was, c.multibuy, c.title])).toEqual([
      ['Chesdale Cheese Slices Chives', 'was $5.40', null, 'Chesdale Cheese Slices Chives 250g'],
      ['Ocean Blue Salmon Double Smoked', null, '3 for $20.00 – $83.33 per kg', 'Ocean Blue Salmon Double Smoked 80g'],
      ['Blue Cod Skinned & Boned', null, null, 'Blue Cod Skinned & Boned'],
    ]);
  });

  it('MyFoodLink: department links in any quoting, absolute on the store, with a trailing slash', () => {
    const first = freshchoice.firstPage(fcCtx);
    const home = `<!doctype html><HTML><BODY><nav>
      <a href='/category/meat'>Meat</a> <a class=x href=/category/bakery/>Bakery</a>
      <a href="${REPLAY}/freshchoice/hc/category/fruit-vegetables">Fruit</a>
      <a href="/category/meat?sort=price">Meat sorted</a> <a href="/lines/x">Not a department</a>
    </nav></BODY></HTML>`;
    expect(freshchoice.parsePage(home, first, fcCtx).more!.map((r) => r.label)).toEqual(['meat page 1', 'bakery page 1', 'fruit-vegetables page 1']);
  });
});

describe('pages that are not what was recorded: a clear MalformedPage, never another error', () => {
  it('The Warehouse: a challenge page, a JSON error, a tile whose JSON is cut', () => {
    const challenge = '<!DOCTYPE html><html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>Reference #18.2f</p></body></html>';
    expect(failure(() => warehouse.parsePage(challenge, whReq(0), whCtx))).toEqual(new MalformedPage('warehouse: no product grid on the page ("Access Denied")'));
    expect(failure(() => warehouse.parsePage('{"error":"blocked"}', whReq(0), whCtx))).toEqual(new MalformedPage('warehouse: the grid page is not HTML: "{\\"error\\":\\"blocked\\"}"'));
    const cut = '<div class="row product-grid"><div class="product-tile" data-gtm-product="{&quot;id&quot;: &quot;R1&quot;, &quot;name"></div></div>';
    expect(() => warehouseTiles(cut)).toThrow(/^warehouse: a product tile's data-gtm-product is not JSON: \{"id": "R1", "name$/);
    // The recorded empty grid is still the end of the catalogue, not an error.
    expect(warehouse.parsePage(html('warehouse/grid-empty.html'), whReq(64), whCtx)).toEqual({ rows: [], next: null });
  });

  it('MyFoodLink: a maintenance text, a priced card without a name, unclosed tags', () => {
    expect(failure(() => freshchoice.parsePage('Service unavailable', fcReq, fcCtx))).toEqual(new MalformedPage('freshchoice: not an HTML page: "Service unavailable"'));
    const nameless = '<html><body><div class="talker" id="line_abc"><strong class="price__sell">$4.00</strong></div></body></html>';
    expect(() => freshchoice.parsePage(nameless, fcReq, fcCtx)).toThrow(/^product card line_abc: name: /);
    // Unclosed elements: the parser closes them; the card still has its parts.
    const unclosed = '<html><body><h1>Meat<div class="talker" id="line_x1"><span class="talker__product-name">Lamb Chops</span><p><strong class="price__sell">$12.00';
    const p = freshchoice.parsePage(unclosed, fcReq, fcCtx);
    expect(p.rows.map((r) => [r.external_id, r.name, r.price])).toEqual([['x1', 'Lamb Chops', 1200]]);
  });

  it('every recorded page cut anywhere parses or is a MalformedPage', () => {
    const pages: Array<[string, (body: string) => ParsedPage]> = [
      ['warehouse/grid-start0.html', (b) => warehouse.parsePage(b, whReq(0), whCtx)],
      ['warehouse/grid-start32-variant.html', (b) => warehouse.parsePage(b, whReq(32), whCtx)],
      ['freshchoice/home.html', (b) => freshchoice.parsePage(b, freshchoice.firstPage(fcCtx), fcCtx)],
      ['freshchoice/category-meat-page1-variant.html', (b) => freshchoice.parsePage(b, fcReq, fcCtx)],
      ['freshchoice/category-meat-page2.html', (b) => freshchoice.parsePage(b, fcReq, fcCtx)],
      ['supervalue/category-dairy-eggs-page1.html', (b) =>
        supervalue.parsePage(b, { url: `${REPLAY}/supervalue/milton/category/dairy-eggs` }, { origin: REPLAY, day: DAY, store: 'milton' })],
    ];
    let cuts = 0;
    for (const [file, parse] of pages) {
      const page = html(file);
      const step = Math.max(1, Math.floor(page.length / 150));
      for (let at = 0; at < page.length; at += step) {
        const e = failure(() => parse(page.slice(0, at)));
        if (e !== null && !(e instanceof MalformedPage)) throw new Error(`${file} cut at ${at}: ${String(e)}`);
        cuts++;
      }
    }
    expect(cuts).toBeGreaterThan(800);
  });
});
