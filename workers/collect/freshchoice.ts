/**
 * FreshChoice collector, and the MyFoodLink translation it shares with SuperValue (supervalue.ts).
 *
 * Platform: FreshChoice and SuperValue (Woolworths NZ franchise banners) do not share the
 * Woolworths online shop: each store has its own MyFoodLink storefront at
 * `https://<store>.store.freshchoice.co.nz` (`…store.supervalue.co.nz`), which renders the products
 * into the page HTML (there is no product JSON to call). Sources: kma14/Zhua.Food
 * docs/internals/crawling.md "FreshChoice — MyFoodLink (D26)" and its captured card fixture
 * tests/Zhua.Crawling.Tests/Fixtures/freshchoice-category.html; JavaGT/nz-grocery-prices
 * src/adapters/freshchoice.js and src/adapters/supervalue.js ("SuperValue is the sister banner to
 * FreshChoice on the same myfoodlink storefront platform"); the MyFoodLinkScraper of the COSC345
 * scraper project (FreshChoice and SuperValue on one generic scraper). test/fixtures/collect/
 * freshchoice/README.md names commits.
 *
 * Shapes relied on:
 * - A store is its storefront subdomain (`store.external_id`, e.g. `hc`, `queenstown`). The page
 *   `/` of a storefront links its departments as `/category/<slug>`; a department page
 *   `/category/<slug>?page=N` (about 48 products) names the department in its `<h1>` and links the
 *   next page with `rel="next"`.
 * - One product card is `div.talker` with `id="line_<line id>"`: `span.talker__product-name`,
 *   `span.talker__name__size` (absent for products sold by weight, whose `price__units` is
 *   "per kg"), `strong.price__sell` ("$4.00", dollars), `span.talker__prices__was` ("was $5.40": a
 *   special, the regular price published), a multibuy as card class `talker--Deal` with
 *   "3 for $20.00 - $83.33 per kg" in `…unit_price--multibuy` (or "3 for $20" in the sticker), the
 *   image `img[src]`, the product link `a[href^="/lines/"]`. Cards of class `talker--placeholder`
 *   or without a price are not products. MyFoodLink runs no member prices.
 * - Optional, unverified on the current markup: the page's `window.gtmDataLayer = [...]` analytics
 *   list whose `productListImpression` impressions carry the barcode as `id` and the `brand`
 *   (COSC345 MyFoodLinkGtmImpression); when present, they fill brand and gtin by product name.
 *
 * Pages are HTML: every request says `responseType: 'text'`, so `parsePage` takes the HTML string (the requests
 * ask for `accept: text/html`). It is read through the collectors' one HTML parser (html.ts,
 * htmlparser2): cards and their parts are found by class tokens and attributes, texts come decoded
 * with whitespace collapsed, so attribute order, quoting, extra classes or attributes, line breaks
 * and character references do not change the rows; a body without an `<html>`/`<body>` element is a
 * MalformedPage. The analytics list is read from its `<script>` as JSON (html.ts scriptJson).
 *
 * Store directory (`stores()`): `GET https://www.<chain domain>/api/v1/stores` (on a loopback replay
 * server `<origin>/<retailer>/api/v1/stores`), an array of `{ MDOMAIN, MSHOPNAME, MSHOPNUM, type }`
 * (COSC345 MyFoodLinkApi/MyFoodLinkStore); records of type `ecommerce` whose MDOMAIN is a storefront
 * `<store>.<chooser host>` are the stores; `address`/`latitude`/`longitude` read when present
 * (unverified). The runner upserts them (workers/collect/stores.ts).
 */
import { z } from 'zod';
import { dollarsToCents } from '../../src/domain/money.js';
import type { ObservationInput } from '../ingest/format.js';
import { attr, classList, findAll, findFirst, htmlText, parseHtml, scriptJson, textAt, type HtmlDocument, type HtmlElement } from './html.js';
import { MalformedPage, type ChainCollector, type CollectContext, type DirectoryStore, type PageRequest, type ParsedPage } from './types.js';

/**
 * Integer cents of a dollar amount as shops print it (`$4.00`, `4`, `$1,299.50`, `7.99`, or a JSON
 * number such as 5.99), converted exactly on the decimal text; null when it is not one.
 */
export function shopDollarsToCents(v: unknown): number | null {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return null;
    v = String(v);
  }
  if (typeof v !== 'string') return null;
  const s = v.trim().replace(/^\$\s*/, '').replace(/,(?=\d{3}(?:\D|$))/g, '');
  try {
    return dollarsToCents(s);
  } catch {
    return null;
  }
}

/** "3 for $20.00" → quantity and total cents; null when the text holds no such offer. */
export function parseMultibuy(text: string): { qty: number; total: number } | null {
  const m = /(\d+)\s*for\s*\$\s*([\d,]+(?:\.\d{1,2})?)/i.exec(text);
  if (!m) return null;
  const qty = Number(m[1]);
  const total = shopDollarsToCents(m[2]);
  return qty >= 2 && qty <= 1000 && total !== null && total > 0 ? { qty, total } : null;
}

/** One MyFoodLink chain: its slug and the host of its national store chooser. */
export interface MyFoodLinkChain {
  /** Retailer slug: `freshchoice` or `supervalue`. */
  retailer: string;
  /** The chooser host whose subdomains are the stores, e.g. `store.freshchoice.co.nz`. */
  chooserHost: string;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;
const STORE_RE = /^[a-z0-9][a-z0-9-]*$/;

/**
 * The storefront base of a store: `https://<store>.<chooser host>` for the live origin; a replay
 * server on a loopback address cannot serve per-store subdomains, so there it is
 * `<origin>/<retailer>/<store>` (same paths below it).
 */
export function myFoodLinkStoreBase(chain: MyFoodLinkChain, origin: string, store: string): string {
  if (!STORE_RE.test(store)) throw new Error(`${chain.retailer} store ids are storefront subdomains (e.g. queenstown), not "${store}"`);
  const url = new URL(origin);
  if (LOOPBACK.test(url.hostname)) return `${url.origin}/${chain.retailer}/${store}`;
  url.hostname = `${store}.${url.hostname}`;
  return url.origin;
}

const HTML_HEADERS = { accept: 'text/html,application/xhtml+xml' } as const;

/** zod shape of one card's texts, before conversion (the recorded card fields). */
const cardSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  size: z.string().nullable(),
  sell: z.string().min(1),
  units: z.string().nullable(),
  was: z.string().nullable(),
  multibuy: z.string().nullable(),
  image: z.string().nullable(),
  href: z.string().nullable(),
  classes: z.array(z.string()),
  title: z.string().nullable(),
});
type Card = z.output<typeof cardSchema>;

/** The optional analytics impressions (COSC345 MyFoodLinkGtmData; unverified on the current markup). */
const gtmSchema = z.array(
  z
    .object({
      event: z.string().nullish(),
      ecommerce: z
        .object({
          impressions: z
            .array(z.object({ id: z.union([z.string(), z.number()]).nullish(), name: z.string().nullish(), brand: z.string().nullish() }).loose())
            .nullish(),
        })
        .loose()
        .nullish(),
    })
    .loose(),
);

const squash = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
/** A class token that ends with `suffix` (MyFoodLink's BEM modifiers, e.g. `…unit_price--multibuy`). */
const classEnding = (suffix: string) => (el: HtmlElement) => classList(el).some((c) => c.endsWith(suffix));
const isCard = { cls: 'talker', where: (el: HtmlElement) => (attr(el, 'id') ?? '').startsWith('line_') };

/**
 * The product cards of a MyFoodLink page, as texts (placeholders and unpriced cards left out): each
 * element of class `talker` whose id is `line_<line id>`, read by the class tokens of its parts
 * (see the module comment). Accepts a parsed page or its HTML text.
 * @throws MalformedPage when a priced card lacks a part the recorded shape has (its name).
 */
export function myFoodLinkCards(page: string | HtmlDocument): Card[] {
  const doc = typeof page === 'string' ? parseHtml(page) : page;
  const cards: Card[] = [];
  for (const el of findAll(doc, isCard)) {
    const classes = classList(el);
    if (classes.includes('talker--placeholder')) continue;
    const sell = textAt(el, { cls: 'price__sell' });
    if (sell === null) continue;
    const img = findFirst(el, { tag: 'img', where: (i) => !!(attr(i, 'src') || attr(i, 'data-src')) });
    const link = findFirst(el, { tag: 'a', where: (a) => (attr(a, 'href') ?? '').startsWith('/lines/') });
    const named = findFirst(el, { cls: 'talker__name', where: (n) => attr(n, 'title') !== null });
    const card = {
      id: (attr(el, 'id') ?? '').slice('line_'.length),
      name: textAt(el, { cls: 'talker__product-name' }) ?? '',
      size: textAt(el, { cls: 'talker__name__size' }),
      sell,
      units: textAt(el, { cls: 'price__units' }),
      was: textAt(el, { cls: 'talker__prices__was' }),
      multibuy: textAt(el, { where: classEnding('unit_price--multibuy') }) ?? (classes.includes('talker--Deal') ? textAt(el, { cls: 'talker__stickers' }) : null),
      image: img === null ? null : attr(img, 'src') || attr(img, 'data-src') || null,
      href: link === null ? null : attr(link, 'href'),
      classes,
      title: named === null ? null : attr(named, 'title'),
    };
    const r = cardSchema.safeParse(card);
    if (!r.success) throw new MalformedPage(`product card line_${card.id || '?'}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
    cards.push(r.data);
  }
  return cards;
}

/** Brand and barcode by product name from the optional `window.gtmDataLayer` impressions. */
function gtmByName(doc: HtmlDocument): Map<string, { brand: string | null; gtin: string | null }> {
  const out = new Map<string, { brand: string | null; gtin: string | null }>();
  const json = scriptJson(doc, 'window.gtmDataLayer');
  if (json === undefined) return out; // analytics only: a page without usable analytics still has its cards
  const r = gtmSchema.safeParse(json);
  if (!r.success) return out;
  for (const ev of r.data) {
    for (const imp of ev.ecommerce?.impressions ?? []) {
      if (!imp.name) continue;
      const id = imp.id === null || imp.id === undefined ? '' : String(imp.id);
      const brand = imp.brand?.trim();
      out.set(squash(htmlText(imp.name)), { brand: brand && brand.toLowerCase() !== 'na' ? brand : null, gtin: /^\d{8,14}$/.test(id) ? id : null });
    }
  }
  return out;
}

function cents(text: string, what: string, id: string): number {
  const c = shopDollarsToCents(text.replace(/^was\s*/i, ''));
  if (c === null) throw new MalformedPage(`product card line_${id}: ${what} "${text}" is not a dollar amount`);
  return c;
}

function cardRow(chain: MyFoodLinkChain, card: Card, department: string, base: string, ctx: CollectContext, gtm: ReturnType<typeof gtmByName>): ObservationInput {
  const sell = cents(card.sell, 'price', card.id);
  const was = card.was === null ? null : cents(card.was, 'was-price', card.id);
  const offer = card.multibuy === null ? null : parseMultibuy(card.multibuy);
  const special = card.classes.includes('talker--Special') || card.classes.includes('special');
  let promo: Pick<ObservationInput, 'price' | 'promo_price' | 'promo_kind' | 'multibuy_qty' | 'multibuy_price'>;
  if (was !== null && was > sell) promo = { price: was, promo_price: sell, promo_kind: 1, multibuy_qty: null, multibuy_price: null };
  else if (offer) promo = { price: sell, promo_price: null, promo_kind: 3, multibuy_qty: offer.qty, multibuy_price: offer.total };
  else if (special) promo = { price: sell, promo_price: sell, promo_kind: 1, multibuy_qty: null, multibuy_price: null };
  else promo = { price: sell, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null };
  const extra = gtm.get(squash(card.name)) ?? (card.title ? gtm.get(squash(card.title)) : undefined);
  const byWeight = card.units !== null && /per\s*kg/i.test(card.units);
  return {
    day: ctx.day,
    retailer: chain.retailer,
    store: ctx.store,
    external_id: card.id,
    ...promo,
    name: card.name,
    brand: extra?.brand ?? null,
    size_text: card.size ?? (byWeight ? 'kg' : null),
    gtin: extra?.gtin ?? null,
    category_path: department ? [department] : [],
    image: card.image,
    retailer_url: card.href === null ? null : `${base}${card.href}`,
    available: true,
  };
}

/** The `rel` tokens of a link, lower case. */
const relTokens = (el: HtmlElement) => (attr(el, 'rel') ?? '').toLowerCase().split(/\s+/).filter(Boolean);

/** The department slug of a storefront link `/category/<slug>` (or the same under the store's own base URL); null for other links. */
function departmentSlug(href: string | null, base: string): string | null {
  if (href === null) return null;
  const rel = href.startsWith(`${base}/`) ? href.slice(base.length) : href;
  return /^\/category\/([a-z0-9][a-z0-9-]*)\/?$/.exec(rel)?.[1] ?? null;
}

const titleCase = (slug: string) => slug.split('-').filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');

/**
 * Parses one MyFoodLink page: the storefront's `/` (→ one request per department, in
 * {@link ParsedPage.more}) or a department page (→ its products, department as category, and the
 * `rel="next"` page).
 * @throws MalformedPage when the body is not an HTML page or a product card does not have the recorded shape.
 */
export function parseMyFoodLinkPage(chain: MyFoodLinkChain, body: unknown, req: PageRequest, ctx: CollectContext): ParsedPage {
  if (typeof body !== 'string') throw new MalformedPage(`${chain.retailer}: expected the page's HTML text, got ${body === null ? 'null' : typeof body}`);
  const doc = parseHtml(body);
  if (findFirst(doc, { tag: ['html', 'body'] }) === null) throw new MalformedPage(`${chain.retailer}: not an HTML page: ${JSON.stringify(body.trim().slice(0, 80))}`);
  if (ctx.store === null) throw new Error(`${chain.retailer} prices are per store: a store id is needed`);
  const base = myFoodLinkStoreBase(chain, ctx.origin, ctx.store);
  const path = req.url.startsWith(base) ? req.url.slice(base.length) : new URL(req.url).pathname;

  if (path === '' || path === '/') {
    const slugs = [...new Set(findAll(doc, { tag: 'a' }).map((a) => departmentSlug(attr(a, 'href'), base)).filter((x): x is string => x !== null))];
    return {
      rows: [],
      next: null,
      more: slugs.map((slug) => ({ url: `${base}/category/${slug}`, headers: HTML_HEADERS, responseType: 'text', label: `${slug} page 1` })),
    };
  }

  const slug = /^\/category\/([a-z0-9-]+)/.exec(path)?.[1] ?? '';
  const department = textAt(doc, { tag: 'h1' }) ?? titleCase(slug);
  const gtm = gtmByName(doc);
  const seen = new Set<string>();
  const rows: ObservationInput[] = [];
  for (const card of myFoodLinkCards(doc)) {
    if (seen.has(card.id)) continue;
    seen.add(card.id);
    rows.push(cardRow(chain, card, department, base, ctx, gtm));
  }
  const nextLink = findFirst(doc, { tag: ['a', 'link'], where: (el) => relTokens(el).includes('next') && !!attr(el, 'href') });
  const href = nextLink === null ? null : attr(nextLink, 'href');
  let next: PageRequest | null = null;
  if (href) {
    const url = href.startsWith('/') ? `${base}${href}` : new URL(href, req.url).toString();
    const page = /[?&]page=(\d+)/.exec(href)?.[1];
    if (url !== req.url) next = { url, headers: HTML_HEADERS, responseType: 'text', label: `${slug} page ${page ?? '?'}` };
  }
  return { rows, next };
}

/**
 * The URL of a MyFoodLink chain's store directory: `https://www.<chain domain>/api/v1/stores` for
 * the live chooser origin `https://store.<chain domain>`; `<origin>/<retailer>/api/v1/stores` on a
 * loopback replay server (beside the storefronts it serves under `/<retailer>/<store>`).
 */
export function myFoodLinkDirectoryUrl(chain: MyFoodLinkChain, origin: string): string {
  const url = new URL(origin);
  if (LOOPBACK.test(url.hostname)) return `${url.origin}/${chain.retailer}/api/v1/stores`;
  if (url.hostname.startsWith('store.')) url.hostname = `www.${url.hostname.slice('store.'.length)}`;
  return `${url.origin}/api/v1/stores`;
}

const coordinate = z.union([z.number(), z.string().regex(/^-?\d+(?:\.\d+)?$/).transform(Number)]).nullish();

/**
 * One record of `GET /api/v1/stores` (the COSC345 scraper's MyFoodLinkStore: `MDOMAIN` the
 * storefront host, `MSHOPNAME`, `MSHOPNUM`, `type` — "ecommerce" for a store with an online shop).
 * `address`, `latitude`, `longitude` are not in that record: read when present, unverified.
 */
const directorySchema = z.array(
  z
    .object({
      MDOMAIN: z.string().nullish(),
      MSHOPNAME: z.string().nullish(),
      MSHOPNUM: z.union([z.string(), z.number()]).nullish(),
      type: z.string().nullish(),
      address: z.string().nullish(),
      latitude: coordinate,
      longitude: coordinate,
    })
    .loose(),
);

/**
 * The online-shop stores of a MyFoodLink directory body: records of type `ecommerce` whose
 * `MDOMAIN` is a storefront `<store>.<chooser host>`; the store id is that subdomain.
 * @throws MalformedPage when the body is not the recorded array of store records.
 */
export function parseMyFoodLinkDirectory(chain: MyFoodLinkChain, body: unknown): DirectoryStore[] {
  const r = directorySchema.safeParse(body);
  if (!r.success) throw new MalformedPage(`${chain.retailer} store directory: ${r.error.issues.slice(0, 3).map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
  const suffix = `.${chain.chooserHost}`;
  const out: DirectoryStore[] = [];
  for (const s of r.data) {
    if (s.type !== 'ecommerce' || !s.MSHOPNAME?.trim()) continue;
    const host = (s.MDOMAIN ?? '').trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '');
    if (!host.endsWith(suffix)) continue;
    const id = host.slice(0, -suffix.length);
    if (!STORE_RE.test(id)) continue;
    out.push({ external_id: id, name: s.MSHOPNAME.trim(), address: s.address?.trim() || null, lat: s.latitude ?? null, lng: s.longitude ?? null });
  }
  return out;
}

/**
 * A MyFoodLink chain's collector: per store (`store.external_id` = the storefront subdomain);
 * starts at the storefront's `/`, fans out to its departments, follows each department's pages.
 */
export function myFoodLinkCollector(chain: MyFoodLinkChain): ChainCollector {
  return {
    retailer: chain.retailer,
    defaultOrigin: `https://${chain.chooserHost}`,
    national: false,
    async stores(ctx, fetchJson) {
      const res = await fetchJson({ url: myFoodLinkDirectoryUrl(chain, ctx.origin), headers: { accept: 'application/json' }, label: 'store directory' });
      return parseMyFoodLinkDirectory(chain, res.body);
    },
    firstPage(ctx) {
      if (ctx.store === null) throw new Error(`${chain.retailer} prices are per store: a store id is needed`);
      return { url: `${myFoodLinkStoreBase(chain, ctx.origin, ctx.store)}/`, headers: HTML_HEADERS, responseType: 'text', label: 'departments' };
    },
    parsePage(body, req, ctx) {
      return parseMyFoodLinkPage(chain, body, req, ctx);
    },
    afterMalformed(req) {
      // A department page N is followed by page N + 1 (past the last page: no cards, no next link).
      const m = /^(.*\/category\/([a-z0-9-]+))(?:\?page=(\d+))?$/.exec(req.url);
      if (!m) return null;
      const page = Number(m[3] ?? '1') + 1;
      return { url: `${m[1]}?page=${page}`, headers: HTML_HEADERS, responseType: 'text', label: `${m[2]} page ${page}` };
    },
  };
}

/** FreshChoice: MyFoodLink storefronts `https://<store>.store.freshchoice.co.nz`. */
export const freshchoice: ChainCollector = myFoodLinkCollector({ retailer: 'freshchoice', chooserHost: 'store.freshchoice.co.nz' });
