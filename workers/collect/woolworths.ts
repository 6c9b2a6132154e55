/**
 * Woolworths NZ collector (issue 18 item 1): the online shop's JSON product API, per fulfilment
 * store. Shapes are recorded in test/fixtures/collect/woolworths/ (its README names the public
 * scrapers that document each one). Every request carries `x-requested-with: OnlineShopping.WebApp`
 * (without it the API answers 400).
 *
 * Per store (`store.external_id` is the pickup-address id of the Woolworths store list):
 * 1. session: `PUT /api/v1/fulfilment/my/pickup-addresses` `{"addressId": <id>}` selects the store;
 *    the cookies it sets (among them `cw-lrkswrdjp=…,f-<fulfilmentStoreId>,…`) go with every page of
 *    the store. Each products page echoes `context.fulfilment.fulfilmentStoreId`: a page of another
 *    store (the site falls back to its default store silently) fails the store, never its prices.
 * 2. `GET /api/v1/products/departments`: the departments (`url` is the slug);
 * 3. per department: `GET /api/v1/products?target=browse&dasFilter=Department;;<slug>;false
 *    &inStockProductsOnly=false&page=<n>&size=120`, pages 1, 2, … while `page·120 < totalItems`
 *    (120 is the largest page the API serves; a query stops at 10,000 items, hence departments).
 *
 * Rows (money: the API's dollars → integer cents):
 * - external_id `sku`; name and brand as given (lower case), whitespace collapsed;
 * - size_text, price and promotion by the same rules as the catalogue import
 *   (workers/import/catalogue.ts `catalogueSizeText`, `cataloguePrice`): shelf price
 *   `price.originalPrice`; a lower `price.salePrice` is a club price (promo_kind 2) when
 *   `price.isClubPrice` (or tag `IsClubPrice`), else a special (1); a sale price above the original
 *   is ignored (shelf price only);
 * - multibuy: `productTag.multiBuy {quantity, value}` (value = the total for quantity) → promo_kind 3,
 *   multibuy_qty/multibuy_price, when no lower sale price applies, the quantity is at least 2 and
 *   the deal is below `quantity × shelf price`;
 * - gtin: `barcode` when a valid GTIN (check digit), as the catalogue import keeps it;
 * - category_path: [the product's first department name];
 * - image: `images.big`; retailer_url: the product page of the SKU;
 * - available: true (listed on the shop; per-store stock, `availabilityStatus`, is not a listing's).
 * Items whose `type` is not `Product` (tiles between products) are skipped.
 */
import { z } from 'zod';
import { dollarsToCents } from '../../src/domain/money.js';
import { gtinKey, gtinProblem } from '../../src/domain/matching.js';
import { cataloguePrice, catalogueSizeText, woolworthsProductUrl, type CataloguePrice } from '../import/catalogue.js';
import { cleanText } from '../import/stores.js';
import type { ObservationInput } from '../ingest/format.js';
import { MalformedPage, type ChainCollector, type CollectContext, type PageRequest, type ParsedPage } from './types.js';
import { ExpectedError } from '../../src/errors.js';

/** Items per products page (the API's largest; 200 and above answer 400). */
export const WOOLWORTHS_PAGE_SIZE = 120;
/** A browse query serves at most this many items, whatever its totalItems says. */
export const WOOLWORTHS_MAX_ITEMS = 10_000;

const HEADERS = { accept: 'application/json, text/plain, */*', 'x-requested-with': 'OnlineShopping.WebApp' } as const;

/** The store selection did not take (another store's prices answered): the store fails. */
export class StoreSelectionError extends ExpectedError {
  override name = 'StoreSelectionError';
}

/** Dollars with at most two decimals (the API's prices), as integer cents. */
const dollars = z.number().nonnegative().transform((v, ctx) => {
  try {
    return dollarsToCents(String(v));
  } catch {
    ctx.addIssue({ code: 'custom', message: `${v} is not a dollar amount with at most two decimals` });
    return z.NEVER;
  }
});

const fulfilment = z.object({
  fulfilmentStoreId: z.number().int().nullish(),
  pickupAddressId: z.number().int().nullish(),
  method: z.string().nullish(),
}).passthrough();

const selectResponse = z.object({ context: z.object({ fulfilment }).passthrough() }).passthrough();

const departments = z.array(z.object({ url: z.string().min(1) }).passthrough());

const product = z.object({
  type: z.literal('Product'),
  sku: z.union([z.string().regex(/^\d{1,12}$/), z.number().int().nonnegative()]).transform(String),
  name: z.string().trim().min(1),
  brand: z.string().nullish(),
  variety: z.string().nullish(),
  barcode: z.string().nullish(),
  unit: z.string().nullish(),
  departments: z.array(z.object({ name: z.string() }).passthrough()).nullish(),
  price: z.object({
    originalPrice: dollars,
    salePrice: dollars,
    isClubPrice: z.boolean().nullish(),
    isSpecial: z.boolean().nullish(),
  }).passthrough(),
  images: z.object({ big: z.string().nullish() }).passthrough().nullish(),
  size: z.object({ volumeSize: z.string().nullish() }).passthrough().nullish(),
  productTag: z.object({
    tagType: z.string().nullish(),
    multiBuy: z.object({ quantity: z.number().int(), value: dollars }).passthrough().nullish(),
  }).passthrough().nullish(),
}).passthrough();

const productsPage = z.object({
  products: z.object({ items: z.array(z.unknown()), totalItems: z.number().int() }).passthrough(),
  context: z.object({ fulfilment: fulfilment.nullish() }).passthrough().nullish(),
}).passthrough();

type Product = z.output<typeof product>;

function issues(e: z.ZodError): string {
  return e.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
}

function productsRequest(origin: string, slug: string, page: number): PageRequest {
  const q = new URLSearchParams({
    target: 'browse', dasFilter: `Department;;${slug};false`, inStockProductsOnly: 'false', page: String(page), size: String(WOOLWORTHS_PAGE_SIZE),
  });
  return { url: `${origin}/api/v1/products?${q}`, headers: HEADERS, label: `${slug} page ${page}` };
}

/** The fulfilment store id the session's `cw-lrkswrdjp` cookie names (`f-<id>`), or null. */
export function sessionFulfilmentStore(session: Readonly<Record<string, string>> | undefined): number | null {
  const m = /(?:^|;\s*)cw-lrkswrdjp=([^;]*)/.exec(session?.cookie ?? '');
  const f = m ? /(?:^|,)f-(\d+)(?:,|$)/.exec(m[1]) : null;
  return f ? Number(f[1]) : null;
}

/** The `name=value` pairs of Set-Cookie lines (one cookie a line), joined for a Cookie header. */
function cookieHeader(setCookie: string | undefined): string {
  return (setCookie ?? '').split('\n').map((c) => c.split(';')[0].trim()).filter((c) => c.includes('=')).join('; ');
}

/** The price tuple of an item, by the rules in the module comment. */
export function woolworthsPrice(p: Product): CataloguePrice & { multibuy_qty: number | null; multibuy_price: number | null } {
  const { originalPrice, salePrice } = p.price;
  const tag = p.price.isClubPrice ? 'IsClubPrice' : (p.productTag?.tagType ?? '');
  let base: CataloguePrice;
  try {
    base = cataloguePrice(originalPrice, salePrice, tag);
  } catch {
    base = { price: originalPrice, promo_price: null, promo_kind: null };
  }
  const mb = p.productTag?.multiBuy;
  if (base.promo_kind === null && mb && mb.quantity >= 2 && mb.value > 0 && mb.value < mb.quantity * originalPrice) {
    return { price: originalPrice, promo_price: null, promo_kind: 3, multibuy_qty: mb.quantity, multibuy_price: mb.value };
  }
  return { ...base, multibuy_qty: null, multibuy_price: null };
}

function row(p: Product, ctx: CollectContext): ObservationInput {
  const barcode = (p.barcode ?? '').trim();
  const gtin = barcode !== '' && gtinProblem(barcode) === null ? String(gtinKey(barcode)) : null;
  const dept = cleanText(p.departments?.[0]?.name ?? '');
  return {
    day: ctx.day,
    retailer: 'woolworths',
    store: ctx.store,
    external_id: p.sku,
    ...woolworthsPrice(p),
    name: cleanText(p.name),
    brand: cleanText(p.brand ?? '') || null,
    size_text: catalogueSizeText(p.unit ?? '', p.size?.volumeSize ?? ''),
    gtin,
    category_path: dept ? [dept] : [],
    image: p.images?.big?.trim() || null,
    retailer_url: woolworthsProductUrl(p.sku),
    available: true,
  };
}

/** The Woolworths NZ collector (see the module comment). */
export const woolworths: ChainCollector = {
  retailer: 'woolworths',
  defaultOrigin: 'https://www.woolworths.co.nz',
  national: false,

  async session(ctx, fetchJson) {
    if (ctx.store === null || !/^\d+$/.test(ctx.store)) throw new StoreSelectionError(`a Woolworths store id is a pickup-address number, not "${ctx.store ?? ''}"`);
    const res = await fetchJson({
      url: `${ctx.origin}/api/v1/fulfilment/my/pickup-addresses`,
      method: 'PUT',
      headers: { ...HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ addressId: Number(ctx.store) }),
      label: 'select pickup store',
    });
    const parsed = selectResponse.safeParse(res.body);
    if (!parsed.success) throw new StoreSelectionError(`store ${ctx.store}: the store selection answered an unknown shape: ${issues(parsed.error)}`);
    const f = parsed.data.context.fulfilment;
    if (f.pickupAddressId != null && f.pickupAddressId !== Number(ctx.store)) {
      throw new StoreSelectionError(`store ${ctx.store}: the site selected pickup address ${f.pickupAddressId} instead`);
    }
    const cookie = cookieHeader(res.headers['set-cookie']);
    const session = { cookie };
    const fromCookie = sessionFulfilmentStore(session);
    if (fromCookie === null) throw new StoreSelectionError(`store ${ctx.store}: the store selection set no cw-lrkswrdjp cookie naming a fulfilment store`);
    if (f.fulfilmentStoreId != null && f.fulfilmentStoreId !== fromCookie) {
      throw new StoreSelectionError(`store ${ctx.store}: the selection answered fulfilment store ${f.fulfilmentStoreId} but its cookie names ${fromCookie}`);
    }
    return session;
  },

  firstPage(ctx) {
    return { url: `${ctx.origin}/api/v1/products/departments`, headers: HEADERS, label: 'departments' };
  },

  parsePage(body, req, ctx): ParsedPage {
    const url = new URL(req.url);
    if (url.pathname.endsWith('/products/departments')) {
      const d = departments.safeParse(body);
      if (!d.success) throw new MalformedPage(`departments: ${issues(d.error)}`);
      const reqs = d.data.map((x) => productsRequest(ctx.origin, x.url.replace(/^\/?(shop\/browse\/)?/, ''), 1));
      return { rows: [], next: reqs[0] ?? null, more: reqs.slice(1) };
    }
    const page = productsPage.safeParse(body);
    if (!page.success) throw new MalformedPage(issues(page.error));
    const expected = sessionFulfilmentStore(ctx.session);
    const echoed = page.data.context?.fulfilment?.fulfilmentStoreId ?? null;
    if (expected !== null && echoed !== null && echoed !== expected) {
      throw new StoreSelectionError(`store ${ctx.store ?? ''}: ${req.url} answered for fulfilment store ${echoed}, not ${expected}`);
    }
    const rows: ObservationInput[] = [];
    for (const item of page.data.products.items) {
      if (item === null || typeof item !== 'object' || (item as { type?: unknown }).type !== 'Product') continue;
      const p = product.safeParse(item);
      if (!p.success) throw new MalformedPage(`product ${String((item as { sku?: unknown }).sku ?? '?')}: ${issues(p.error)}`);
      rows.push(row(p.data, ctx));
    }
    const n = Number(url.searchParams.get('page') ?? '1');
    const slug = (url.searchParams.get('dasFilter') ?? '').split(';;')[1]?.split(';')[0] ?? '';
    const total = Math.min(page.data.products.totalItems, WOOLWORTHS_MAX_ITEMS);
    const next = page.data.products.items.length > 0 && n * WOOLWORTHS_PAGE_SIZE < total ? productsRequest(ctx.origin, slug, n + 1) : null;
    return { rows, next };
  },

  afterMalformed(req, ctx) {
    const url = new URL(req.url);
    if (url.pathname.endsWith('/products/departments')) return null;
    const n = Number(url.searchParams.get('page') ?? '1');
    const slug = (url.searchParams.get('dasFilter') ?? '').split(';;')[1]?.split(';')[0] ?? '';
    return slug && n * WOOLWORTHS_PAGE_SIZE < WOOLWORTHS_MAX_ITEMS ? productsRequest(ctx.origin, slug, n + 1) : null;
  },
};
