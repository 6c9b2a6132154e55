/**
 * The chain collectors other than Woolworths (issue 18 item 1): each parses its recorded fixtures
 * (test/fixtures/collect/<retailer>/, sources in their README.md) into exactly these rows (cents
 * checked by hand against the fixture text), pages on, and refuses a body of another shape with
 * MalformedPage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateObservation, type ObservationInput } from '../../workers/ingest/format.js';
import { MalformedPage, type CollectContext, type PageRequest } from '../../workers/collect/types.js';
import { paknsave } from '../../workers/collect/paknsave.js';
import { newworld } from '../../workers/collect/newworld.js';
import { foodstuffsImageUrl, foodstuffsWebOrigin } from '../../workers/collect/foodstuffs.js';
import { warehouse } from '../../workers/collect/warehouse.js';
import { freshchoice, myFoodLinkDirectoryUrl, myFoodLinkStoreBase, parseMultibuy, parseMyFoodLinkDirectory, shopDollarsToCents } from '../../workers/collect/freshchoice.js';
import { withOrigin } from '../../workers/images/images.js';
import { supervalue } from '../../workers/collect/supervalue.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/collect');
const json = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
const html = (file: string): string => fs.readFileSync(path.join(FIXTURES, file), 'utf8');

const DAY = '2026-08-03';
const REPLAY = 'http://127.0.0.1:4010';
const BOTANY_PNS = '60561e46-ece7-43a7-b142-9b14812586e4';
const DUNEDIN_PNS = '90082979-fb9f-4305-9c72-83274fc438cc';
const BOTANY_NW = 'c387ac97-5e0a-43ed-9c93-f1edccda298d';

/** A full row: every column, the unnamed ones empty. */
function row(retailer: string, store: string | null, fields: Partial<ObservationInput> & { external_id: string; price: number }): ObservationInput {
  return {
    day: DAY, retailer, store,
    promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null,
    name: null, brand: null, size_text: null, gtin: null, category_path: [], image: null, retailer_url: null,
    available: true,
    ...fields,
  };
}

/** Every row must pass the ingest's own validation, as the runner checks it. */
function ingestable(rows: readonly ObservationInput[]): void {
  for (const r of rows) expect(() => validateObservation({ line: 0, record: r })).not.toThrow();
}

const sentBody = (req: PageRequest) => JSON.parse(req.body ?? '') as { page: number; sortOrder: string; storeId: string; algoliaQuery: { filters: string; facets: string[]; page: number } };

describe('money and offers as shops print them', () => {
  it('converts dollars to cents exactly, never through float rounding', () => {
    expect(shopDollarsToCents('$4.00')).toBe(400);
    expect(shopDollarsToCents('0.29')).toBe(29);
    expect(shopDollarsToCents('1.1')).toBe(110);
    expect(shopDollarsToCents(5.99)).toBe(599);
    expect(shopDollarsToCents(1.005)).toBe(null); // three decimals: not a price
    expect(shopDollarsToCents('$1,299.50')).toBe(129950);
    expect(shopDollarsToCents(19.99)).toBe(1999);
    expect(shopDollarsToCents('4.0x')).toBe(null);
    expect(shopDollarsToCents(-1)).toBe(null);
  });
  it('reads "N for $X" multibuys', () => {
    expect(parseMultibuy('3 for $20.00 - $83.33 per kg')).toEqual({ qty: 3, total: 2000 });
    expect(parseMultibuy('2 for $5')).toEqual({ qty: 2, total: 500 });
    expect(parseMultibuy('save $1.40')).toBe(null);
    expect(parseMultibuy('1 for $5')).toBe(null);
  });
});

describe('Foodstuffs (PAK\'nSAVE, New World)', () => {
  const ctx: CollectContext = { origin: REPLAY, day: DAY, store: BOTANY_PNS, session: { cookie: `eCom_STORE_ID=${BOTANY_PNS}; STORE_ID_V2=${BOTANY_PNS}|False; Region=NI` } };
  const pns = (f: Parameters<typeof row>[2]) => row('paknsave', BOTANY_PNS, f);

  it('derives the web shop and image of the live API', () => {
    expect(foodstuffsWebOrigin('https://api-prod.paknsave.co.nz')).toBe('https://www.paknsave.co.nz');
    expect(foodstuffsWebOrigin(REPLAY)).toBe(REPLAY);
    expect(foodstuffsImageUrl('5039995-KGM-000')).toBe('https://a.fsimg.co.nz/product/retail/fan/image/400x400/5039995.png');
    expect(paknsave.defaultOrigin).toBe('https://api-prod.paknsave.co.nz');
    expect(newworld.defaultOrigin).toBe('https://api-prod.newworld.co.nz');
    expect(paknsave.national).toBe(false);
  });

  it('opens a session: anonymous token, the store\'s region, store cookies', async () => {
    const asked: PageRequest[] = [];
    const fetchJson = async (req: PageRequest) => {
      asked.push(req);
      if (req.url.endsWith('/api/user/get-current-user')) return { body: json('paknsave/get-current-user.json'), headers: {} };
      if (req.url.endsWith('/v1/edge/store')) return { body: json('paknsave/stores.json'), headers: {} };
      throw new Error(`unexpected ${req.url}`);
    };
    const headers = await paknsave.session!({ origin: REPLAY, day: DAY, store: DUNEDIN_PNS }, fetchJson);
    expect(asked.map((r) => `${r.method ?? 'GET'} ${r.url}`)).toEqual([
      `POST ${REPLAY}/api/user/get-current-user`,
      `GET ${REPLAY}/v1/edge/store`,
    ]);
    expect(asked[1].headers?.authorization).toBe('Bearer fixture-token-not-a-real-jwt.paknsave');
    expect(headers).toEqual({
      authorization: 'Bearer fixture-token-not-a-real-jwt.paknsave',
      access_token: 'fixture-token-not-a-real-jwt.paknsave',
      origin: REPLAY,
      referer: `${REPLAY}/`,
      cookie: `eCom_STORE_ID=${DUNEDIN_PNS}; STORE_ID_V2=${DUNEDIN_PNS}|False; Region=SI`,
    });
    // A South Island store sorts and splits by its own region's facets.
    const first = paknsave.firstPage({ origin: REPLAY, day: DAY, store: DUNEDIN_PNS, session: headers });
    expect(sentBody(first).sortOrder).toBe('SI_POPULARITY_ASC');
    expect(sentBody(first).algoliaQuery.facets).toEqual(['category0SI', 'category1SI', 'category2SI', 'onPromotion']);

    // The token may come as the fs-user-token cookie instead.
    const viaCookie = await paknsave.session!({ origin: REPLAY, day: DAY, store: BOTANY_PNS }, async (req) => {
      const headers: Record<string, string> = req.url.endsWith('/v1/edge/store') ? {} : { 'set-cookie': 'fs-user-token=abc.def; Path=/; HttpOnly' };
      return { body: req.url.endsWith('/v1/edge/store') ? json('paknsave/stores.json') : {}, headers };
    });
    expect(viaCookie.authorization).toBe('Bearer abc.def');

    // A store missing from the online list, or of the other banner, is refused.
    await expect(paknsave.session!({ origin: REPLAY, day: DAY, store: BOTANY_NW }, fetchJson)).rejects.toThrow(/not in the online store list/);
    await expect(newworld.session!({ origin: REPLAY, day: DAY, store: BOTANY_PNS }, fetchJson)).rejects.toThrow(/PNS store, not newworld/);
    await expect(paknsave.session!({ origin: REPLAY, day: DAY, store: BOTANY_PNS }, async (req) =>
      ({ body: req.url.endsWith('/v1/edge/store') ? { shops: [] } : { access_token: 't' }, headers: {} }))).rejects.toBeInstanceOf(MalformedPage);
  });

  it('asks for the whole store, page 0, as the storefront does', () => {
    const req = paknsave.firstPage(ctx);
    expect(req.url).toBe(`${REPLAY}/v1/edge/search/paginated/products`);
    expect(req.method).toBe('POST');
    expect(req.label).toBe('page 0');
    expect(sentBody(req)).toMatchObject({
      storeId: BOTANY_PNS, page: 0, sortOrder: 'NI_POPULARITY_ASC',
      algoliaQuery: { filters: `stores:${BOTANY_PNS}`, page: 0, facets: ['category0NI', 'category1NI', 'category2NI', 'onPromotion'] },
    });
  });

  it('parses PAK\'nSAVE pages: shelf prices, a public special, a multibuy; pages on', () => {
    const req0 = paknsave.firstPage(ctx);
    const p0 = paknsave.parsePage(json('paknsave/products-botany-page0.json'), req0, ctx);
    const url = (id: string) => `${REPLAY}/shop/product/${id}`;
    expect(p0.rows).toEqual([
      pns({ external_id: '5125914-KGM-000', price: 2399, name: 'NZ Beef Prime Mince', size_text: 'kg',
        category_path: ['Meat, Poultry & Seafood', 'Beef', 'Beef Mince & Stir Fry'], image: foodstuffsImageUrl('5125914-KGM-000'), retailer_url: url('5125914_kgm_000') }),
      // Public special (decal 6000): singlePrice already is the special price; brand "None" is no brand.
      pns({ external_id: '5349244-EA-000', price: 555, promo_price: 555, promo_kind: 1, name: 'Beef Mince & Cheese Pie', size_text: '200g',
        category_path: ['Fridge, Deli & Eggs', 'Chilled Soups & Ready Meals', 'Pies'], image: foodstuffsImageUrl('5349244-EA-000'), retailer_url: url('5349244_ea_000') }),
      pns({ external_id: '5349090-EA-000', price: 899, name: 'Beef Mince', brand: 'Hellers', size_text: '340g',
        category_path: ['Meat, Poultry & Seafood', 'Beef', 'Beef Mince & Stir Fry'], image: foodstuffsImageUrl('5349090-EA-000'), retailer_url: url('5349090_ea_000') }),
      pns({ external_id: '5319769-EA-000', price: 99, promo_price: 99, promo_kind: 1, name: 'Spaghetti', brand: 'Pams', size_text: '400g',
        category_path: ['Pantry', 'Pasta, Rice & Noodles', 'Dried Pasta'], image: foodstuffsImageUrl('5319769-EA-000'), retailer_url: url('5319769_ea_000') }),
    ]);
    expect(p0.more).toBeUndefined();
    expect(p0.next).not.toBeNull();
    expect(p0.next!.label).toBe('page 1');
    expect(sentBody(p0.next!)).toMatchObject({ page: 1, algoliaQuery: { page: 1, filters: `stores:${BOTANY_PNS}` } });

    const p1 = paknsave.parsePage(json('paknsave/products-botany-page1.json'), p0.next!, ctx);
    expect(p1.rows).toEqual([
      // "4 for $3.00": rewardValue is the total of `threshold` units.
      pns({ external_id: '5092718-EA-000', price: 89, promo_kind: 3, multibuy_qty: 4, multibuy_price: 300, name: 'Chopped Tomatoes in Juice', brand: 'Pams', size_text: '400g',
        category_path: ['Pantry', 'Canned Foods & Packets', 'Canned Tomatoes'], image: foodstuffsImageUrl('5092718-EA-000'), retailer_url: url('5092718_ea_000') }),
      pns({ external_id: '5006239-EA-000', price: 449, name: 'Egg Spaghetti', brand: 'San Remo', size_text: '400g',
        category_path: ['Pantry', 'Pasta, Rice & Noodles', 'Fresh Pasta'], image: foodstuffsImageUrl('5006239-EA-000'), retailer_url: url('5006239_ea_000') }),
      pns({ external_id: '5104350-KGM-000', price: 1899, name: 'NZ Beef Mince', size_text: 'kg',
        category_path: ['Meat, Poultry & Seafood', 'Beef', 'Beef Mince & Stir Fry'], image: foodstuffsImageUrl('5104350-KGM-000'), retailer_url: url('5104350_kgm_000') }),
    ]);
    expect(p1.next).toBeNull();
    ingestable([...p0.rows, ...p1.rows]);
  });

  it('parses New World promotions: public special, club price (best of two), club multibuy', () => {
    const nctx: CollectContext = { origin: REPLAY, day: DAY, store: BOTANY_NW };
    const nw = (f: Parameters<typeof row>[2]) => row('newworld', BOTANY_NW, f);
    const url = (id: string) => `${REPLAY}/shop/product/${id}`;
    const p0 = newworld.parsePage(json('newworld/products-botany-page0.json'), newworld.firstPage(nctx), nctx);
    expect(p0.rows).toEqual([
      nw({ external_id: '5106653-KGM-000', price: 1999, promo_price: 1999, promo_kind: 1, name: 'NZ Beef Brisket', size_text: 'kg',
        category_path: ['Meat, Poultry & Seafood', 'Beef', 'Roast Beef & Large Cuts'], image: foodstuffsImageUrl('5106653-KGM-000'), retailer_url: url('5106653_kgm_000') }),
      // Best promotion is the club one (cardDependencyFlag): the shelf price stays the non-member 12.59.
      nw({ external_id: '5039995-EA-000', price: 1259, promo_price: 1129, promo_kind: 2, name: 'Free Range Size 7 Eggs', brand: 'Otaika Valley', size_text: '12pk',
        category_path: ['Fridge, Deli & Eggs', 'Eggs', 'Free Range Eggs'], image: foodstuffsImageUrl('5039995-EA-000'), retailer_url: url('5039995_ea_000') }),
      // Club "3 for $5": a multibuy (kind 3), total 500 for 3.
      nw({ external_id: '5222222-EA-000', price: 249, promo_kind: 3, multibuy_qty: 3, multibuy_price: 500, name: 'Uno Squeezie Smooth Strawberry Yoghurt', brand: 'Anchor', size_text: '100g',
        category_path: ['Fridge, Deli & Eggs', 'Yoghurt & Desserts', 'Kids Yoghurt'], image: foodstuffsImageUrl('5222222-EA-000'), retailer_url: url('5222222_ea_000') }),
      nw({ external_id: '5349090-EA-000', price: 949, name: 'Beef Mince', brand: 'Hellers', size_text: '340g',
        category_path: ['Meat, Poultry & Seafood', 'Beef', 'Beef Mince & Stir Fry'], image: foodstuffsImageUrl('5349090-EA-000'), retailer_url: url('5349090_ea_000') }),
    ]);
    const p1 = newworld.parsePage(json('newworld/products-botany-page1.json'), p0.next!, nctx);
    expect(p1.rows).toEqual([
      nw({ external_id: '5002634-EA-000', price: 179, name: 'Spaghetti Pasta', brand: 'Pams', size_text: '500g',
        category_path: ['Pantry', 'Pasta, Rice & Noodles', 'Dried Pasta'], image: foodstuffsImageUrl('5002634-EA-000'), retailer_url: url('5002634_ea_000') }),
      nw({ external_id: '5046505-KGM-000', price: 199, name: 'Carrots', size_text: 'kg',
        category_path: ['Fruit & Vegetables', 'Vegetables', 'Carrots'], image: foodstuffsImageUrl('5046505-KGM-000'), retailer_url: url('5046505_kgm_000') }),
    ]);
    expect(p1.next).toBeNull();
    ingestable([...p0.rows, ...p1.rows]);
  });

  it('splits a scope capped at 1000 hits by its category facet, then pages the sub-scopes', () => {
    const capped = paknsave.parsePage(json('paknsave/products-capped-page0.json'), paknsave.firstPage(ctx), ctx);
    expect(capped.rows).toEqual([]);
    expect(capped.next).toBeNull();
    expect(capped.more!.map((r) => [r.label, sentBody(r).algoliaQuery.filters, sentBody(r).page])).toEqual([
      ['Fruit & Vegetables page 0', `stores:${BOTANY_PNS} AND category0NI:"Fruit & Vegetables"`, 0],
      ['Pantry page 0', `stores:${BOTANY_PNS} AND category0NI:"Pantry"`, 0],
    ]);
    const fruit = paknsave.parsePage(json('paknsave/products-fruit-vegetables-page0.json'), capped.more![0], ctx);
    expect(fruit.rows).toEqual([
      pns({ external_id: '5046525-KGM-000', price: 349, name: 'Bananas', size_text: 'kg', category_path: ['Fruit & Vegetables', 'Fruit', 'Bananas'],
        image: foodstuffsImageUrl('5046525-KGM-000'), retailer_url: `${REPLAY}/shop/product/5046525_kgm_000` }),
      pns({ external_id: '5039956-EA-000', price: 499, promo_price: 499, promo_kind: 1, name: 'Red Seedless Grapes', size_text: '500g', category_path: ['Fruit & Vegetables', 'Fruit', 'Grapes'],
        image: foodstuffsImageUrl('5039956-EA-000'), retailer_url: `${REPLAY}/shop/product/5039956_ea_000` }),
    ]);
    expect(fruit.next).toBeNull();
    // A capped sub-scope splits one level further.
    const deeper = paknsave.parsePage(json('paknsave/products-capped-page0.json'), capped.more![0], ctx);
    expect(deeper.more!.map((r) => sentBody(r).algoliaQuery.filters)).toEqual([
      `stores:${BOTANY_PNS} AND category0NI:"Fruit & Vegetables" AND category1NI:"Fruit"`,
      `stores:${BOTANY_PNS} AND category0NI:"Fruit & Vegetables" AND category1NI:"Vegetables"`,
    ]);
  });

  it('an empty store is an empty page, not an error', () => {
    const p = paknsave.parsePage(json('paknsave/products-empty-store.json'), paknsave.firstPage(ctx), ctx);
    expect(p).toEqual({ rows: [], next: null });
  });

  it('refuses other shapes with MalformedPage, and pages on after one', () => {
    const req = paknsave.firstPage(ctx);
    const good = json('paknsave/products-botany-page0.json') as { products: Array<Record<string, unknown>> };
    const broken: unknown[] = [
      null,
      '<html>Access denied</html>',
      { products: 'none', totalHits: 0, page: 0, totalPages: 0 },
      { ...good, totalPages: undefined },
      { ...good, products: [{ ...good.products[0], singlePrice: { price: '23.99' } }] },
      { ...good, products: [{ ...good.products[0], productId: undefined }] },
      { ...good, products: [{ ...good.products[1], promotions: [{ rewardValue: 5.55, bestPromotion: true }] }] },
    ];
    for (const body of broken) expect(() => paknsave.parsePage(body, req, ctx)).toThrow(MalformedPage);
    expect(() => paknsave.parsePage(good, { ...req, body: 'not json' }, ctx)).toThrow(MalformedPage);
    const after = paknsave.afterMalformed!(req, ctx)!;
    expect(sentBody(after)).toMatchObject({ page: 1, storeId: BOTANY_PNS });
    expect(paknsave.afterMalformed!({ url: `${REPLAY}/x` }, ctx)).toBeNull();
  });
});

describe('The Warehouse', () => {
  const ctx: CollectContext = { origin: REPLAY, day: DAY, store: null };
  const wh = (f: Parameters<typeof row>[2]) => row('warehouse', null, f);
  const img = (id: string) =>
    `https://www.thewarehouse.co.nz/dw/image/v2/BDMG_PRD/on/demandware.static/-/Sites-twl-master-catalog/default/dw0c1d2e3f/images/hi-res/${id.slice(1, 3)}/${id.slice(3, 5)}/${id}_1.jpg?sw=765&sh=765`;
  const path3 = (leaf: string) => ['Food, Pets & Household', 'Food & Drink', leaf];

  it('is national and asks for the Food, Pets & Household grid', () => {
    expect(warehouse.national).toBe(true);
    expect(warehouse.defaultOrigin).toBe('https://www.thewarehouse.co.nz');
    expect(warehouse.firstPage(ctx)).toEqual({
      url: `${REPLAY}/search/updategrid?cgid=foodhouseholdpets&start=0&sz=32`,
      headers: { accept: 'text/html,application/xhtml+xml' },
      responseType: 'text',
      label: 'start 0',
    });
  });

  it('parses a full grid page: special, two multibuys, clearance; skips marketplace; pages on', () => {
    const p = warehouse.parsePage(html('warehouse/grid-start0.html'), warehouse.firstPage(ctx), ctx);
    const first = [
      wh({ external_id: 'R2543671', price: 2500, name: 'Cola Can Mixed Tray 330ml 24 Pack', brand: 'Coca-Cola', gtin: '9300675035788', category_path: path3('Soft Drinks'),
        image: img('R2543671'), retailer_url: `${REPLAY}/p/coca-cola-cola-can-mixed-tray-330ml-24-pack/R2543671.html` }),
      // then-price 4.50, now 3.00: a special with the regular price published.
      wh({ external_id: 'R2741865', price: 450, promo_price: 300, promo_kind: 1, name: 'Salted Peanuts 400g', brand: 'Eta', gtin: '9414789004156', category_path: path3('Snacks & Confectionery'),
        image: img('R2741865'), retailer_url: `${REPLAY}/p/eta-salted-peanuts-400g/R2741865.html` }),
      // promotionCallOutMessage "2 for $5.00".
      wh({ external_id: 'R2639412', price: 299, promo_kind: 3, multibuy_qty: 2, multibuy_price: 500, name: 'Original Potato Chips 150g', brand: 'Bluebird', gtin: '9416100001123',
        category_path: path3('Snacks & Confectionery'), image: img('R2639412'), retailer_url: `${REPLAY}/p/bluebird-original-potato-chips-150g/R2639412.html` }),
      // productBadges "badge_2_for_7.99".
      wh({ external_id: 'R2718830', price: 449, promo_kind: 3, multibuy_qty: 2, multibuy_price: 799, name: 'Dairy Milk Block 180g', brand: 'Cadbury', gtin: '9300617063537',
        category_path: path3('Snacks & Confectionery'), image: img('R2718830'), retailer_url: `${REPLAY}/p/cadbury-dairy-milk-block-180g/R2718830.html` }),
      // badge_clearance with then-price 9.00, now 4.50; EAN "na" is no barcode.
      wh({ external_id: 'R2596101', price: 900, promo_price: 450, promo_kind: 4, name: 'Pumpkin Soup 500g', brand: "Wattie's", category_path: path3('Pantry'),
        image: img('R2596101'), retailer_url: `${REPLAY}/p/wattie-s-pumpkin-soup-500g/R2596101.html` }),
      // (R2801144 is a marketplace tile: left out.) Price as a JSON number 5.99.
      wh({ external_id: 'R2433190', price: 599, name: 'Instant Coffee 180g', brand: 'Greggs', gtin: '9400546001287', category_path: path3('Tea & Coffee'),
        image: img('R2433190'), retailer_url: `${REPLAY}/p/greggs-instant-coffee-180g/R2433190.html` }),
    ];
    const fill: Array<[string, string, number, string]> = [
      ['Earl Grey Tea Bags 100 Pack', 'Twinings', 750, 'twinings-earl-grey-tea-bags-100-pack'],
      ['Rolled Oats 750g', "Harraway's", 379, 'harraway-s-rolled-oats-750g'],
      ['Basmati Rice 1kg', 'Sunrice', 429, 'sunrice-basmati-rice-1kg'],
      ['Penne Pasta 500g', 'Barilla', 299, 'barilla-penne-pasta-500g'],
      ['Tomato Sauce 560ml', "Wattie's", 349, 'wattie-s-tomato-sauce-560ml'],
      ['Peanut Butter Smooth 375g', "Pic's", 699, 'pic-s-peanut-butter-smooth-375g'],
      ['Baked Beans 420g', "Wattie's", 199, 'wattie-s-baked-beans-420g'],
      ['Rice Crackers Original 100g', 'Peckish', 249, 'peckish-rice-crackers-original-100g'],
      ['Mountain Minis 250ml 10 Pack', 'Mountain Dew', 800, 'mountain-dew-mountain-minis-250ml-10-pack'],
      ['Pop Max Can 355ml 24 Pack', 'Pepsi', 2000, 'pepsi-pop-max-can-355ml-24-pack'],
      ['Cola Zero Sugar Can 24x330ml', 'Coca-Cola', 2500, 'coca-cola-cola-zero-sugar-can-24x330ml'],
      ['Mixed Tray 99% Sugar Free Soft Drink 24x', 'Schweppes', 1100, 'schweppes-mixed-tray-99-sugar-free-soft-drink-24x'],
      ['Chocolate Chip Cookies 200g', 'Cookie Time', 399, 'cookie-time-chocolate-chip-cookies-200g'],
      ['Corn Chips Salsa 230g', 'Doritos', 349, 'doritos-corn-chips-salsa-230g'],
      ['Muesli Bars Choc Chip 6 Pack', 'Nice & Natural', 329, 'nice-natural-muesli-bars-choc-chip-6-pack'],
      ['Sparkling Water Lemon 1.25L', 'Pump', 199, 'pump-sparkling-water-lemon-1-25l'],
      ['Dog Food Beef 1.5kg', 'Pedigree', 799, 'pedigree-dog-food-beef-1-5kg'],
      ['Cat Food Tuna 85g 12 Pack', 'Whiskas', 1299, 'whiskas-cat-food-tuna-85g-12-pack'],
      ['Dishwashing Liquid 1L', 'Earthwise', 499, 'earthwise-dishwashing-liquid-1l'],
      ['Toilet Tissue 12 Pack', 'Purex', 999, 'purex-toilet-tissue-12-pack'],
      ['Laundry Powder 2kg', 'Persil', 1800, 'persil-laundry-powder-2kg'],
      ['Paper Towels 2 Pack', 'Handee', 449, 'handee-paper-towels-2-pack'],
      ['Energy Drink 500ml', 'V', 300, 'v-energy-drink-500ml'],
      ['Dried Apricots 500g', 'Value', 649, 'value-dried-apricots-500g'],
      ['Long Life Milk 1L', 'Meadow Fresh', 279, 'meadow-fresh-long-life-milk-1l'],
    ];
    const rest = fill.map(([name, brand, price, slug], i) => {
      const id = `R29${String(i).padStart(5, '0')}`;
      return wh({ external_id: id, price, name, brand, category_path: path3('Pantry'), image: img(id), retailer_url: `${REPLAY}/p/${slug}/${id}.html` });
    });
    expect(p.rows).toEqual([...first, ...rest]);
    expect(p.next).toEqual({ url: `${REPLAY}/search/updategrid?cgid=foodhouseholdpets&start=32&sz=32`, headers: { accept: 'text/html,application/xhtml+xml' }, responseType: 'text', label: 'start 32' });
    ingestable(p.rows);

    const last = warehouse.parsePage(html('warehouse/grid-start32.html'), p.next!, ctx);
    expect(last.rows).toEqual([
      wh({ external_id: 'R2288841', price: 249, name: 'Classic Lemonade 1.5L', brand: 'Schweppes', gtin: '9300675021606', category_path: path3('Soft Drinks'),
        image: img('R2288841'), retailer_url: `${REPLAY}/p/schweppes-classic-lemonade-1-5l/R2288841.html` }),
      wh({ external_id: 'R2566730', price: 1299, promo_price: 999, promo_kind: 1, name: 'Jelly Beans 1kg', brand: 'Value', category_path: path3('Snacks & Confectionery'),
        image: img('R2566730'), retailer_url: `${REPLAY}/p/value-jelly-beans-1kg/R2566730.html` }),
      wh({ external_id: 'R2433190', price: 599, name: 'Instant Coffee 180g', brand: 'Greggs', gtin: '9400546001287', category_path: path3('Tea & Coffee'),
        image: img('R2433190'), retailer_url: `${REPLAY}/p/greggs-instant-coffee-180g/R2433190.html` }),
    ]);
    expect(last.next).toBeNull();
    ingestable(last.rows);
  });

  it('an empty grid ends the catalogue', () => {
    const req: PageRequest = { url: `${REPLAY}/search/updategrid?cgid=foodhouseholdpets&start=64&sz=32` };
    expect(warehouse.parsePage(html('warehouse/grid-empty.html'), req, ctx)).toEqual({ rows: [], next: null });
  });

  it('refuses other shapes with MalformedPage, and pages on after one', () => {
    const req = warehouse.firstPage(ctx);
    const page = html('warehouse/grid-start32.html');
    const broken: unknown[] = [
      { products: [] },
      null,
      '{"error":"blocked"}',
      page.replace('{&quot;id&quot;: &quot;R2288841&quot;', '{&quot;id&quot;: &quot;R2288841'),
      page.replace('&quot;price&quot;: &quot;2.49&quot;', '&quot;price&quot;: &quot;2.4x&quot;'),
      page.replace('&quot;name&quot;: &quot;Classic Lemonade 1.5L&quot;, ', ''),
    ];
    for (const body of broken) expect(() => warehouse.parsePage(body, req, ctx)).toThrow(MalformedPage);
    expect(warehouse.afterMalformed!(req, ctx)!.url).toBe(`${REPLAY}/search/updategrid?cgid=foodhouseholdpets&start=32&sz=32`);
  });
});

describe('MyFoodLink (FreshChoice, SuperValue)', () => {
  const ctx: CollectContext = { origin: REPLAY, day: DAY, store: 'hc' };
  const fc = (f: Parameters<typeof row>[2]) => row('freshchoice', 'hc', f);
  const base = `${REPLAY}/freshchoice/hc`;
  const HTML = { accept: 'text/html,application/xhtml+xml' };
  const cf = 'https://dtgxwmigmg3gc.cloudfront.net/imagery/assets/derivations/icon/256/256/true/';

  it('puts a store on its storefront subdomain (live) or under a path (replay on loopback)', () => {
    expect(myFoodLinkStoreBase({ retailer: 'freshchoice', chooserHost: 'store.freshchoice.co.nz' }, 'https://store.freshchoice.co.nz', 'queenstown'))
      .toBe('https://queenstown.store.freshchoice.co.nz');
    expect(myFoodLinkStoreBase({ retailer: 'supervalue', chooserHost: 'store.supervalue.co.nz' }, 'http://127.0.0.1:4010', 'milton')).toBe('http://127.0.0.1:4010/supervalue/milton');
    expect(() => myFoodLinkStoreBase({ retailer: 'freshchoice', chooserHost: 'store.freshchoice.co.nz' }, REPLAY, '../x')).toThrow(/subdomains/);
    expect(freshchoice.firstPage({ origin: freshchoice.defaultOrigin, day: DAY, store: 'hc' }).url).toBe('https://hc.store.freshchoice.co.nz/');
    expect(supervalue.firstPage({ origin: supervalue.defaultOrigin, day: DAY, store: 'milton' }).url).toBe('https://milton.store.supervalue.co.nz/');
  });

  it('fans out from the storefront to its departments', () => {
    const first = freshchoice.firstPage(ctx);
    expect(first).toEqual({ url: `${base}/`, headers: HTML, responseType: 'text', label: 'departments' });
    expect(freshchoice.parsePage(html('freshchoice/home.html'), first, ctx)).toEqual({
      rows: [],
      next: null,
      more: [
        { url: `${base}/category/meat`, headers: HTML, responseType: 'text', label: 'meat page 1' },
        { url: `${base}/category/fruit-vegetables`, headers: HTML, responseType: 'text', label: 'fruit-vegetables page 1' },
      ],
    });
    // A store without an online shop has no departments: nothing to collect.
    expect(freshchoice.parsePage(html('freshchoice/home-no-shop.html'), first, ctx)).toEqual({ rows: [], next: null, more: [] });
  });

  it('parses department pages: special with was-price, multibuy, sold by weight; follows rel=next', () => {
    const req: PageRequest = { url: `${base}/category/meat`, headers: HTML };
    const p1 = freshchoice.parsePage(html('freshchoice/category-meat-page1.html'), req, ctx);
    expect(p1.rows).toEqual([
      // "was $5.40", sells at $4.00.
      fc({ external_id: '6a3e07caf83bb1e8db52653e', price: 540, promo_price: 400, promo_kind: 1, name: 'Chesdale Cheese Slices Chives', size_text: '250g', category_path: ['Meat'],
        image: `${cf}eyJpZCI6Ijk5ODA1MDA2NWQ2MTIxYWY5YTYxMGRkM2M5MTBhYWYwIiwic3RvcmFnZSI6InB1YmxpY19zdG9yZSJ9?signature=d3ed7a8521105de372adfb68c53158ffe339eeb5bb8f9c71b8b2bc78ed75a34d`,
        retailer_url: `${base}/lines/chesdale-cheese-slices-chives-250g` }),
      // talker--Deal, "3 for $20.00 - $83.33 per kg".
      fc({ external_id: '6a4c7bf8c779739eafd73016', price: 890, promo_kind: 3, multibuy_qty: 3, multibuy_price: 2000, name: 'Ocean Blue Salmon Double Smoked', size_text: '80g', category_path: ['Meat'],
        image: `${cf}eyJpZCI6ImI1ODU5ZjIxMjI5NjFlZjc5OTc5OWM5ZWUyYmI5ZDRjLmpwZzIwMjUxMDMxLTMxNzY3ODQtdHptNXQ2Iiwic3RvcmFnZSI6InB1YmxpY19zdG9yZSJ9?signature=01d1fe43be1803c8d3ca95fcf37f4fffb76336d0ac6dee4ed40fc58e47c4a0ef`,
        retailer_url: `${base}/lines/ocean-blue-salmon-double-smoked-80g` }),
      // Sold per kg: no size span, "per kg" units.
      fc({ external_id: '6a3e095af83bb1e8db52e820', price: 4899, name: 'Blue Cod Skinned & Boned', size_text: 'kg', category_path: ['Meat'],
        image: `${cf}eyJpZCI6ImM3MDNmZWY2MjYwOTU0N2UxNGZiM2Y5MGQ5N2FhYTAwLmpwZzIwMjYwNjI5LTIyMzY0MS12cnhzMGgiLCJzdG9yYWdlIjoicHVibGljX3N0b3JlIn0?signature=71e1748f296a37708d3e17a846cbd7b1a4fcc7d06354363d776ad21eaf1caab2`,
        retailer_url: `${base}/lines/blue-cod-skinned-boned` }),
    ]);
    expect(p1.next).toEqual({ url: `${base}/category/meat?page=2`, headers: HTML, responseType: 'text', label: 'meat page 2' });

    const p2 = freshchoice.parsePage(html('freshchoice/category-meat-page2.html'), p1.next!, ctx);
    expect(p2.rows).toEqual([
      // Brand and barcode from the page's analytics impressions, matched by name.
      fc({ external_id: '6a3e0812f83bb1e8db527a11', price: 1049, name: 'Hellers Beef Mince', brand: 'Hellers', gtin: '9415767001017', size_text: '340g', category_path: ['Meat'],
        image: `${cf}eyJpZCI6ImhlbGxlcnMtYmVlZi1taW5jZSIsInN0b3JhZ2UiOiJwdWJsaWNfc3RvcmUifQ?signature=5d1f0c0a&v=2`, retailer_url: `${base}/lines/hellers-beef-mince-340g` }),
      fc({ external_id: '6a3e07caf83bb1e8db52653e', price: 540, promo_price: 400, promo_kind: 1, name: 'Chesdale Cheese Slices Chives', size_text: '250g', category_path: ['Meat'] }),
    ]);
    expect(p2.next).toBeNull();
    ingestable([...p1.rows, ...p2.rows]);
  });

  it('an empty department is an empty page', () => {
    const req: PageRequest = { url: `${base}/category/fruit-vegetables`, headers: HTML };
    expect(freshchoice.parsePage(html('freshchoice/category-fruit-vegetables-page1.html'), req, ctx)).toEqual({ rows: [], next: null });
  });

  it('SuperValue: the same translation under its own host', () => {
    const sctx: CollectContext = { origin: supervalue.defaultOrigin, day: DAY, store: 'milton' };
    const sbase = 'https://milton.store.supervalue.co.nz';
    const home = supervalue.parsePage(html('supervalue/home.html'), supervalue.firstPage(sctx), sctx);
    expect(home.more).toEqual([{ url: `${sbase}/category/dairy-eggs`, headers: HTML, responseType: 'text', label: 'dairy-eggs page 1' }]);
    const p = supervalue.parsePage(html('supervalue/category-dairy-eggs-page1.html'), home.more![0], sctx);
    const sv = (f: Parameters<typeof row>[2]) => row('supervalue', 'milton', f);
    expect(p).toEqual({
      rows: [
        sv({ external_id: '6a41c2d0c779739eafd51e02', price: 729, name: 'Homebrand Milk Lite', size_text: '3L', category_path: ['Dairy & Eggs'],
          image: `${cf}eyJpZCI6Imhtb21lYnJhbmQtbWlsay1saXRlIn0?signature=1a2b3c`, retailer_url: `${sbase}/lines/homebrand-milk-lite-3l` }),
        // Sticker "2 for $15" (no multibuy unit-price line).
        sv({ external_id: '6a41c2d0c779739eafd51f77', price: 849, promo_kind: 3, multibuy_qty: 2, multibuy_price: 1500, name: 'Anchor Butter', size_text: '500g', category_path: ['Dairy & Eggs'],
          image: `${cf}eyJpZCI6ImFuY2hvci1idXR0ZXIifQ?signature=4d5e6f`, retailer_url: `${sbase}/lines/anchor-butter-500g` }),
        sv({ external_id: '6a41c2d0c779739eafd52a10', price: 1299, promo_price: 1149, promo_kind: 1, name: 'Pams Free Range Eggs Size 7', size_text: '12pk', category_path: ['Dairy & Eggs'],
          image: `${cf}eyJpZCI6InBhbXMtZWdncyJ9?signature=7a8b9c`, retailer_url: `${sbase}/lines/pams-free-range-eggs-size-7-12pk` }),
      ],
      next: null,
    });
    ingestable(p.rows);
    expect(supervalue.parsePage(html('supervalue/home-no-shop.html'), supervalue.firstPage(sctx), sctx)).toEqual({ rows: [], next: null, more: [] });
  });

  it('lists the online-shop stores of the store directory (api/v1/stores), live and on the replay', async () => {
    const fcChain = { retailer: 'freshchoice', chooserHost: 'store.freshchoice.co.nz' };
    const svChain = { retailer: 'supervalue', chooserHost: 'store.supervalue.co.nz' };
    expect(myFoodLinkDirectoryUrl(fcChain, 'https://store.freshchoice.co.nz')).toBe('https://www.freshchoice.co.nz/api/v1/stores');
    expect(myFoodLinkDirectoryUrl(svChain, REPLAY)).toBe(`${REPLAY}/supervalue/api/v1/stores`);
    const json = (f: string) => JSON.parse(html(f)) as unknown;
    // The "website" record (no online shop) is left out; coordinates only where the record has them.
    expect(parseMyFoodLinkDirectory(fcChain, json('freshchoice/stores.json'))).toEqual([
      { external_id: 'hc', name: 'FreshChoice Hauraki Corner', address: '1 Hauraki Corner, Takapuna, Auckland 0622', lat: -36.7921, lng: 174.7712 },
      { external_id: 'roslyn', name: 'FreshChoice Roslyn', address: null, lat: null, lng: null },
    ]);
    expect(parseMyFoodLinkDirectory(svChain, json('supervalue/stores.json')).map((s) => s.external_id)).toEqual(['milton', 'plaza']);
    // A FreshChoice storefront in SuperValue's directory is not a SuperValue store.
    expect(parseMyFoodLinkDirectory(svChain, json('freshchoice/stores.json'))).toEqual([]);
    expect(() => parseMyFoodLinkDirectory(fcChain, { stores: [] })).toThrow(MalformedPage);
    const asked: PageRequest[] = [];
    const listed = await freshchoice.stores!({ origin: REPLAY, day: DAY, store: null }, async (req) => {
      asked.push(req);
      return { body: json('freshchoice/stores.json'), headers: {} };
    });
    expect(asked.map((r) => r.url)).toEqual([`${REPLAY}/freshchoice/api/v1/stores`]);
    expect(listed).toHaveLength(2);
  });

  it('downloads images from an override origin, path and query kept', () => {
    expect(withOrigin('https://a.fsimg.co.nz/product/retail/fan/image/400x400/5039995.png', 'http://127.0.0.1:4010'))
      .toBe('http://127.0.0.1:4010/product/retail/fan/image/400x400/5039995.png');
    expect(withOrigin(`${cf}eyJpZCI6InBhbXMtZWdncyJ9?signature=7a8b9c`, 'http://127.0.0.1:4010'))
      .toBe('http://127.0.0.1:4010/imagery/assets/derivations/icon/256/256/true/eyJpZCI6InBhbXMtZWdncyJ9?signature=7a8b9c');
    expect(withOrigin('not a url', 'http://127.0.0.1:4010')).toBe('not a url');
  });

  it('refuses other shapes with MalformedPage, and pages on after one', () => {
    const req: PageRequest = { url: `${base}/category/meat?page=3`, headers: HTML };
    const page = html('freshchoice/category-meat-page1.html');
    const broken: unknown[] = [
      { rows: [] },
      null,
      'Service unavailable',
      page.replace('<strong class="price__sell" title="">$4.00</strong>', '<strong class="price__sell" title="">$4.0x</strong>'),
      page.replace('was $5.40', 'was £5.40'),
      page.replace('<span class="talker__product-name">Chesdale Cheese Slices Chives</span>', ''),
    ];
    for (const body of broken) expect(() => freshchoice.parsePage(body, req, ctx)).toThrow(MalformedPage);
    expect(freshchoice.afterMalformed!(req, ctx)).toEqual({ url: `${base}/category/meat?page=4`, headers: HTML, responseType: 'text', label: 'meat page 4' });
    expect(freshchoice.afterMalformed!({ url: `${base}/category/meat` }, ctx)!.url).toBe(`${base}/category/meat?page=2`);
    expect(freshchoice.afterMalformed!({ url: `${base}/` }, ctx)).toBeNull();
  });
});
