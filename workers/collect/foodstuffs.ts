/**
 * The Foodstuffs online-shop translation, shared by PAK'nSAVE (paknsave.ts) and New World
 * (newworld.ts): both banners run the same "edge" API behind their web shops, per store.
 *
 * Shapes (recorded in test/fixtures/collect/{paknsave,newworld}/, sources in their README.md):
 * - Session: `POST <web origin>/api/user/get-current-user` (anonymous) → `{ access_token }` (or the
 *   `fs-user-token` cookie); then `GET <api origin>/v1/edge/store` (Bearer token) → `{ stores: [{ id,
 *   banner, region: "NI"|"SI", ... }] }`, read for the store's region. Every product request then
 *   carries `Authorization: Bearer`, `access_token`, Origin/Referer of the web shop and the store
 *   cookies `eCom_STORE_ID`, `STORE_ID_V2=<id>|False`, `Region` (JavaGT/nz-grocery-prices
 *   src/adapters/foodstuffs.js; Blim3202/NZ-Meal-Cost-Optimiser docs/technical/PaknSave_API.md §6).
 * - Products: `POST <api origin>/v1/edge/search/paginated/products` with the storefront's Algolia
 *   body (`algoliaQuery.filters` = `stores:<id>`, `page` from 0, `hitsPerPage` 50, `sortOrder`
 *   `<region>_POPULARITY_ASC`) → `{ products[], totalHits, page, totalPages, hitsPerPage,
 *   algoliaSearchResult.facets }`. Prices are integer cents: `singlePrice.price` is the price a
 *   shopper without a club card pays (for a public special it already is the special price); the
 *   best element of `promotions[]` (`bestPromotion`, else the first) says what is on:
 *   `threshold > 1` a multibuy whose `rewardValue` is the total for `threshold` units,
 *   `cardDependencyFlag` a club-card (member) price `rewardValue`, otherwise a public special
 *   (kma14/Zhua.Food docs/internals/crawling.md and src/Zhua.Crawling/Foodstuffs/FoodstuffsCrawler.cs).
 * - The search is capped by Algolia at 1000 hits (`totalHits` pinned at 1000, pages past 20
 *   dropped), so a capped scope is split by the next category facet (`category0<R>`, then
 *   `category1<R>`, `category2<R>`, R the store's region) into sub-scopes fanned out through
 *   {@link ParsedPage.more}; a product listed under several categories then appears in several
 *   sub-scopes (the runner keeps one row per product and store).
 *
 * No barcode is published; the image URL is derived from the product id's numeric prefix on the
 * fsimg CDN, as the storefront does.
 */
import { z } from 'zod';
import type { ObservationInput } from '../ingest/format.js';
import { MalformedPage, type ChainCollector, type CollectContext, type PageRequest, type ParsedPage } from './types.js';

/** One Foodstuffs banner: its slug, live API origin and store-list banner code. */
export interface FoodstuffsBanner {
  /** Retailer slug: `paknsave` or `newworld`. */
  retailer: string;
  /** Live API origin, e.g. `https://api-prod.paknsave.co.nz`. */
  apiOrigin: string;
  /** `banner` of the banner's stores in `/v1/edge/store` (`PNS`, `MNW`). */
  storeBanner: string;
}

/** Products per page (the storefront's own page size). */
export const FOODSTUFFS_PAGE_SIZE = 50;
/** Algolia's `paginationLimitedTo`: a scope with this many hits is truncated and must be split. */
export const FOODSTUFFS_HIT_CAP = 1000;
/** The facet levels a capped scope is split by (category0 → category1 → category2). */
const SPLIT_LEVELS = 3;

/**
 * The web-shop origin of an API origin: `https://api-prod.<banner>.co.nz` → `https://www.<banner>.co.nz`.
 * Any other origin (a replay server) serves both, so it is returned unchanged.
 */
export function foodstuffsWebOrigin(apiOrigin: string): string {
  const url = new URL(apiOrigin);
  if (!url.hostname.startsWith('api-prod.')) return apiOrigin;
  url.hostname = `www.${url.hostname.slice('api-prod.'.length)}`;
  return url.origin;
}

/** The storefront's image of a product: fsimg CDN, keyed by the numeric prefix of the product id (`5039995-KGM-000` → `5039995.png`). */
export function foodstuffsImageUrl(productId: string): string {
  const dash = productId.indexOf('-');
  return `https://a.fsimg.co.nz/product/retail/fan/image/400x400/${dash > 0 ? productId.slice(0, dash) : productId}.png`;
}

const cents = z.number().int().nonnegative();

/** One element of `promotions[]` (fields kept as published; money in cents). */
const promotionSchema = z
  .object({
    promoId: z.string().nullish(),
    rewardValue: cents.nullish(),
    rewardType: z.string().nullish(),
    decal: z.string().nullish(),
    threshold: z.number().int().nonnegative().nullish(),
    limit: z.number().int().nullish(),
    multiProducts: z.boolean().nullish(),
    cardDependencyFlag: z.boolean().nullish(),
    bestPromotion: z.boolean().nullish(),
  })
  .loose();

/** One product of `/v1/edge/search/paginated/products` (money in integer cents). */
const productSchema = z
  .object({
    productId: z.string().min(1),
    name: z.string(),
    displayName: z.string().nullish(),
    brand: z.string().nullish(),
    price: cents.nullish(),
    singlePrice: z.object({ price: cents.nullish() }).loose().nullish(),
    promotions: z.array(promotionSchema).nullish(),
    categoryTrees: z
      .array(z.object({ level0: z.string().nullish(), level1: z.string().nullish(), level2: z.string().nullish() }).loose())
      .nullish(),
    categories: z.array(z.string()).nullish(),
    productImageUrls: z.record(z.string(), z.string().nullish()).nullish(),
    availability: z.array(z.string()).nullish(),
  })
  .loose();

/** A page of `/v1/edge/search/paginated/products`. */
const pageSchema = z
  .object({
    products: z.array(productSchema),
    totalHits: z.number().int().nonnegative(),
    page: z.number().int().nonnegative(),
    totalPages: z.number().int().nonnegative(),
    algoliaSearchResult: z
      .object({ facets: z.record(z.string(), z.record(z.string(), z.number())).nullish() })
      .loose()
      .nullish(),
  })
  .loose();

/** The request body we send (read back to know a page's scope). */
const requestBodySchema = z.object({
  storeId: z.string(),
  page: z.number().int().nonnegative(),
  sortOrder: z.string(),
  algoliaQuery: z.object({ filters: z.string() }).loose(),
}).loose();

const tokenSchema = z.object({ access_token: z.string().min(1) }).loose();
const storeListSchema = z.object({
  stores: z.array(z.object({ id: z.string(), banner: z.string().nullish(), region: z.string().nullish() }).loose()),
});

/** A filter on one category facet, e.g. `category0NI:"Fruit & Vegetables"`. */
interface CategoryTerm {
  level: number;
  value: string;
}

const quote = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const TERM_RE = /category(\d)(?:NI|SI):"((?:[^"\\]|\\.)*)"/g;

function readTerms(filters: string): CategoryTerm[] {
  return [...filters.matchAll(TERM_RE)].map((m) => ({ level: Number(m[1]), value: m[2].replace(/\\(.)/g, '$1') }));
}

/** The region (`NI`/`SI`) the session recorded in the `Region` cookie; NI when there is none. */
function sessionRegion(ctx: CollectContext): string {
  const cookie = ctx.session?.cookie ?? ctx.session?.Cookie ?? '';
  const m = /(?:^|;\s*)Region=(NI|SI)\b/.exec(cookie);
  return m ? m[1] : 'NI';
}

/**
 * The storefront's search body for one scope and page: the store filter, then one filter per
 * category level already split on.
 */
function searchBody(storeId: string, region: string, terms: readonly CategoryTerm[], page: number): string {
  const facet = (level: number) => `category${level}${region}`;
  const filters = [`stores:${storeId}`, ...terms.map((t) => `${facet(t.level)}:${quote(t.value)}`)].join(' AND ');
  return JSON.stringify({
    algoliaQuery: {
      attributesToHighlight: [],
      attributesToRetrieve: ['productID', 'Type', 'sponsored', facet(0), facet(1), facet(2)],
      facets: [facet(0), facet(1), facet(2), 'onPromotion'],
      filters,
      hitsPerPage: FOODSTUFFS_PAGE_SIZE,
      maxValuesPerFacet: 100,
      page,
      analyticsTags: ['fs#WEB:desktop'],
    },
    algoliaFacetQueries: [],
    storeId,
    hitsPerPage: FOODSTUFFS_PAGE_SIZE,
    page,
    sortOrder: `${region}_POPULARITY_ASC`,
    tobaccoQuery: false,
    precisionMedia: { adDomain: 'CATEGORY_PAGE', adPositions: [], publishImpressionEvent: false, disableAds: true },
  });
}

function searchRequest(origin: string, storeId: string, region: string, terms: readonly CategoryTerm[], page: number): PageRequest {
  const scope = terms.map((t) => t.value).join(' > ');
  return {
    url: `${origin}/v1/edge/search/paginated/products`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: searchBody(storeId, region, terms, page),
    label: `${scope ? `${scope} ` : ''}page ${page}`,
  };
}

/** The text of a zod error, short. */
function issues(e: z.ZodError): string {
  return e.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
}

type Product = z.output<typeof productSchema>;
type Promotion = z.output<typeof promotionSchema>;

/** The promotion fields of a row, from the product's best promotion (module doc). */
function promotionFields(price: number, promos: readonly Promotion[] | null | undefined) {
  const none = { promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null };
  if (!promos || promos.length === 0) return none;
  const best = promos.find((p) => p.bestPromotion) ?? promos[0];
  const reward = best.rewardValue ?? null;
  const threshold = best.threshold ?? 1;
  if (threshold > 1) {
    // "3 for $5": rewardValue is the total for `threshold` units (a club multibuy too: kind 3 has no member variant).
    if (reward === null || reward === 0) return none;
    return { promo_price: null, promo_kind: 3, multibuy_qty: threshold, multibuy_price: reward };
  }
  if (best.cardDependencyFlag) {
    // Club card price: the shelf price stays the non-member price; a "club" price not below it is no deal.
    if (reward === null || reward >= price) return none;
    return { promo_price: reward, promo_kind: 2, multibuy_qty: null, multibuy_price: null };
  }
  // Public special: the shelf price already is the special price (the regular one is not published).
  return { promo_price: reward !== null && reward <= price ? reward : price, promo_kind: 1, multibuy_qty: null, multibuy_price: null };
}

function productRow(p: Product, retailer: string, ctx: CollectContext, webOrigin: string): ObservationInput | null {
  const price = p.singlePrice?.price ?? p.price ?? null;
  if (price === null) return null; // an unpriced listing (not sold at this store today)
  const tree = p.categoryTrees?.[0];
  const path = tree ? [tree.level0, tree.level1, tree.level2] : (p.categories ?? []);
  const images = p.productImageUrls ?? {};
  const brand = p.brand?.trim();
  return {
    day: ctx.day,
    retailer,
    store: ctx.store,
    external_id: p.productId,
    price,
    ...promotionFields(price, p.promotions),
    name: p.name.trim() || null,
    brand: brand && brand !== 'None' ? brand : null,
    size_text: p.displayName?.trim() || null,
    gtin: null,
    category_path: path.filter((s): s is string => typeof s === 'string' && s.trim() !== '').map((s) => s.trim()),
    image: images['400'] ?? images['500'] ?? foodstuffsImageUrl(p.productId),
    retailer_url: `${webOrigin}/shop/product/${p.productId.toLowerCase().replace(/-/g, '_')}`,
    available: true,
  };
}

/**
 * Parses one page of `/v1/edge/search/paginated/products` (see the module doc) into rows, the next
 * page of the same scope, and — for a scope capped at {@link FOODSTUFFS_HIT_CAP} hits — the
 * sub-scopes it is split into (its own rows are then left to them).
 * @throws MalformedPage when the body or the request body do not have the recorded shape.
 */
export function parseFoodstuffsPage(retailer: string, body: unknown, req: PageRequest, ctx: CollectContext): ParsedPage {
  const parsed = pageSchema.safeParse(body);
  if (!parsed.success) throw new MalformedPage(`${retailer}: not a Foodstuffs product page (${issues(parsed.error)})`);
  let sent: z.output<typeof requestBodySchema>;
  try {
    sent = requestBodySchema.parse(JSON.parse(req.body ?? ''));
  } catch {
    throw new MalformedPage(`${retailer}: the request of this page has no Foodstuffs search body`);
  }
  const data = parsed.data;
  const region = sent.sortOrder.startsWith('SI') ? 'SI' : 'NI';
  const terms = readTerms(sent.algoliaQuery.filters);
  const origin = new URL(req.url).origin;
  const storeId = sent.storeId;

  if (sent.page === 0 && data.totalHits >= FOODSTUFFS_HIT_CAP && terms.length < SPLIT_LEVELS) {
    const facet = data.algoliaSearchResult?.facets?.[`category${terms.length}${region}`] ?? {};
    const values = Object.keys(facet).filter((v) => v.trim() !== '');
    if (values.length > 0) {
      return {
        rows: [],
        next: null,
        more: values.map((value) => searchRequest(origin, storeId, region, [...terms, { level: terms.length, value }], 0)),
      };
    }
    // No facet to split by: page through what Algolia gives (the first 1000 hits).
  }

  const webOrigin = foodstuffsWebOrigin(origin);
  const seen = new Set<string>();
  const rows: ObservationInput[] = [];
  for (const p of data.products) {
    if (seen.has(p.productId)) continue;
    seen.add(p.productId);
    const row = productRow(p, retailer, ctx, webOrigin);
    if (row) rows.push(row);
  }
  const next = sent.page + 1 < data.totalPages ? searchRequest(origin, storeId, region, terms, sent.page + 1) : null;
  return { rows, next };
}

/**
 * The page after a page that was skipped as malformed: the same scope, next page number (a page
 * past the end answers with no products, which ends the scope); null when the request is not ours.
 */
export function foodstuffsPageAfter(req: PageRequest): PageRequest | null {
  try {
    const sent = requestBodySchema.parse(JSON.parse(req.body ?? ''));
    const region = sent.sortOrder.startsWith('SI') ? 'SI' : 'NI';
    return searchRequest(new URL(req.url).origin, sent.storeId, region, readTerms(sent.algoliaQuery.filters), sent.page + 1);
  } catch {
    return null;
  }
}

/**
 * A Foodstuffs banner's collector: per store (`store.external_id` = the Foodstuffs store UUID).
 * `session` mints the anonymous token and reads the store's region; `firstPage` asks for the
 * whole store's catalogue, page 0; `parsePage` is {@link parseFoodstuffsPage}.
 */
export function foodstuffsCollector(banner: FoodstuffsBanner): ChainCollector {
  return {
    retailer: banner.retailer,
    defaultOrigin: banner.apiOrigin,
    national: false,
    async session(ctx, fetchJson) {
      if (ctx.store === null) throw new Error(`${banner.retailer} prices are per store: a store id is needed`);
      const web = foodstuffsWebOrigin(ctx.origin);
      const auth = await fetchJson({
        url: `${web}/api/user/get-current-user`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ fingerprintUser: 'nz-grocery-prices-collector', fingerprintGuest: 'nz-grocery-prices-collector' }),
        label: 'session token',
      });
      const cookieToken = /(?:^|[;,]\s*)fs-user-token=([^;,\s]+)/.exec(auth.headers['set-cookie'] ?? '')?.[1];
      const tokenBody = tokenSchema.safeParse(auth.body);
      const token = tokenBody.success ? tokenBody.data.access_token : cookieToken;
      if (!token) throw new MalformedPage(`${banner.retailer}: get-current-user gave no access_token`);
      const common = {
        authorization: `Bearer ${token}`,
        access_token: token,
        origin: web,
        referer: `${web}/`,
      };
      const list = await fetchJson({ url: `${ctx.origin}/v1/edge/store`, headers: { ...common, accept: 'application/json' }, label: 'store list' });
      const stores = storeListSchema.safeParse(list.body);
      if (!stores.success) throw new MalformedPage(`${banner.retailer}: not a Foodstuffs store list (${issues(stores.error)})`);
      const store = stores.data.stores.find((s) => s.id === ctx.store);
      if (!store) throw new Error(`${banner.retailer} store ${ctx.store} is not in the online store list (no online prices)`);
      if (store.banner && store.banner !== banner.storeBanner) throw new Error(`store ${ctx.store} is a ${store.banner} store, not ${banner.retailer} (${banner.storeBanner})`);
      const region = store.region === 'SI' ? 'SI' : 'NI';
      return { ...common, cookie: `eCom_STORE_ID=${ctx.store}; STORE_ID_V2=${ctx.store}|False; Region=${region}` };
    },
    firstPage(ctx) {
      if (ctx.store === null) throw new Error(`${banner.retailer} prices are per store: a store id is needed`);
      return searchRequest(ctx.origin, ctx.store, sessionRegion(ctx), [], 0);
    },
    parsePage(body, req, ctx) {
      return parseFoodstuffsPage(banner.retailer, body, req, ctx);
    },
    afterMalformed(req) {
      return foodstuffsPageAfter(req);
    },
  };
}
