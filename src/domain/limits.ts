/**
 * The wire limits of the public API, each held once: page sizes (`limit`, `first`) with their
 * defaults, windows (`days`), offsets, list lengths and text lengths. The REST and MCP parameter
 * schemas (zod, facades/operations/) and the GraphQL argument defaults and descriptions (Pothos,
 * src/graph/) read them from here. Each cites where it comes from: a section of the contract
 * (`../shared/spec/api-spec.md`, "Limits" and the endpoint sections) or, beyond it, the issue that
 * added it. Pure data: no imports, so any layer may read it.
 *
 * The services check the same bounds with these values (their exported names, e.g.
 * src/services/search.ts PRODUCT_LIMIT, re-export them), so a bound changed here changes the zod
 * schema, the GraphQL default and description, and the service's check together.
 */

/** A page size or window: the value when the parameter is absent, and the inclusive bounds. */
export interface Bounds {
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

/** Largest value a GraphQL `Int` (32-bit signed) carries: the upper bound of ids and offsets. */
export const MAX_INT = 2_147_483_647;

/** Query text `q`: at most 100 characters (code points). api-spec "Limits" (Query text q); also `suggest` q (1 to 100). */
export const MAX_QUERY_LENGTH = 100;

/** search_products `limit`: default 40, 1 to 100. api-spec "Limits" and "Search" (GET /api/v1/search). */
export const PRODUCT_LIMIT = { default: 40, min: 1, max: 100 } as const satisfies Bounds;

/** search_listings `limit`: default 20, 1 to 100. api-spec "Limits" and "Search" (GET /api/v1/listings). */
export const LISTING_LIMIT = { default: 20, min: 1, max: 100 } as const satisfies Bounds;

/** suggest `limit`: default 8, 1 to 12. api-spec "Limits" (suggestions) and "Search" (GET /api/v1/suggestions). */
export const SUGGEST_LIMIT = { default: 8, min: 1, max: 12 } as const satisfies Bounds;

/** browse_shelf `limit`: default 48, 1 to 96. api-spec "Limits" and "Shelves". */
export const SHELF_LIMIT = { default: 48, min: 1, max: 96 } as const satisfies Bounds;

/** browse_retailer `limit`: default 60, 1 to 120. api-spec "Limits" and "Retailers". */
export const BROWSE_LIMIT = { default: 60, min: 1, max: 120 } as const satisfies Bounds;

/** get_store_listings `limit`: default 24, 1 to 96. api-spec "Limits" and "Stores and areas". */
export const STORE_LISTING_LIMIT = { default: 24, min: 1, max: 96 } as const satisfies Bounds;

/** list_deals `limit`: default 24, 1 to 96. api-spec "Limits" and "Deals". */
export const DEAL_LIMIT = { default: 24, min: 1, max: 96 } as const satisfies Bounds;

/**
 * `days` of a window ending at the last computed day: default 365, 7 to 3650. api-spec "Limits"
 * (`days`: retailers/levels, stores/{id}/levels, index/groups, index/items).
 */
export const DAYS_WINDOW = { default: 365, min: 7, max: 3650 } as const satisfies Bounds;

/**
 * `offset` of a paged list: default 0, at least 0 (api-spec "Retailers", "Shelves", "Stores and
 * areas": browse_retailer, browse_shelf, get_store_listings); at most {@link MAX_INT}, the GraphQL
 * `Int` it travels in.
 */
export const OFFSET = { default: 0, min: 0, max: MAX_INT } as const satisfies Bounds;

/** Alternatives of a product: up to 16. api-spec "Limits" (Alternatives per product) and "Products". */
export const MAX_ALTERNATIVES = 16;

/** Digits of a barcode: up to 14. api-spec "Search" (GET /api/v1/gtin/{gtin}). */
export const MAX_GTIN_DIGITS = 14;

/** Characters of the `gtin` path text before its non-digits are dropped (beyond api-spec, which leaves it open: a bound on the input). */
export const MAX_GTIN_TEXT = 64;

/** Characters of a slug parameter (retailer, shelf): the contract names the values, not a length (beyond api-spec: a bound on the input). */
export const MAX_SLUG_LENGTH = 100;

/** Characters of a kind slug (browse_shelf `kind`; beyond api-spec: a bound on the input). */
export const MAX_KIND_LENGTH = 100;

/** Characters of a place name (list_stores `town` and `area`; beyond api-spec: a bound on the input). */
export const MAX_PLACE_LENGTH = 200;

/**
 * browse_retailer's category path `c`: at most 10 levels of 1 to 200 characters each (api-spec
 * "Retailers" leaves the bounds open; issue 17 item 4).
 */
export const CATEGORY_PATH = { levels: 10, labelLength: 200 } as const;

/**
 * Page size of every GraphQL connection (`first`): default 20, 0 to 100 (beyond api-spec: issue
 * 20, the graph for dashboards; the same cap as ranked search).
 */
export const CONNECTION_SIZE = { default: 20, min: 0, max: 100 } as const satisfies Bounds;

/** plan_shopping_list `limit` (single stores and splits returned, each): default 5, 1 to 20 (beyond api-spec: issue 16). */
export const PLAN_LIMIT = { default: 5, min: 1, max: 20 } as const satisfies Bounds;

/** `radius_km` of plan_shopping_list and list_stores: default 10, 0.5 to 200 kilometres (beyond api-spec: issues 16 and 32). */
export const RADIUS_KM = { default: 10, min: 0.5, max: 200 } as const satisfies Bounds;

/** plan_shopping_list: at most 50 distinct items (beyond api-spec: issue 16). */
export const MAX_PLAN_ITEMS = 50;

/** plan_shopping_list: a quantity of 1 (the default) to 99 units (beyond api-spec: issue 16). */
export const PLAN_QTY = { default: 1, min: 1, max: 99 } as const satisfies Bounds;

/** plan_shopping_list `items` text: 50 tokens of a 10-digit id and a quantity, with room for spaces and repeats (beyond api-spec: issue 16). */
export const MAX_PLAN_ITEMS_TEXT = 2000;
