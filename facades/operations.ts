/**
 * The operation registry: the single list every facade is generated from (REST routes, MCP tools,
 * OpenAPI, llms.txt / llms-full.txt), run through the one executor (facades/execute.ts).
 *
 * Adding an operation is:
 *   1. one document, `schema/operations/<name>.graphql` (a query named `<name>`, spreading shared
 *      fragments from schema/fragments.graphql as it likes), then `npm run codegen` to regenerate
 *      its types (facades/generated/operations.ts; a contract test fails while they are stale);
 *   2. one entry, `facades/operations/<name>.ts`: `defineOperation({ name: '<name>', ... })`, whose
 *      types are generated: `variables` must return the document's variables type and `shape`
 *      receives the document's result type and must return the contract type of `result` (a zod
 *      schema from facades/resources.ts), so reading a field the document does not select, or
 *      leaving out a contract field, fails `npm run typecheck`. Leave `shape` out when the
 *      document's one root field already is the contract resource;
 *   3. one line in `registry` below.
 * test/contract/operation-fields.test.ts then checks that the document selects exactly the
 * contract's fields (facades/resources.ts is the one place a resource's wire fields are listed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, type FragmentDefinitionNode } from 'graphql';
import { ROOT_DIR } from '../src/env.js';
import type { AnyOperation } from './operation.js';
import browseRetailer from './operations/browse_retailer.js';
import checkSpecial from './operations/check_special.js';
import browseShelf from './operations/browse_shelf.js';
import compareRetailers from './operations/compare_retailers.js';
import getBasket from './operations/get_basket.js';
import getBasketItem from './operations/get_basket_item.js';
import getDataStatus from './operations/get_data_status.js';
import getExportManifest from './operations/get_export_manifest.js';
import getIndexDaily from './operations/get_index_daily.js';
import getIndexGroups from './operations/get_index_groups.js';
import getIndexItems from './operations/get_index_items.js';
import getIndexLatest from './operations/get_index_latest.js';
import getIndexValidation from './operations/get_index_validation.js';
import getListing from './operations/get_listing.js';
import getListingHistory from './operations/get_listing_history.js';
import getListingLows from './operations/get_listing_lows.js';
import getProduct from './operations/get_product.js';
import getProductHistory from './operations/get_product_history.js';
import getProductLows from './operations/get_product_lows.js';
import getProductSpread from './operations/get_product_spread.js';
import getProductStores from './operations/get_product_stores.js';
import getRetailerLevels from './operations/get_retailer_levels.js';
import getStore from './operations/get_store.js';
import getStoreLevels from './operations/get_store_levels.js';
import getStoreListings from './operations/get_store_listings.js';
import healthz from './operations/healthz.js';
import listAreas from './operations/list_areas.js';
import listDeals from './operations/list_deals.js';
import listShelves from './operations/list_shelves.js';
import listShrinkflation from './operations/list_shrinkflation.js';
import listRetailers from './operations/list_retailers.js';
import listStores from './operations/list_stores.js';
import lookupGtin from './operations/lookup_gtin.js';
import planShoppingList from './operations/plan_shopping_list.js';
import searchListings from './operations/search_listings.js';
import searchProducts from './operations/search_products.js';
import suggest from './operations/suggest.js';
import listPriceChanges from './operations/list_price_changes.js';

/** Every operation, in documentation order, each with its own types (a tuple, nothing widened). */
export const registry = [
  searchProducts,
  searchListings,
  suggest,
  lookupGtin,
  getProduct,
  getProductHistory,
  getProductLows,
  getProductStores,
  getProductSpread,
  getListing,
  getListingHistory,
  getListingLows,
  checkSpecial,
  listRetailers,
  listShelves,
  browseShelf,
  browseRetailer,
  compareRetailers,
  getRetailerLevels,
  listStores,
  getStore,
  getStoreListings,
  getStoreLevels,
  listAreas,
  listDeals,
  planShoppingList,
  getIndexLatest,
  getIndexDaily,
  getIndexGroups,
  getIndexItems,
  getIndexValidation,
  getBasketItem,
  getBasket,
  getExportManifest,
  getDataStatus,
  healthz,
  listPriceChanges,
  listShrinkflation,
] as const satisfies readonly AnyOperation[];

/** The registry as the facades take it: any operation (they only pass data through `shape`). */
export const operations: readonly AnyOperation[] = registry;

/** Folder of the persisted GraphQL documents, one `<operation name>.graphql` each. */
export const OPERATIONS_DIR = path.join(ROOT_DIR, 'schema', 'operations');

/** The shared fragments file (schema/fragments.graphql). */
export const FRAGMENTS_PATH = path.join(ROOT_DIR, 'schema', 'fragments.graphql');

let fragmentDefinitions: Map<string, string> | undefined;

/** Shared fragment definitions by name, read once. */
function fragments(): Map<string, string> {
  if (!fragmentDefinitions) {
    const doc = parse(fs.readFileSync(FRAGMENTS_PATH, 'utf8'));
    fragmentDefinitions = new Map(
      doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, print(d)]),
    );
  }
  return fragmentDefinitions;
}

/**
 * The persisted GraphQL document text of an operation, followed by the shared fragments it spreads
 * (transitively; only those, as GraphQL forbids unused fragments).
 * @throws when `schema/operations/<name>.graphql` does not exist, or it spreads an unknown fragment.
 */
export function documentText(name: string): string {
  const text = fs.readFileSync(path.join(OPERATIONS_DIR, `${name}.graphql`), 'utf8');
  const used: string[] = [];
  const visit = (source: string) => {
    for (const [, spread] of source.matchAll(/\.\.\.\s*([A-Za-z_]\w*)/g)) {
      if (spread === 'on' || used.includes(spread)) continue;
      const definition = fragments().get(spread);
      if (definition === undefined) throw new Error(`${name}: unknown fragment ${spread} (schema/fragments.graphql)`);
      used.push(spread);
      visit(definition);
    }
  };
  visit(text);
  return [text, ...used.map((f) => fragments().get(f))].join('\n');
}
