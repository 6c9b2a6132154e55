/**
 * The Warehouse collector: national prices (`national: true`, store null), one price panel.
 *
 * The Warehouse's web shop is a server-rendered Salesforce Commerce Cloud (SFRA) storefront with no
 * public product JSON API: its product grid `GET /search/updategrid?cgid=<category>&start=<n>&sz=<size>`
 * returns HTML product tiles `div.product-tile` whose `data-gtm-product` attribute holds the tile's
 * analytics JSON (HTML-escaped): `id`, `name`, `brand`, `price` and `productThenPrice` (dollars, as
 * a string or a number; the then-price is the regular price of a discounted product), `productEAN`
 * (barcode, or "na"), `category` (slash path of category ids), `productCategoryLevel1..7`,
 * `productBadges` ("badge_specials", "badge_2_for_7.99", "na"), `promotionCallOutMessage`
 * ("2 for $5.00"), `marketplaceProduct`; the tile holds the product link `a[href^="/p/"]` and the
 * image `img.tile-image`. Sources: JavaGT/nz-grocery-prices src/adapters/warehouse.js and its test;
 * a TypeScript WarehouseProvider (SFRA, 32 tiles a page, `cgid=foodhouseholdpets` for food,
 * pets and household); a Python importer of the same tile fields (productCategoryLevel1..7,
 * productChannelType). test/fixtures/collect/warehouse/README.md names commits.
 *
 * Paging: 32 tiles a page; a full page means there may be another (`start += 32`). Marketplace
 * tiles (third-party sellers) are not The Warehouse's shelf price and are left out. Clearance
 * ("clearance" in the badges) is promo kind 4 — a badge value not seen in the records, so
 * unverified. Pages are HTML: requests say `responseType: 'text'` (and ask for `accept: text/html`), so `parsePage` gets the string.
 *
 * The page is read through the collectors' one HTML parser (html.ts, htmlparser2): tiles are found by
 * their class token and attribute, not by the text of the markup, so attribute order, quoting,
 * extra attributes or classes, whitespace and character references (`&amp;`, `&#39;`) do not change
 * the rows. A body that is not HTML (a JSON error, plain text), or an HTML page with neither tiles
 * nor the grid (`.product-grid` / `.grid-footer`: a challenge or error page) is a MalformedPage,
 * not the end of the catalogue.
 */
import { z } from 'zod';
import type { ObservationInput } from '../ingest/format.js';
import { parseMultibuy, shopDollarsToCents } from './freshchoice.js';
import { attr, findAll, findFirst, hasClass, hasElements, parseHtml, textAt, type HtmlDocument, type HtmlElement } from './html.js';
import { MalformedPage, type ChainCollector, type CollectContext, type PageRequest, type ParsedPage } from './types.js';

/** Tiles per grid page (SFRA's page size on the site). */
export const WAREHOUSE_PAGE_SIZE = 32;
/** The Salesforce category id collected: Food, Pets & Household. */
export const WAREHOUSE_CATEGORY = 'foodhouseholdpets';

const HTML_HEADERS = { accept: 'text/html,application/xhtml+xml' } as const;

const text = z.string().nullish();
const money = z.union([z.string(), z.number()]).nullish();

/** The `data-gtm-product` JSON of one tile (fields kept as published). */
const tileSchema = z
  .object({
    id: z.union([z.string().min(1), z.number().int().nonnegative()]),
    name: z.string().min(1),
    brand: text,
    price: money,
    productThenPrice: money,
    productEAN: z.union([z.string(), z.number()]).nullish(),
    category: text,
    productBadges: text,
    promotionCallOutMessage: text,
    marketplaceProduct: z.union([z.boolean(), z.string()]).nullish(),
    productCategoryLevel1: text,
    productCategoryLevel2: text,
    productCategoryLevel3: text,
    productCategoryLevel4: text,
    productCategoryLevel5: text,
    productCategoryLevel6: text,
    productCategoryLevel7: text,
  })
  .loose();
type Tile = z.output<typeof tileSchema>;

/** One grid request. */
function gridRequest(origin: string, start: number): PageRequest {
  return {
    url: `${origin}/search/updategrid?cgid=${WAREHOUSE_CATEGORY}&start=${start}&sz=${WAREHOUSE_PAGE_SIZE}`,
    headers: HTML_HEADERS, responseType: 'text',
    label: `start ${start}`,
  };
}

const given = (v: string | null | undefined): string | null => {
  const s = v?.trim();
  return s && s.toLowerCase() !== 'na' && s.toLowerCase() !== 'null' ? s : null;
};

/** One product tile as read from the page: its `data-gtm-product` JSON, product link and image. */
export interface WarehouseTile {
  /** The tile's analytics JSON, checked against the recorded shape. */
  tile: Tile;
  /** The product link (`/p/…`, path and query on the shop), or null. */
  href: string | null;
  /** The tile image URL, or null. */
  image: string | null;
}

const isTile = { cls: 'product-tile', where: (el: HtmlElement) => attr(el, 'data-gtm-product') !== null };

/** The product page path of a tile link: `/p/…` as written, or the path and query of an absolute link to `/p/…`. */
function productPath(href: string | null): string | null {
  if (href === null) return null;
  if (href.startsWith('/p/')) return href;
  try {
    const u = new URL(href);
    return u.pathname.startsWith('/p/') ? `${u.pathname}${u.search}` : null;
  } catch {
    return null;
  }
}

/**
 * The product tiles of a grid page (elements of class `product-tile` with a `data-gtm-product`
 * attribute), each with its product link (`a[href^="/p/"]`) and image (`img.tile-image`, `src` or
 * the lazy `data-src`). Accepts a parsed page or its HTML text.
 * @throws MalformedPage when a tile's `data-gtm-product` is not JSON of the recorded shape.
 */
export function warehouseTiles(page: string | HtmlDocument): WarehouseTile[] {
  const doc = typeof page === 'string' ? parseHtml(page) : page;
  return findAll(doc, isTile).map((el) => {
    const raw = attr(el, 'data-gtm-product') ?? '';
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new MalformedPage(`warehouse: a product tile's data-gtm-product is not JSON: ${raw.slice(0, 80)}`);
    }
    const r = tileSchema.safeParse(json);
    if (!r.success) throw new MalformedPage(`warehouse: product tile: ${r.error.issues.slice(0, 3).map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
    const img = findFirst(el, { tag: 'img', cls: 'tile-image' });
    const image = img === null ? null : attr(img, 'src') || attr(img, 'data-src') || null;
    const link = findFirst(el, { tag: 'a', where: (a) => productPath(attr(a, 'href')) !== null });
    return { tile: r.data, href: link === null ? null : productPath(attr(link, 'href')), image };
  });
}

function money2cents(v: string | number | null | undefined, what: string, id: string): number | null {
  if (v === null || v === undefined || (typeof v === 'string' && given(v) === null)) return null;
  const c = shopDollarsToCents(v);
  if (c === null) throw new MalformedPage(`warehouse: product ${id}: ${what} ${JSON.stringify(v)} is not a dollar amount`);
  return c;
}

function tileRow(t: WarehouseTile, origin: string, ctx: CollectContext): ObservationInput | null {
  const tile = t.tile;
  const id = String(tile.id);
  const now = money2cents(tile.price, 'price', id);
  if (now === null) return null; // no price on the tile: not sold online
  const then = money2cents(tile.productThenPrice, 'productThenPrice', id);
  const badges = (tile.productBadges ?? '').toLowerCase();
  const badgeOffer = /badge_(\d+)_for_(\d+(?:\.\d{1,2})?)/.exec(badges);
  const offer =
    parseMultibuy(given(tile.promotionCallOutMessage) ?? '') ??
    (badgeOffer ? parseMultibuy(`${badgeOffer[1]} for $${badgeOffer[2]}`) : null);
  const clearance = badges.includes('clearance');
  let promo: Pick<ObservationInput, 'price' | 'promo_price' | 'promo_kind' | 'multibuy_qty' | 'multibuy_price'>;
  if (then !== null && then > now) promo = { price: then, promo_price: now, promo_kind: clearance ? 4 : 1, multibuy_qty: null, multibuy_price: null };
  else if (offer) promo = { price: now, promo_price: null, promo_kind: 3, multibuy_qty: offer.qty, multibuy_price: offer.total };
  else if (clearance) promo = { price: now, promo_price: now, promo_kind: 4, multibuy_qty: null, multibuy_price: null };
  else if (badges.includes('special')) promo = { price: now, promo_price: now, promo_kind: 1, multibuy_qty: null, multibuy_price: null };
  else promo = { price: now, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null };
  const levels = [1, 2, 3, 4, 5, 6, 7]
    .map((n) => given(tile[`productCategoryLevel${n}` as keyof Tile] as string | null | undefined))
    .filter((s): s is string => s !== null);
  const path = levels.length ? levels : (given(tile.category) ?? '').split('/').map((s) => s.trim()).filter(Boolean);
  const ean = tile.productEAN === null || tile.productEAN === undefined ? null : given(String(tile.productEAN));
  return {
    day: ctx.day,
    retailer: 'warehouse',
    store: null,
    external_id: id,
    ...promo,
    name: tile.name.trim(),
    brand: given(tile.brand),
    size_text: null,
    gtin: ean !== null && /^\d{1,14}$/.test(ean) ? ean : null,
    category_path: path,
    image: t.image,
    retailer_url: t.href === null ? null : `${origin}${t.href}`,
    available: true,
  };
}

/**
 * Parses one grid page (HTML text) into rows and the next page.
 * @throws MalformedPage when the body is not HTML text, an HTML page without the grid, or a tile's
 *   JSON does not have the recorded shape.
 */
export function parseWarehousePage(body: unknown, req: PageRequest, ctx: CollectContext): ParsedPage {
  if (typeof body !== 'string') throw new MalformedPage(`warehouse: expected the grid's HTML text, got ${body === null ? 'null' : typeof body}`);
  const doc = parseHtml(body);
  if (body.trim() !== '' && !hasElements(doc)) throw new MalformedPage(`warehouse: the grid page is not HTML: ${JSON.stringify(body.trim().slice(0, 80))}`);
  const url = new URL(req.url);
  const start = Number(url.searchParams.get('start') ?? '0');
  const size = Number(url.searchParams.get('sz') ?? WAREHOUSE_PAGE_SIZE);
  const tiles = warehouseTiles(doc);
  if (tiles.length === 0 && body.trim() !== '' && findFirst(doc, { where: (el) => hasClass(el, 'product-grid') || hasClass(el, 'grid-footer') }) === null) {
    const title = textAt(doc, { tag: 'title' }) ?? textAt(doc, { tag: 'h1' });
    throw new MalformedPage(`warehouse: no product grid on the page${title ? ` ("${title.slice(0, 80)}")` : ''}`);
  }
  const seen = new Set<string>();
  const rows: ObservationInput[] = [];
  for (const t of tiles) {
    const mp = t.tile.marketplaceProduct;
    if (mp === true || mp === 'true') continue;
    const row = tileRow(t, url.origin, ctx);
    if (row === null || seen.has(String(row.external_id))) continue;
    seen.add(String(row.external_id));
    rows.push(row);
  }
  return { rows, next: tiles.length >= size && size > 0 ? gridRequest(url.origin, start + size) : null };
}

/** The Warehouse: national prices from the Food, Pets & Household product grid. */
export const warehouse: ChainCollector = {
  retailer: 'warehouse',
  defaultOrigin: 'https://www.thewarehouse.co.nz',
  national: true,
  firstPage(ctx) {
    return gridRequest(ctx.origin, 0);
  },
  parsePage: parseWarehousePage,
  afterMalformed(req) {
    const url = new URL(req.url);
    const start = Number(url.searchParams.get('start') ?? '0');
    return Number.isSafeInteger(start) ? gridRequest(url.origin, start + WAREHOUSE_PAGE_SIZE) : null;
  },
};
