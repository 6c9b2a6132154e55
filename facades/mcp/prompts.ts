/**
 * MCP prompts (issue 13, "MCP prompts"): a few ready-made workflows an agent can discover with
 * `prompts/list` and fetch with `prompts/get`. Each answers one user message that says which of this
 * server's tools to call, with which arguments, and how to read what they return.
 *
 * Tool names are never typed here: every prompt names its tools through the registry entries it
 * imports (`op.name`), and {@link promptDefinitions} checks each one is published as a tool by the
 * registry it is given, so a renamed, removed or internal operation fails at start-up instead of
 * leaving a prompt pointing at nothing. Arguments are strings (MCP prompt arguments always are),
 * validated by zod; a missing or bad one is the SDK's JSON-RPC invalid-params error (-32602).
 */
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { RADIUS_KM } from '../../src/domain/limits.js';
import { MAX_ID, type AnyOperation } from '../operation.js';
import checkSpecial from '../operations/check_special.js';
import getListing from '../operations/get_listing.js';
import getListingHistory from '../operations/get_listing_history.js';
import getProduct from '../operations/get_product.js';
import getProductHistory from '../operations/get_product_history.js';
import getProductSpread from '../operations/get_product_spread.js';
import getProductStores from '../operations/get_product_stores.js';
import listShrinkflation from '../operations/list_shrinkflation.js';
import listStores from '../operations/list_stores.js';
import lookupGtin from '../operations/lookup_gtin.js';
import planShoppingList from '../operations/plan_shopping_list.js';
import searchListings from '../operations/search_listings.js';
import searchProducts from '../operations/search_products.js';

/** Most items one compare_basket may name. */
export const MAX_BASKET_ITEMS = 12;

/** One prompt, with the registry tools its messages name. */
export interface PromptDefinition {
  /** Prompt name (`prompts/get` `name`). */
  name: string;
  /** Display title. */
  title: string;
  /** What the prompt is for (shown by `prompts/list`). */
  description: string;
  /** Argument schema (string arguments; descriptions become the listed argument descriptions). */
  argsSchema: z.ZodObject;
  /** The tools the messages name, each a published operation of the registry. */
  tools: readonly AnyOperation[];
  /** The prompt's messages for validated arguments. */
  render(args: Record<string, string | undefined>): GetPromptResult;
}

/** The names of the comma-separated items of a basket (trimmed, blanks and repeats dropped). */
export function basketItems(items: string): string[] {
  const seen = new Set<string>();
  for (const raw of items.split(',')) {
    const item = raw.trim().replace(/\s+/g, ' ');
    if (item !== '' && ![...seen].some((s) => s.toLowerCase() === item.toLowerCase())) seen.add(item);
  }
  return [...seen];
}

/** What a price_history `query` names: a listing, a product, a barcode or search words. */
export type HistoryTarget =
  | { kind: 'listing' | 'product'; id: number }
  | { kind: 'barcode'; gtin: string }
  | { kind: 'search'; q: string };

/** Reads a price_history `query`: `listing:<id>`, `product:<id>`, 8 to 14 digits (a barcode), or words. */
export function historyTarget(query: string): HistoryTarget {
  const q = query.trim();
  const ref = /^(listing|product)\s*[:#]\s*([1-9]\d{0,9})$/i.exec(q);
  if (ref && Number(ref[2]) <= MAX_ID) return { kind: ref[1].toLowerCase() as 'listing' | 'product', id: Number(ref[2]) };
  if (/^\d{8,14}$/.test(q)) return { kind: 'barcode', gtin: q };
  return { kind: 'search', q };
}

const text = (max: number, description: string) => z.string().trim().min(1, 'is required').max(max, `must be at most ${max} characters`).describe(description);

/**
 * A decimal argument within [min, max] (WGS84 degrees or km), written in plain digits as list_stores
 * and plan_shopping_list take it (`-36.85`; no exponent); blank counts as absent when optional.
 */
const decimalText = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^-?(0|[1-9][0-9]{0,5})(\.[0-9]{1,12})?$/, 'must be a decimal number written in digits, like -36.85')
    .refine((s) => Number(s) >= min && Number(s) <= max, `must be from ${min} to ${max}`);

const idText = z
  .string()
  .trim()
  .regex(/^[1-9]\d{0,9}$/, 'must be a positive integer written in digits')
  .refine((s) => Number(s) <= MAX_ID, `must be at most ${MAX_ID}`);

/** `1 special …` legend of PromoKind (api-spec), shared by the prompts. */
const PROMO_KINDS =
  'promo kind 1 = special (everyone), 2 = member/club price (needs the chain\'s loyalty card), 3 = multibuy (multibuy_qty units for multibuy_price in total), 4 = clearance';

const MONEY = 'Prices are integer NZ cents (divide by 100; quote them as $x.xx); days are New Zealand calendar days.';

const HISTORY_READING =
  'A History is parallel arrays, oldest first: span i runs from `from[i]` to `to[i]` inclusive at shelf price `price[i]` cents, with `promo[i]` and `kind[i]` set when a promotion applied (' +
  PROMO_KINDS +
  '; a multibuy also sets `multibuy_qty[i]`/`multibuy_price[i]`). The last span is the current price; its `to` is the latest observation. A gap between `to[i]` and `from[i+1]` is days nobody observed.';

/** A user prompt result of one text message. */
function userMessage(description: string, lines: readonly string[]): GetPromptResult {
  return { description, messages: [{ role: 'user', content: { type: 'text', text: lines.join('\n') } }] };
}

/** `name` in backquotes: how the messages name a tool. */
const t = (op: AnyOperation) => `\`${op.name}\``;

/**
 * The prompts, checked against `ops`: compare_basket, is_special_real, price_history, cheapest_near_me and has_it_shrunk.
 * @throws when a prompt names an operation `ops` does not publish as a tool (missing or internal),
 *   so the drift surfaces when the server is built.
 */
export function promptDefinitions(ops: readonly AnyOperation[]): PromptDefinition[] {
  const published = new Map(ops.filter((op) => !op.internal).map((op) => [op.name, op]));
  const tools = (prompt: string, ...wanted: AnyOperation[]) =>
    wanted.map((op) => {
      const found = published.get(op.name);
      if (!found) throw new Error(`prompt ${prompt} names the tool ${op.name}, which the operation registry does not publish`);
      return found;
    });

  const [search, productStores, stores, plan] = tools('compare_basket', searchProducts, getProductStores, listStores, planShoppingList);
  const compareBasket: PromptDefinition = {
    name: 'compare_basket',
    title: 'Compare a basket across chains',
    description: "Price a shopping list at every New Zealand supermarket chain (optionally in one region) and find the cheapest, specials included.",
    argsSchema: z.object({
      items: text(500, `The shopping list, comma-separated (e.g. "milk 2L, white bread, bananas"); at most ${MAX_BASKET_ITEMS} items.`).refine(
        (s) => basketItems(s).length >= 1 && basketItems(s).length <= MAX_BASKET_ITEMS,
        `must name 1 to ${MAX_BASKET_ITEMS} comma-separated items`,
      ),
      area: z
        .string()
        .trim()
        .max(100, 'must be at most 100 characters')
        .optional()
        .describe('Optional region (regional council as list_stores returns it in `area`, e.g. "Canterbury"); without it (or blank), national prices.'),
    }),
    tools: [search, productStores, stores, plan],
    render: ({ items = '', area: region }) => {
      const list = basketItems(items);
      const area = region === '' ? undefined : region;
      return userMessage(`Compare a basket of ${list.length} items across chains${area ? ` in ${area}` : ''}`, [
        `Compare the price of this basket across New Zealand supermarket chains${area ? ` for a shopper in ${area}` : ''}: ${list.map((i) => `"${i}"`).join(', ')}.`,
        '',
        `Use this server's tools. ${MONEY}`,
        `1. For each item call ${t(search)} with \`q\` set to the item and \`limit\` 5. Each result is a ProductGroup: one product (\`product_id\`, \`name\`, \`size_text\`) with \`offers\`, one ListingCard per chain (\`retailer\` slug), available and cheapest first. Pick the group that matches the item (same kind of thing and a comparable size); if none does, say so rather than guessing.`,
        `2. For each offer the price to pay is \`promo_price\` when \`promo_kind\` is 1 (special) or 4 (clearance), else \`price\`. Report \`promo_kind\` 2 (member/club price, loyalty card needed) and 3 (multibuy: \`multibuy_qty\` for \`multibuy_price\`, only if that many are bought) separately. Skip offers with \`available\` false or \`price\` null. These are national prices: the median across the chain's reporting stores.`,
        area
          ? `3. Call ${t(stores)} with \`area\` "${area}" to see which chains have stores there (store \`id\`, \`retailer\`, \`town\`). For the chosen products, ${t(productStores)} with \`id\` = \`product_id\` gives every store's current price (cheapest first); keep the stores of ${area} and use their prices instead of the national ones where a chain's store prices the item.`
          : `3. Where store prices matter, ${t(productStores)} with \`id\` = \`product_id\` gives every store's current price (cheapest first).`,
        `4. For the cheapest store (not only chain), call ${t(plan)} with \`items\` = the chosen \`product_id\`s as \`p<id>\` tokens (\`x<qty>\` for quantities), plus \`lat\`, \`lng\` and \`radius_km\` when the shopper gave a place: it answers the cheapest single stores and two-store splits from each store's current prices, with what each lacks.`,
        "5. Total the basket per chain over the items every chain prices; list the items a chain lacks next to its total instead of dropping the chain. Compare sizes: when sizes differ, compare per kg/L or per unit and say so.",
        '6. Answer with a table (item × chain, plus totals), the cheapest chain (and store, when step 4 found one), and the specials that make the difference.',
      ]);
    },
  };

  const [check, listing, listingHistory, product, productHistory] = tools('is_special_real', checkSpecial, getListing, getListingHistory, getProduct, getProductHistory);
  const isSpecialReal: PromptDefinition = {
    name: 'is_special_real',
    title: 'Is this special real?',
    description: "Check a listing's or product's promotion against its own price history: is the promo price really below what it normally sells for, or was the shelf price raised first?",
    argsSchema: z.object({
      id: idText.describe('The listing id (a ListingCard `id`), or the product id when kind is "product".'),
      kind: z
        .string()
        .trim()
        .toLowerCase()
        .refine((k) => k === '' || k === 'listing' || k === 'product', 'must be "listing" or "product"')
        .optional()
        .describe('What id names: "listing" (default) or "product" (every chain\'s listing linked to it).'),
    }),
    tools: [check, listing, listingHistory, product, productHistory],
    render: ({ id = '', kind }) => {
      const asProduct = kind === 'product';
      const lookup = asProduct
        ? [
            `1. Call ${t(product)} with \`id\` ${id}: its \`offers\` (one per chain's linked listing, available and cheapest first) carry the current \`price\`, \`promo_price\` and \`promo_kind\`. Note which chains have a promotion now.`,
            `2. Call ${t(productHistory)} with \`id\` ${id}: one History per chain slug. Judge each promoted chain on its own History, and compare its promo price with the other chains' current shelf prices too.`,
          ]
        : [
            `1. Call ${t(listing)} with \`id\` ${id}: \`current\` is the latest national span (\`price\` shelf price, \`promo_price\`, \`promo_kind\`, \`day\`); \`stores\` has today's price at each store (store-only promotions show there).`,
            `2. Call ${t(listingHistory)} with \`id\` ${id} (\`store\` 0, the national series; a store id from \`stores\` gives that store's exact history including store-only promotions).`,
          ];
      return userMessage(`Is the special on ${asProduct ? 'product' : 'listing'} ${id} real?`, [
        `Is the current special on ${asProduct ? 'product' : 'listing'} ${id} a real saving? Use this server's tools. ${MONEY}`,
        ...lookup,
        `3. Call ${t(check)} with \`id\` = ${asProduct ? 'each promoted listing\'s `id`' : id}: the service's own check of each current deal against the 90 days before it started (\`verdict\`, \`usual_price\`, \`lowest_price\`, \`shelf_rise\`, \`days_observed\`). Use it as the starting point; when its verdict is \`insufficient_history\`, say so and judge from the longer history below.`,
        `4. Read the history. ${HISTORY_READING}`,
        '5. Over the last 365 days, weighting each span by its days: the regular price is the shelf price (`price`) it sat at most days; also take the lowest price actually paid (`promo` when kind is 1 or 4, else `price`). Then check:',
        '   - the promo price against the regular price and against that year low;',
        '   - whether `price` was raised in the ~6 weeks before this promotion started, above where it stood earlier (an inflated "was" price);',
        '   - how often it is on promotion: on promotion most days means the promo price is its normal price;',
        '   - kind 2 needs a loyalty card; a multibuy (kind 3) saves only per unit (`multibuy_price` / `multibuy_qty`) when that many are bought.',
        '6. If there is no current promotion, say so and give the regular price and the last promotion seen.',
        '7. Verdict: "real", "modest" or "not real", with the figures behind it (regular price, promo price, saving in $ and %, year low, any price rise before the promotion, share of days on promotion).',
      ]);
    },
  };

  const [byBarcode, searchFor, listingDetail, listingSpans, productDetail, productSpans, spread] = tools(
    'price_history',
    lookupGtin,
    searchProducts,
    getListing,
    getListingHistory,
    getProduct,
    getProductHistory,
    getProductSpread,
  );
  const priceHistory: PromptDefinition = {
    name: 'price_history',
    title: 'Price history of an item',
    description: 'How the price of an item has moved: its shelf-price spans and promotions at each chain, summarised.',
    argsSchema: z.object({
      query: text(200, 'The item: words (e.g. "anchor butter 500g"), a barcode (8 to 14 digits), or "listing:<id>" / "product:<id>".'),
    }),
    tools: [byBarcode, searchFor, listingDetail, listingSpans, productDetail, productSpans, spread],
    render: ({ query = '' }) => {
      const target = historyTarget(query);
      const fromProduct = (id: string) =>
        `call ${t(productDetail)} with \`id\` ${id} for its name, size and each chain's current offer, then ${t(productSpans)} with \`id\` ${id}: one History per chain slug (an empty object when nothing is linked).`;
      const fromListing = (id: string) =>
        `call ${t(listingDetail)} with \`id\` ${id} for its name, chain, size and \`current\` price, then ${t(listingSpans)} with \`id\` ${id} (\`store\` 0 is the national series, the median across the chain's stores; a store id gives one store's exact prices).`;
      const thenHistory = `2. If the group has a \`product_id\`, ${fromProduct('<product_id>')} Otherwise (not linked across chains) ${fromListing('<the offer\'s listing id>')}`;
      let find: string[];
      switch (target.kind) {
        case 'listing':
          find = [`1. This is listing ${target.id}: ${fromListing(String(target.id))}`];
          break;
        case 'product':
          find = [`1. This is product ${target.id}: ${fromProduct(String(target.id))}`];
          break;
        case 'barcode':
          find = [`1. Call ${t(byBarcode)} with \`gtin\` "${target.gtin}": a ProductGroup (404 when no listing carries that barcode).`, thenHistory];
          break;
        case 'search':
          find = [
            `1. Call ${t(searchFor)} with \`q\` ${JSON.stringify(target.q)} and \`limit\` 5: ProductGroups, best match first. Pick the one that matches; if several are plausible (sizes, brands), say which you chose.`,
            thenHistory,
          ];
          break;
      }
      return userMessage(`Price history of ${query.trim()}`, [
        `Show the price history of ${JSON.stringify(query.trim())}. Use this server's tools. ${MONEY}`,
        ...find,
        `${find.length + 1}. Read it. ${HISTORY_READING}`,
        `${find.length + 2}. Summarise (per chain when there are several): the current price, the lowest and highest shelf price and when, the price changes over the last year (dates and amounts), and how often and how deep promotions were. For how much stores differ, ${t(spread)} with the product id (\`product_id\`, when linked) gives each chain's daily minimum, median and maximum store price and the stores reporting.`,
      ]);
    },
  };

  const [nearStores, searchNear, planNear] = tools('cheapest_near_me', listStores, searchProducts, planShoppingList);
  const cheapestNearMe: PromptDefinition = {
    name: 'cheapest_near_me',
    title: 'Cheapest near me for my list',
    description: `Find the cheapest store (or pair of stores) for a whole shopping list among the stores within a radius of the shopper (default ${RADIUS_KM.default} km), from each store's current prices.`,
    argsSchema: z.object({
      items: text(500, `The shopping list, comma-separated (e.g. "milk 2L, white bread, bananas"); at most ${MAX_BASKET_ITEMS} items.`).refine(
        (s) => basketItems(s).length >= 1 && basketItems(s).length <= MAX_BASKET_ITEMS,
        `must name 1 to ${MAX_BASKET_ITEMS} comma-separated items`,
      ),
      lat: decimalText(-90, 90).describe('Latitude of the shopper, WGS84 degrees (e.g. "-36.8485").'),
      lng: decimalText(-180, 180).describe('Longitude of the shopper, WGS84 degrees (e.g. "174.7633").'),
      radius_km: z
        .union([z.literal(''), decimalText(RADIUS_KM.min, RADIUS_KM.max)])
        .optional()
        .describe(`Optional radius in kilometres (great-circle), ${RADIUS_KM.min} to ${RADIUS_KM.max}; default ${RADIUS_KM.default}.`),
    }),
    tools: [nearStores, searchNear, planNear],
    render: ({ items = '', lat = '', lng = '', radius_km: radius }) => {
      const list = basketItems(items);
      const km = radius === undefined || radius === '' ? String(RADIUS_KM.default) : radius;
      const point = `\`lat\` ${lat}, \`lng\` ${lng} and \`radius_km\` ${km}`;
      return userMessage(`Cheapest store within ${km} km for a list of ${list.length} items`, [
        `Find where a shopper at latitude ${lat}, longitude ${lng} (WGS84) buys this list most cheaply within ${km} km: ${list.map((i) => `"${i}"`).join(', ')}.`,
        '',
        `Use this server's tools. ${MONEY} Distances are great-circle kilometres.`,
        `1. Call ${t(nearStores)} with ${point}: the stores within the radius, nearest first, each with \`distance_km\`, \`retailer\`, \`name\` and \`town\`. If it is empty, say that no store in the panel is within ${km} km and suggest a larger \`radius_km\` (at most ${RADIUS_KM.max}); stop there.`,
        `2. For each item call ${t(searchNear)} with \`q\` set to the item and \`limit\` 5, and pick the ProductGroup that matches (same kind of thing and a comparable size); note its \`product_id\` (a group whose \`product_id\` is null is one listing: note \`l<its offer's id>\` instead of \`p<product_id>\`). If none matches, say so rather than guessing, and leave the item out.`,
        `3. Call ${t(planNear)} with \`items\` = the chosen products as comma-separated \`p<product_id>\` (or \`l<id>\`) tokens (add \`x<qty>\` for a quantity, e.g. \`p12x2\`) and ${point} (add \`member\` true only if the shopper has the chains' loyalty cards). \`single\` is the cheapest single stores (fewest missing items first, then lowest \`total\`, then nearest), \`split\` the two-store combinations that beat both their stores; each store carries \`distance_km\` and each line the \`cost\` and the \`promo\` it uses.`,
        "4. Answer with the cheapest store (name, town, distance, total, the items it lacks), the best split when it saves enough to be worth a second stop (its saving and both distances), and any nearer store from step 1 that prices the list for little more. Say which prices are promotions and which need a loyalty card.",
      ]);
    },
  };

  const [shrinkSearch, shrinkBarcode, shrinkProduct, shrinkListing, shrinkHistory, shrinkEvents] = tools(
    'has_it_shrunk',
    searchListings,
    lookupGtin,
    getProduct,
    getListing,
    getListingHistory,
    listShrinkflation,
  );
  const hasItShrunk: PromptDefinition = {
    name: 'has_it_shrunk',
    title: 'Has this shrunk?',
    description: "Check whether an item's pack got smaller while its shelf price stayed the same or rose (shrinkflation), from its size history and national price series.",
    argsSchema: z.object({
      query: text(200, 'The item: words (e.g. "whittakers dark chocolate"), a barcode (8 to 14 digits), or "listing:<id>" / "product:<id>".'),
    }),
    tools: [shrinkSearch, shrinkBarcode, shrinkProduct, shrinkListing, shrinkHistory, shrinkEvents],
    render: ({ query = '' }) => {
      const target = historyTarget(query);
      let find: string;
      switch (target.kind) {
        case 'listing':
          find = `1. This is listing ${target.id}.`;
          break;
        case 'product':
          find = `1. Call ${t(shrinkProduct)} with \`id\` ${target.id}: its \`offers\` are one listing per chain (\`id\`, \`retailer\`, \`size_text\`). Check each listing below.`;
          break;
        case 'barcode':
          find = `1. Call ${t(shrinkBarcode)} with \`gtin\` "${target.gtin}": a ProductGroup whose \`offers\` are the listings carrying that barcode (404 when none does). Check each listing below.`;
          break;
        case 'search':
          find = `1. Call ${t(shrinkSearch)} with \`q\` ${JSON.stringify(target.q)} and \`limit\` 5: ListingCards, best match first. Pick the listing (or one per chain) that matches; if several are plausible (sizes, brands), say which you chose.`;
          break;
      }
      return userMessage(`Has ${query.trim()} shrunk?`, [
        `Has ${JSON.stringify(query.trim())} shrunk: a smaller pack for the same or a higher price? Use this server's tools. ${MONEY}`,
        find,
        `2. For each listing call ${t(shrinkEvents)} with \`listing\` = its id and \`days\` 730 (the longest window, ending at \`as_of\`, the last observed day). Each event is one shrink: \`day\` the first day the smaller size was seen, \`old_size\`/\`new_size\` as printed with their pack totals (\`old_qty\`/\`new_qty\` in \`unit\`), the shelf price before and on that day (\`old_price\`/\`new_price\`, cents; promotions ignored), and the unit prices in cents per \`compare_unit\` (kg, l, each or 100sheet) with \`unit_price_change\` in per cent.`,
        `3. Call ${t(shrinkListing)} with the listing id for its current \`size_text\` and price, and ${t(shrinkHistory)} with \`store\` 0 for its national price spans, to show what the price did before and after each shrink (a rise soon after the shrink adds to it). ${HISTORY_READING}`,
        '4. Answer per listing: "shrunk" with each event (date, old → new size, old → new shelf price, unit price rise in $ per kg/L/item and %), or "no shrink found in the history we hold since <the earliest day>". An empty answer can mean the size history is short (sizes are recorded from the first collection that saw them), not that the pack never changed: say so. A change between unit families (500 g to a 6 pack) or a product sold by weight is never counted.',
      ]);
    },
  };

  return [compareBasket, isSpecialReal, priceHistory, cheapestNearMe, hasItShrunk];
}

/** Registers every prompt of `prompts` on `server` with its argument schema. */
export function registerPrompts(server: McpServer, prompts: readonly PromptDefinition[]): void {
  for (const p of prompts) {
    server.registerPrompt(p.name, { title: p.title, description: p.description, argsSchema: p.argsSchema }, (args) =>
      p.render(args as Record<string, string | undefined>),
    );
  }
}
