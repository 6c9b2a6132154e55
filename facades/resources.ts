/**
 * The contract's resources (api-spec "Resources and their fields") as zod schemas, declared once.
 * They are the 200 bodies of the registry's operations (`Operation.result`), and from them come the
 * OpenAPI component schemas, the MCP tools' output schemas, the field tables of llms-full.txt and
 * the response validation of the tests. Each named resource carries `id` metadata, so generated
 * documents reference it as `#/components/schemas/<id>`. Money is integer NZ cents throughout.
 */
import { z } from 'zod';
import { ExportManifest as ExportManifestSchema } from '../src/services/exports.js';
import { DEAL_KINDS } from '../src/services/deals.js';
import { SPECIAL_VERDICTS } from '../src/domain/special-check.js';
import { SHELF_COMPARE_UNITS } from '../src/domain/unit-price.js';
import { SHELF_SORTS } from '../src/services/shelves.js';
import { JOB_RUN_STATUS_STATES } from '../src/services/job-runs.js';

/** Names a schema for the generated documents (its `id` becomes the component name). */
function named<T extends z.ZodType>(id: string, description: string, schema: T): T {
  return schema.meta({ id, description });
}

/** Integer New Zealand cents. */
export const Cents = named('Cents', 'Integer New Zealand cents.', z.int());

/** A New Zealand calendar day, `YYYY-MM-DD`. */
export const Day = named('Day', 'New Zealand calendar day, YYYY-MM-DD.', z.iso.date());

/** UTC timestamp, RFC 3339. */
export const Timestamp = named('Timestamp', 'UTC timestamp, RFC 3339.', z.iso.datetime());

/** api-spec PromoKind: 1 special (everyone), 2 member/club price, 3 multibuy, 4 clearance. */
export const PromoKind = named(
  'PromoKind',
  'Who gets the promotion: 1 special (everyone), 2 member/club price (loyalty card), 3 multibuy (multibuy_qty units for multibuy_price in total), 4 clearance.',
  z.int().min(1).max(4),
);

/** api-spec ImagePath: a path on the service host to a 720 px AVIF (`_t` before `.avif` gives 200 px). */
export const ImagePath = named(
  'ImagePath',
  'Path on the service host to a 720 px AVIF; inserting _t before .avif gives the 200 px thumbnail.',
  z.string(),
);

/** api-spec unit enumeration. */
export const Unit = named('Unit', 'Unit of qty: g, ml, each or m.', z.enum(['g', 'ml', 'each', 'm']));

/** api-spec Error. */
export const ErrorBody = named(
  'Error',
  'Error body of every error response with a schema.',
  z.object({
    error: z.object({
      status: z.int().describe('HTTP status'),
      message: z.string().describe('Short text naming the parameter or thing at fault'),
      bulk_data: z.url().optional().describe('On 429: the export manifest to use instead of crawling'),
      docs: z.url().optional().describe('Where the documentation lives'),
    }),
  }),
);

/** The five promotion fields, each nullable. */
const promoFields = {
  promo_price: Cents.nullable().describe('Single-unit promotional price, cents'),
  promo_kind: PromoKind.nullable(),
  multibuy_qty: z.int().nullable().describe('Units required for multibuy_price'),
  multibuy_price: Cents.nullable().describe('Total for multibuy_qty units, cents'),
};

/** api-spec ListingCard. */
export const ListingCard = named(
  'ListingCard',
  "A listing (one chain's product) on any card, with its current national price.",
  z.object({
    id: z.int().describe('Listing id'),
    retailer: z.string().describe('Retailer slug'),
    name: z.string(),
    brand: z.string().nullable(),
    size_text: z.string().nullable().describe('Size as printed'),
    price: Cents.nullable().describe('National shelf price, cents (median across reporting stores)'),
    ...promoFields,
    image: ImagePath.nullable(),
    available: z.boolean().describe("Still on the retailer's site at last collection"),
    product_id: z.int().nullable().describe('Cross-chain product once linked'),
  }),
);

/** api-spec ProductGroup. */
export const ProductGroup = named(
  'ProductGroup',
  'One product with its offers at every chain, cheapest first; a listing not yet linked is its own group with product_id null.',
  z.object({
    product_id: z.int().nullable().describe('Null for a listing not yet linked'),
    name: z.string(),
    brand: z.string().nullable(),
    size_text: z.string().nullable(),
    image: ImagePath.nullable(),
    generic_id: z.int().nullable(),
    generic_label: z.string().nullable().describe('The generic the product belongs to'),
    offers: z.array(ListingCard).describe('Every chain\'s listing, available and cheapest first'),
  }),
);

/** api-spec Suggestion. */
export const Suggestion = named(
  'Suggestion',
  'A type-ahead suggestion.',
  z.object({
    kind: z.enum(['category', 'brand', 'product', 'listing']),
    id: z.int().nullable().describe('Product or listing id; null for categories and brands'),
    label: z.string(),
    detail: z.string().nullable(),
    href: z.string().describe('Site path to open'),
    price: Cents.nullable(),
    promo_price: Cents.nullable(),
    promo_kind: PromoKind.nullable(),
    image: ImagePath.nullable(),
  }),
);

/** api-spec Retailer. */
export const Retailer = named(
  'Retailer',
  'A supermarket chain.',
  z.object({
    slug: z.string().describe('Lowercase key used in every retailer parameter'),
    name: z.string(),
    listings: z.int().describe('Catalogue size'),
    stores: z.int().describe('Active stores in the price panel'),
    last_run: Timestamp.nullable().describe('When the catalogue was last collected'),
  }),
);

/** api-spec Store. */
export const Store = named(
  'Store',
  'A store in the price panel, with its place and basket price level.',
  z.object({
    id: z.int(),
    retailer: z.string().describe('Retailer slug'),
    name: z.string(),
    region: z.string().nullable().describe("Retailer's own region code"),
    lat: z.number(),
    lng: z.number(),
    distance_km: z
      .number()
      .nullable()
      .describe('Great-circle distance from the point given to list_stores (lat, lng), kilometres, two decimals; null without a point (and in get_store)'),
    level: z.number().nullable().describe("Basket price level vs the chain's national median (1.03 = 3 % dearer); null when too few items are priced"),
    n_items: z.int().describe('Basket items the level is computed from'),
    club: z.int().describe('Club-price promotions this week'),
    sale: z.int().describe('Specials this week'),
    multibuy: z.int().describe('Multibuys this week'),
    day: Day.nullable().describe('Latest day with prices'),
    town: z.string().describe('Nearest urban area, or "Rural <region>"'),
    area: z.string().describe('Region (regional council)'),
    urban: z.string().nullable().describe('Urban class: major, large, medium, small or rural'),
  }),
);

/** api-spec GroupLevel. */
export const GroupLevel = named(
  'GroupLevel',
  "One basket group's price level at a store.",
  z.object({
    code: z.string().describe('Basket group code'),
    name: z.string(),
    level: z.number().describe("Weighted geometric mean of store price ÷ the chain's national median over the group's basket items; 1.03 = 3 % dearer"),
    n: z.int().describe('Basket items of the group priced at the store'),
  }),
);

/** api-spec StoreListing. */
export const StoreListing = named(
  'StoreListing',
  "A listing priced at a store this week, with the chain's national median and the ratio of the two.",
  z.object({
    id: z.int().describe('Listing id'),
    name: z.string(),
    brand: z.string().nullable(),
    size_text: z.string().nullable().describe('Size as printed'),
    image: ImagePath.nullable(),
    price: Cents.describe('Shelf price at the store, cents'),
    promo_price: Cents.nullable().describe('Single-unit promotional price at the store, cents'),
    promo_kind: PromoKind.nullable(),
    median: Cents.describe("The chain's national median, cents"),
    ratio: z.number().describe('price ÷ median'),
  }),
);

/** api-spec Bin. */
export const Bin = named(
  'Bin',
  'One bin of the histogram of shelf price ÷ national median: 0 and 21 are the tails; 1 to 20 span 0.80 to 1.20 in 0.02 steps.',
  z.object({
    bucket: z.int().min(0).max(21),
    n: z.int().describe('Listings in the bin'),
  }),
);

/** api-spec StoreDetail. */
export const StoreDetail = named(
  'StoreDetail',
  "One store with its basket level, group levels, biggest markups and markdowns against its chain's national median, price spread and current deals.",
  z.object({
    store: Store,
    groups: z.array(GroupLevel).describe('Each basket group with a level at the store, by group'),
    dearer: z.array(StoreListing).max(8).describe('The eight biggest markups (ratio above 1), highest first'),
    cheaper: z.array(StoreListing).max(8).describe('The eight biggest markdowns (ratio below 1), lowest first'),
    spread: z.array(Bin).length(22).describe('Histogram of shelf price ÷ median over every listing priced at the store: all 22 bins, bucket 0 first'),
    listings_priced: z.int().describe('Listings priced at the store'),
    deals: z
      .array(ListingCard)
      .max(24)
      .describe("Current deals at the store (its own prices and promotion): special, club price or multibuy cheaper per unit than the shelf price; biggest saving (share of the shelf price) first, at most 24"),
  }),
);

/** api-spec StoreListings. */
export const StoreListings = named(
  'StoreListings',
  'One page of the listings priced at a store this week.',
  z.object({
    total: z.int().describe('Listings matching q (all pages)'),
    limit: z.int(),
    offset: z.int(),
    listings: z.array(StoreListing).describe('Dearest against the national median first (ratio descending, then listing id)'),
  }),
);

/** api-spec StoreLevels. */
export const StoreLevels = named(
  'StoreLevels',
  "A store's daily basket level, arrays aligned with days.",
  z.object({
    days: z.array(Day).describe("Days with a computed level row in the window ending at the store's last computed day, oldest first"),
    level: z.array(z.number().nullable()).describe("1.0 is the chain's national median that day; null where fewer than 20 basket items were priced"),
    items: z.array(z.int().nullable()).describe('Basket items priced at the store that day'),
  }),
);

/** api-spec Area. */
export const Area = named(
  'Area',
  'A region, urban class or town with the price level of its stores.',
  z.object({
    key: z.string(),
    label: z.string(),
    level: z.number().nullable().describe("Item-weighted geometric mean of the stores' levels (chain mix taken out); null when no store has a level"),
    stores: z.int(),
    chains: z.array(z.string()).describe('Retailer slugs with a store in the area'),
    towns: z.array(z.string()),
  }),
);

/** api-spec Areas. */
export const Areas = named(
  'Areas',
  'Store levels rolled up by region, by urban class and by town.',
  z.object({
    regions: z.array(Area),
    urban: z.array(Area).describe('By urban class, main centres first'),
    towns: z.array(Area),
  }),
);

/** api-spec CurrentPrice. */
export const CurrentPrice = named(
  'CurrentPrice',
  'The latest national span of a listing.',
  z.object({ day: Day, price: Cents, ...promoFields }),
);

/** api-spec ListingStorePrice. */
export const ListingStorePrice = named(
  'ListingStorePrice',
  "Today's price of a listing at one store.",
  z.object({
    store_id: z.int(),
    store: z.string().describe('Store name'),
    region: z.string().nullable().describe("Retailer's own region code; for a consistent place use the store's area and town"),
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    day: Day,
    price: Cents,
    ...promoFields,
  }),
);

/** api-spec DailyStats (non-empty form). */
export const DailyStats = named(
  'DailyStats',
  'Columnar daily spread of store prices: index i of every array is one day.',
  z.object({
    day: z.array(Day),
    min: z.array(Cents),
    med: z.array(Cents),
    max: z.array(Cents),
    n: z.array(z.int()).describe('Stores reporting that day'),
  }),
);

/** DailyStats, or an empty object when there are no days (api-spec DailyStats). */
export const DailyStatsOrEmpty = z.union([DailyStats, z.object({}).strict()]);

/** api-spec ListingDetail. */
export const ListingDetail = named(
  'ListingDetail',
  "One chain's listing with its national price, every store's price today and a year of daily spread.",
  z.object({
    id: z.int(),
    retailer: z.string().describe('Retailer display name'),
    retailer_slug: z.string(),
    external_id: z.string().describe("Retailer's own product id"),
    name: z.string(),
    brand: z.string().nullable(),
    size_text: z.string().nullable(),
    qty: z.number().nullable().describe('Quantity in unit'),
    unit: Unit.nullable(),
    gtin: z.int().nullable().describe('Barcode as an integer'),
    category_path: z.array(z.string()).describe("Retailer's own breadcrumb"),
    first_seen: Day,
    last_seen: Day,
    image: ImagePath.nullable(),
    available: z.boolean(),
    product_id: z.int().nullable(),
    stores_total: z.int().describe('Stores the chain has in the panel'),
    current: CurrentPrice.nullable(),
    stores: z.array(ListingStorePrice).describe('Every store pricing it today, cheapest first'),
    stats: DailyStatsOrEmpty.describe('Last 365 days; an empty object when none'),
    retailer_url: z.url().nullable().describe("The product on the retailer's site"),
  }),
);

/** api-spec History. */
export const History = named(
  'History',
  'Price spans as parallel arrays, oldest first: span i runs from from[i] to to[i] inclusive at price[i] cents.',
  z.object({
    from: z.array(Day).describe('First day of each span'),
    to: z.array(Day).describe('Last day each span was observed'),
    price: z.array(Cents).describe('Shelf price, cents'),
    promo: z.array(Cents.nullable()).describe('Promotional price, cents'),
    kind: z.array(PromoKind.nullable()),
    multibuy_qty: z.array(z.int().nullable()),
    multibuy_price: z.array(Cents.nullable()),
  }),
);

/** api-spec HistoryByRetailer. */
export const HistoryByRetailer = named(
  'HistoryByRetailer',
  'Retailer slug → History; an empty object when nothing is linked.',
  z.record(z.string(), History),
);

/** api-spec Attribute. */
export const Attribute = named('Attribute', 'A labelled product attribute.', z.object({ key: z.string(), label: z.string(), value: z.string() }));

/** api-spec Offer. */
export const Offer = named(
  'Offer',
  "One chain's listing on a product page.",
  z.object({
    id: z.int().describe('Listing id'),
    retailer: z.string().describe('Retailer slug'),
    retailer_name: z.string(),
    name: z.string(),
    brand: z.string().nullable(),
    size_text: z.string().nullable(),
    qty: z.number().nullable(),
    unit: z.string().nullable(),
    pack_count: z.int().nullable(),
    weighable: z.boolean().describe('Sold by weight'),
    price: Cents.nullable().describe('National shelf price today, cents'),
    ...promoFields,
    price_day: Day.nullable().describe('Day of the latest national observation'),
    image: ImagePath.nullable(),
    available: z.boolean(),
    last_seen: Day,
    method: z.string().describe('How the listing was linked: gtin, name, llm, manual, ...'),
    confidence: z.number().min(0).max(1),
    locked: z.boolean().describe('Pinned by a curator'),
    stores: z.int().describe('Stores with a price today; 0 for a national-only chain'),
    stores_total: z.int(),
    category_path: z.array(z.string()),
    retailer_url: z.url().nullable(),
    origin: z.string().nullable().describe('Country-of-origin statement when the retailer gives one'),
    package_type: z.string().nullable(),
  }),
);

/** api-spec Alternative. */
export const Alternative = named(
  'Alternative',
  'Another product in the same generic.',
  z.object({
    id: z.int().describe('Product id'),
    name: z.string(),
    brand: z.string().nullable(),
    size_text: z.string().nullable(),
    image: ImagePath.nullable(),
    price: Cents.nullable().describe('Cheapest current shelf price, cents'),
    retailer: z.string().nullable().describe('Where that price is'),
    retailers: z.int().describe('Chains that sell it'),
    own_brand: z.boolean().describe('A house brand'),
  }),
);

/** api-spec ProductDetail. */
export const ProductDetail = named(
  'ProductDetail',
  'One product linked across chains, with its offers and alternatives.',
  z.object({
    id: z.int(),
    name: z.string(),
    brand: z.string().nullable(),
    brand_id: z.int().nullable(),
    size_text: z.string().nullable(),
    pack_count: z.int().nullable(),
    qty: z.number().nullable(),
    unit: z.string().nullable(),
    image: ImagePath.nullable(),
    weighable: z.boolean(),
    aliases: z.array(z.string()).describe('Other names it is searched by'),
    retailers: z.int().describe('Chains that sell it'),
    gtins: z.array(z.int()).describe('Barcodes seen'),
    attributes: z.array(Attribute),
    generic_id: z.int().nullable(),
    generic_label: z.string().nullable(),
    generic_kind: z.string().nullable().describe('Slug of the kind'),
    generic_kind_label: z.string().nullable(),
    shelf_slug: z.string().nullable().describe('The most specific shelf its kind is on (browse_shelf)'),
    shelf_label: z.string().nullable(),
    compare_unit: z.string().nullable().describe('kg, l or each'),
    brand_owner: z.string().nullable().describe('Retailer slug when the brand is a house brand'),
    brand_parent: z.string().nullable().describe('Parent brand of a sub-brand'),
    offers: z.array(Offer).describe('One per linked listing, available and cheapest first'),
    alternatives: z.array(Alternative).max(16).describe('Up to 16, cheapest first'),
  }),
);

/** api-spec ProductStorePrice. */
export const ProductStorePrice = named(
  'ProductStorePrice',
  "A product's current price at one store (the store's latest collection); when two of the chain's listings are linked to the product, the cheaper.",
  z.object({
    store_id: z.int(),
    store: z.string().describe('Store name'),
    retailer: z.string().describe('Retailer slug'),
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    price: Cents.describe('Shelf price, cents'),
    ...promoFields,
  }),
);

/** api-spec Spread. */
export const Spread = named(
  'Spread',
  "Daily store spread of a product at one chain, oldest day first: index i of every array is one day.",
  z.object({
    day: z.array(Day),
    min: z.array(Cents).describe('Cheapest store shelf price, cents'),
    med: z.array(Cents).describe('Median store shelf price, cents'),
    max: z.array(Cents).describe('Dearest store shelf price, cents'),
    n: z.array(z.int()).describe('Stores reporting that day'),
  }),
);

/** api-spec SpreadByRetailer. */
export const SpreadByRetailer = named(
  'SpreadByRetailer',
  'Retailer slug → Spread over the last 365 days; an empty object when nothing linked has store prices.',
  z.record(z.string(), Spread),
);

/** A number or null, for the columnar series of the index. */
const numberOrNull = z.number().nullable();

/** api-spec IndexLatest. */
export const IndexLatest = named(
  'IndexLatest',
  "The food-price index (a nowcast of Stats NZ's Food Price Index, not an official statistic) on its last computed day.",
  z.object({
    as_of: Day.describe('The last computed day of the index (not necessarily today: it follows the price data)'),
    headline: z
      .object({
        value: z.number().describe('All food, anchored level (the official base is 1000); the raw level when no official month overlaps'),
        d1: z.number().nullable().describe('Percent change over one day; null when the day before was not computed'),
        d30: z.number().nullable().describe('Percent change over 30 days; null when the day 30 days earlier was not computed'),
        yoy: z.number().nullable().describe('Percent change over 365 days; null when the day a year earlier was not computed'),
      })
      .describe('All food that day'),
    coverage: z
      .object({
        weight: z.number().min(0).max(1).describe('Share of the observable basket weight with a counted listing'),
        listings: z.int().describe('Listings counted'),
        items: z.int().describe('Basket items counted'),
      })
      .describe('What all food observed that day'),
    groups: z
      .array(
        z.object({
          code: z.string().describe('Basket group code'),
          name: z.string(),
          value: z.number().describe('Anchored level; the raw level when no official month overlaps'),
          coverage: z.number().describe("Share (0 to 1) of the group's weight observed"),
        }),
      )
      .describe('The observable basket groups, by id'),
    sparkline: z
      .object({
        t0: Day.nullable().describe('Day of the first value'),
        v: z.array(z.number()).describe('One value per consecutive day from t0'),
      })
      .describe('The headline series over the last 90 days (from the latest day without a value)'),
  }),
);

/** api-spec IndexPoint. */
export const IndexPoint = named(
  'IndexPoint',
  'All food (group 0) or one basket group on one computed day.',
  z.object({
    day: Day,
    group_id: z.int().describe('0 is all food, else a basket group id'),
    raw: z.number().describe("Chained series, base 1000 on the index's first day"),
    anchored: z.number().nullable().describe('Raw anchored to the last official monthly value (official base 1000); null when none overlaps'),
    coverage: z.number().describe('Share (0 to 1) of the observable basket weight with a counted listing'),
  }),
);

/** api-spec GroupSeries. */
export const GroupSeries = named(
  'GroupSeries',
  'All food or one basket group over a window: arrays aligned with days, null where it has no value.',
  z.object({
    id: z.int().describe('0 is all food, else a basket group id'),
    code: z.string().describe('`all` for all food, else the basket group code'),
    name: z.string(),
    weight: z.number().describe('Basket weight, percent: 100 for all food, the official group weight for a group'),
    anchored: z.array(numberOrNull),
    raw: z.array(numberOrNull),
    coverage: z.array(numberOrNull),
  }),
);

/** api-spec IndexGroups. */
export const IndexGroups = named(
  'IndexGroups',
  "All food and the basket groups over the computed days of a window ending at the index's last computed day.",
  z.object({
    days: z.array(Day).describe('Computed days of the window, oldest first'),
    groups: z.array(GroupSeries).describe('All food first, then the groups by id'),
  }),
);

/** One month of the track record (beyond the contract, issue 30). */
export const ValidationMonth = named(
  'ValidationMonth',
  'One month of an aggregate: changes in percent against the previous month, errors in percentage points (nowcast − official).',
  z.object({
    month: z.string().regex(/^\d{4}-\d{2}$/).describe('YYYY-MM'),
    official: numberOrNull.describe("Stats NZ's monthly change, %; null without both official months"),
    nowcast: numberOrNull.describe("Change of the means of the two months' daily raw values, %; null without the previous month"),
    error: numberOrNull.describe('nowcast − official, pp'),
    first_days: numberOrNull.describe('Change of the means of days 1 to first_days of the two months (the early estimate), %'),
    first_days_error: numberOrNull.describe('first_days − official, pp'),
    coverage: z.number().describe("Mean over the month's computed days of the share (0 to 1) of observable weight with a counted listing"),
    days: z.int().describe('Days of the month the index computed'),
    complete: z.boolean().describe('Every calendar day computed with coverage above 0'),
    counted: z.boolean().describe('In the summary: complete, with an official and a nowcast change'),
  }),
);

/** The latest month's estimate with an interval (beyond the contract, issue 30 item 3). */
export const MonthEstimate = named(
  'MonthEstimate',
  "The estimate of the latest month's change as of its last observed day: final once the month is complete, else the same-day estimate (days 1 to through_day of the month and of the previous one), with a prediction interval from the same estimate's errors in the earlier counted months.",
  z.object({
    month: z.string().regex(/^\d{4}-\d{2}$/).describe('YYYY-MM'),
    as_of: Day.describe('Last day of the month observed: the day the estimate describes'),
    days: z.int().describe('Days of the month the index computed'),
    final: z.boolean().describe("The month is complete: change is the nowcast's final change"),
    through_day: z.int().describe("Days 1 to through_day of both months are compared (the month's length when final)"),
    change: numberOrNull.describe('Estimated monthly change, %; null without the previous month'),
    low: numberOrNull.describe('Lower end of the interval, %; null with fewer than 3 past errors'),
    high: numberOrNull.describe('Upper end of the interval, %'),
    level: z.number().describe('Two-sided level of the interval: change ± Student t quantile (n degrees of freedom) × past RMSE'),
    past_months: z.int().describe('Earlier counted months whose errors give the interval'),
    past_rmse: numberOrNull.describe('Root mean square of those errors, pp'),
    official: numberOrNull.describe("Stats NZ's change when published, else null"),
    error: numberOrNull.describe('change − official, pp'),
  }),
);

/** The track record of one aggregate (beyond the contract, issue 30). */
export const ValidationAggregate = named(
  'ValidationAggregate',
  'All food or one observable basket group against its official Stats NZ series.',
  z.object({
    id: z.int().describe('0 is all food, else a basket group id'),
    code: z.string().describe('`all` for all food, else the basket group code'),
    name: z.string(),
    series_ref: z.string().describe('The Stats NZ series compared with'),
    summary: z
      .object({
        months: z.int().describe('Counted months'),
        nowcast_mae: numberOrNull.describe('Mean absolute error of the nowcast, pp; null when no month counts'),
        first_days_mae: numberOrNull.describe('Mean absolute error of the first-days estimate, pp'),
        flat_mae: numberOrNull.describe('Mean absolute error of the flat forecast (0 % every month), pp'),
      })
      .describe('Over the counted months'),
    months: z.array(ValidationMonth).describe('Every month the index computed, oldest first'),
    estimate: MonthEstimate.nullable().describe('The latest month computed, with an interval; null without index days'),
  }),
);

/** The nowcast's track record (beyond the contract, issue 30). */
export const IndexValidation = named(
  'IndexValidation',
  "The nowcast's track record against Stats NZ's Food Price Index, month by month, with mean absolute errors against the flat forecast (beyond the contract).",
  z.object({
    method: z.string().describe('The nowcast method'),
    first_days: z.int().describe('Days of the month (from the 1st) the early estimate uses'),
    aggregates: z.array(ValidationAggregate).describe('All food first, then the observable groups by id'),
    unobservable: z
      .array(
        z.object({
          id: z.int(),
          code: z.string(),
          name: z.string(),
          series_ref: z.string(),
          reason: z.string().describe('Why the group cannot be observed on shelves'),
        }),
      )
      .describe('Basket groups with no nowcast, and why'),
  }),
);

/** api-spec ItemSeries. */
export const ItemSeries = named(
  'ItemSeries',
  "One observable basket item's relative price over a window, aligned with days.",
  z.object({
    id: z.int().describe('Basket item id'),
    name: z.string(),
    group: z.string().describe('Basket group code'),
    weight: z.number().describe('Weight, percent of the basket'),
    per_unit: z.boolean().describe('Compared per kg or litre instead of per pack'),
    spec: z.string().nullable().describe('The official representative size'),
    unit: Unit.nullable().describe('Dimension of the specification'),
    relative: z.array(numberOrNull).describe("1.0 is the item's level on its base day; null where the day was not computed"),
    n: z.array(z.int().nullable()).describe('Listings feeding the item that day; 0 means carried forward'),
  }),
);

/** api-spec IndexItems. */
export const IndexItems = named(
  'IndexItems',
  "One series per observable basket item over the computed days of a window ending at the index's last computed day.",
  z.object({
    days: z.array(Day).describe('Computed days of the window, oldest first'),
    items: z.array(ItemSeries).describe('By group id, then name'),
  }),
);

/** The origin of a basket match. */
const MatchOrigin = z.enum(['auto', 'manual']).describe('auto: the matcher; manual: a curator');

/** api-spec BasketMatch. */
export const BasketMatch = named(
  'BasketMatch',
  'A listing currently matched to a basket item, with its latest national price.',
  z.object({
    listing_id: z.int(),
    retailer: z.string().describe('Retailer slug'),
    name: z.string(),
    brand: z.string().nullable(),
    size_text: z.string().nullable(),
    origin: MatchOrigin,
    locked: z.boolean().describe('Pinned by a curator'),
    valid_from: Day.describe('First day the match counts'),
    price: Cents.nullable().describe('National shelf price of the latest span, cents (per kg when sold by weight)'),
    promo_price: Cents.nullable().describe('Special or club price of the latest span, cents, when one applies'),
    confidence: z.number().nullable().describe("The matcher's confidence, 0 to 1"),
    ref_price: Cents.nullable().describe("Basis price when matched (base of the link factor), cents on the item's basis, rounded"),
    linked_relative: z.number().nullable().describe("The item's relative when the listing joined"),
    image: ImagePath.nullable(),
  }),
);

/** api-spec BasketItem. */
export const BasketItem = named(
  'BasketItem',
  'One representative item of the official Food Price Index basket.',
  z.object({
    id: z.int(),
    code: z.string().describe("Official classification code (CPIM.SAP…), or the service's own stable code (NZGP.…)"),
    name: z.string(),
    group_code: z.string(),
    group_name: z.string(),
    group_weight: z.number().describe("The group's weight, percent of the basket"),
    weight: z.number().describe('Percent within the basket'),
    observable: z.boolean().describe('Whether the group is observable on supermarket shelves'),
    per_unit: z.boolean().describe('Compared per kg or litre instead of per pack'),
    keywords: z.array(z.string()).describe('Phrases that match a listing name'),
    exclude: z.array(z.string()).describe('Phrases that refuse a listing'),
    matches: z.int().describe('Listings currently matched'),
    spec: z.string().nullable().describe('The size specification priced'),
    unit: Unit.nullable().describe('Dimension of the specification'),
    qty_min: z.number().nullable().describe('Smallest admitted pack, in unit'),
    qty_max: z.number().nullable().describe('Largest admitted pack, in unit'),
    relative: z.number().nullable().describe('Latest relative price, 1.0 = base; null before any computation'),
    stale: z.boolean().nullable().describe('Carried forward past the staleness cap on the latest computed day'),
    match_list: z.array(BasketMatch).optional().describe('Only with include=matches'),
  }),
);

/** api-spec BasketItemListing. */
export const BasketItemListing = named(
  'BasketItemListing',
  'A listing currently matched to a basket item, with the price that counts on the item\'s basis.',
  z.object({
    listing_id: z.int(),
    retailer: z.string().describe('Retailer slug'),
    name: z.string(),
    weighable: z.boolean().describe('Sold loose by weight; the price is per kilogram'),
    valid_from: Day.describe('First day the match counts'),
    origin: MatchOrigin,
    available: z.boolean().describe("Still on the retailer's site at the chain's last collection"),
    brand: z.string().nullable(),
    size_text: z.string().nullable(),
    qty: z.number().nullable().describe('Pack quantity in unit'),
    unit: Unit.nullable(),
    price: Cents.nullable().describe('National shelf price of the latest span, cents'),
    promo_price: Cents.nullable().describe('Special or club price of the latest span, cents, when one applies'),
    basis_price: z
      .number()
      .nullable()
      .describe("The price that counts, cents on the item's basis (to hundredths of a cent): per kg or litre for a per-unit item with a weight or volume pack, else per pack; a special counts, a club price does not"),
    priced_on: Day.nullable().describe('Last day the price was seen (end of the latest national span); more than 14 days before the index day, it does not count'),
    image: ImagePath.nullable(),
  }),
);

/** api-spec BasketItemDetail. */
export const BasketItemDetail = named(
  'BasketItemDetail',
  'One basket item with every listing currently matched, by retailer then basis price.',
  z.object({
    id: z.int(),
    name: z.string(),
    group: z.string().describe('Basket group code'),
    group_name: z.string(),
    per_unit: z.boolean(),
    weight: z.number().describe('Percent within the basket'),
    spec: z.string().nullable(),
    unit: Unit.nullable(),
    listings: z.array(BasketItemListing).describe('Every open match: by retailer slug, then basis price (unpriced last), then listing id'),
  }),
);

/** A chain's level with the basket items it is computed from (api-spec Compare: the pair [level number, items integer]). */
const LevelPair = z
  .tuple([z.number().describe('Level, 1.0 = the cross-chain median'), z.int().describe('Basket items the level is computed from')])
  .describe('[level, items]: 1.0 is the cross-chain median, 0.92 means 8 % cheaper');

/** api-spec Compare. */
export const Compare = named(
  'Compare',
  'Each basket item priced at each chain from national medians (specials count, club prices do not), with weighted headline and group levels; 1.0 is the cross-chain median.',
  z.object({
    retailers: z.array(z.string()).describe('Slugs of the chains compared (any basket item priced), largest catalogue first'),
    headline: z.record(z.string(), LevelPair).describe('Retailer slug → [level, items], all food; a chain with too few comparable items is left out'),
    groups: z
      .array(
        z.object({
          code: z.string().describe('Basket group code'),
          name: z.string(),
          weight: z.number().describe("The group's weight, percent of the basket"),
          levels: z.record(z.string(), LevelPair).describe('Retailer slug → [level, items] over the group; a chain without a level is left out'),
        }),
      )
      .describe('The observable basket groups, by id'),
    items: z
      .array(
        z.object({
          id: z.int().describe('Basket item id'),
          name: z.string(),
          group: z.string().describe('Basket group code'),
          per_unit: z.boolean().describe('Prices per kg or litre rather than per pack'),
          prices: z.record(z.string(), Cents).describe("Retailer slug → median national price of the chain's matched listings, cents on the item's basis"),
          spec: z.string().nullable().describe('The official size specification'),
          unit: Unit.nullable().describe('Dimension of the specification'),
        }),
      )
      .describe('Basket items priced at one chain or more, by group id then name'),
  }),
);

/** api-spec LevelSeries. */
export const LevelSeries = named(
  'LevelSeries',
  "One chain's all-food level per day, aligned with the days of its RetailerLevels; null where the chain has no value.",
  z.object({
    retailer: z.string().describe('Retailer slug'),
    level: z.array(numberOrNull).describe('1.0 is the cross-chain median that day'),
    items: z.array(z.int().nullable()).describe('Basket items priced that day'),
  }),
);

/** api-spec RetailerLevels. */
export const RetailerLevels = named(
  'RetailerLevels',
  "Every chain's all-food level (compare_retailers' headline) for each day the index computed in a window ending at its last computed day.",
  z.object({
    days: z.array(Day).describe("The index's computed days in the window, oldest first"),
    retailers: z.array(LevelSeries).describe('Chains with a level in the window, largest catalogue first'),
  }),
);

/** api-spec Deals. */
export const Deals = named(
  'Deals',
  'One page of current promotions of one kind, biggest saving first, with the size of the whole filtered feed.',
  z.object({
    kind: z.enum(DEAL_KINDS).describe('special: everyone; member: loyalty card; multibuy: only if the set is taken'),
    total: z.int().describe('Size of the whole feed under the filters'),
    listings: z.array(ListingCard).describe('The page requested'),
  }),
);

/** api-spec CategoryNode: a child category of a chain's own tree (browse_retailer). */
export const CategoryNode = named(
  'CategoryNode',
  "A child category in a chain's own category tree, with its listing count.",
  z.object({
    label: z.string().describe("The chain's label, exactly as it names the category"),
    listings: z.int().describe('Listings under the node (at or below it); matches when q is set'),
  }),
);

/** api-spec RetailerBrowse (browse_retailer). */
export const RetailerBrowse = named(
  'RetailerBrowse',
  "One node of a chain's own category tree: its child categories, the listings at and below it and one page of them.",
  z.object({
    retailer: Retailer,
    path: z.array(z.string()).describe('Category path asked for, outermost first ([] for the top of the tree)'),
    categories: z.array(CategoryNode).describe('Child categories, biggest first, then label'),
    total: z.int().describe('Listings at and below the node, matching q'),
    limit: z.int(),
    offset: z.int(),
    listings: z.array(ListingCard).describe('The page: by name (lower-cased, code-point order), then id'),
    q: z.string().describe('Filter echoed (trimmed); "" when none'),
  }),
);

/**
 * Beyond the contract (issue 16 item 6, check_special): one current promotion of a listing against
 * its own national history in the 90 days before the promotion started (src/domain/special-check.ts).
 */
export const SpecialCheck = named(
  'SpecialCheck',
  "A current promotion compared with the listing's own national price history in the 90 days before it started. Cents per unit (per kg when sold by weight).",
  z.object({
    kind: z.enum(DEAL_KINDS).describe('special: everyone; member: loyalty card; multibuy: only if the set is taken'),
    verdict: z
      .enum(SPECIAL_VERDICTS)
      .describe(
        'The first that applies: insufficient_history (under 28 observed days in the window), no_usual_price (on a special every observed day), inflated (the shelf price rose within 30 days before and the promo price is not below the price before the rise), above_usual (not below the usual price), not_lowest (a shopper paid less within the window), genuine',
      ),
    promo_price: z.number().describe('Unit price on the promotion, cents (multibuy: set price ÷ set size, may be fractional)'),
    shelf_price: Cents.describe('Current shelf price, cents'),
    promo_since: Day.describe('First day of the current unbroken run of this promotion'),
    window_from: Day.describe('First day of the window: promo_since − 90'),
    window_to: Day.describe('Last day of the window: promo_since − 1'),
    days_observed: z.int().describe('Window days with a known price'),
    promo_days: z.int().describe('Observed window days on a promotion of the same kind'),
    usual_price: Cents.nullable().describe('Shelf price in force on the most observed window days without a special (ties: the most recent); null when none'),
    lowest_price: Cents.nullable().describe('Lowest price paid for one unit without a loyalty card in the window (shelf or special price); null when no day was observed'),
    lowest_shelf_price: Cents.nullable().describe('Lowest shelf price of the window'),
    shelf_rise: z
      .object({
        from: Cents.describe('Shelf price before the rise'),
        to: Cents.describe('Shelf price on the day the promotion started'),
        day: Day.describe('First day at the higher price'),
      })
      .nullable()
      .describe('A shelf-price rise within 30 days before promo_since; null when none'),
    saving_vs_usual: z.number().nullable().describe('usual_price − promo_price, cents (negative: dearer than usual); null without a usual price'),
  }),
);

/** Beyond the contract (issue 16 item 6): check_special's body. */
export const SpecialChecks = named(
  'SpecialChecks',
  "A listing's current promotions, each checked against its own price history; empty when it is on no deal.",
  z.object({
    listing_id: z.int(),
    checks: z.array(SpecialCheck).describe('One per current deal kind (special, member, multibuy); [] when none'),
  }),
);

/** Beyond the contract (issue 32 item 2): one window's low of a listing (src/domain/lows.ts). */
export const ListingLow = named(
  'ListingLow',
  'The lowest price a shopper without a loyalty card paid for one unit in a window: the shelf price, or a special open to everyone (never a club, multibuy or clearance price), from the national series, prices that held fewer than min_days days in a row ignored.',
  z.object({
    price: Cents.describe('Lowest no-card price, cents (per kg when sold by weight)'),
    day: Day.describe('The most recent day of the window it was paid'),
    days: z.int().describe('Days of the window it was paid'),
    stores: z
      .int()
      .nullable()
      .describe("Stores of the chain whose own no-card price was this on that day; null when no store price covers the day (a national-only chain, or a day known only from the chain's national price log)"),
  }),
);

/** Beyond the contract (issue 32 item 2): one window's low of a product, with the listing that paid it. */
export const ProductLow = named(
  'ProductLow',
  "A ListingLow across a product's linked listings: the lowest of theirs (ties: the most recent day, then more stores, then the lower listing id), with the listing and chain.",
  z.object({
    price: Cents.describe('Lowest no-card price, cents (per kg when sold by weight)'),
    day: Day.describe('The most recent day of the window it was paid'),
    days: z.int().describe('Days of the window the listing paid it'),
    stores: z.int().nullable().describe('Stores of its chain whose own no-card price was this on that day; null when no store price covers the day'),
    listing_id: z.int().describe('The listing that paid it'),
    retailer: z.string().describe("Its chain's slug"),
  }),
);

/** The lows windows of a ListingLows or ProductLows body, with `low` the window type. */
function lowsWindows<T extends z.ZodType>(low: T) {
  return {
    as_of: Day.nullable().describe('Last observed day the windows end at (the data, not today); null when never priced'),
    min_days: z.int().describe('Prices that held fewer days than this in a row were ignored'),
    last_90_days: low.nullable().describe('as_of − 89 … as_of; null when no price in it'),
    last_365_days: low.nullable().describe('as_of − 364 … as_of; null when no price in it'),
    all_time: low.nullable().describe('All history; null when never priced'),
  };
}

/** Beyond the contract (issue 32 item 2): get_listing_lows' body. */
export const ListingLows = named(
  'ListingLows',
  "A listing's historical lows: the lowest no-card price over the last 90 days, the last 365 days and all history.",
  z.object({ listing_id: z.int(), ...lowsWindows(ListingLow) }),
);

/** Beyond the contract (issue 32 item 2): get_product_lows' body. */
export const ProductLows = named(
  'ProductLows',
  "A product's historical lows across its linked listings: the lowest no-card price over the last 90 days, the last 365 days and all history.",
  z.object({ product_id: z.int(), ...lowsWindows(ProductLow) }),
);

/** Beyond api-spec (issue 16 item 7): a store of a ShoppingList. */
export const ShoppingListStore = named(
  'ShoppingListStore',
  'A store of a shopping-list plan (beyond the contract).',
  z.object({
    id: z.int().describe('Store id (see get_store)'),
    retailer: z.string().describe('Retailer slug'),
    name: z.string(),
    town: z.string().describe('Nearest urban area, or "Rural <region>"'),
    lat: z.number(),
    lng: z.number(),
    day: Day.describe("The store's last collection day"),
    distance_km: z.number().nullable().describe('Great-circle distance from lat/lng, km (two decimals); null without lat/lng'),
  }),
);

/** Beyond api-spec (issue 16 item 7): one item of a shopping list bought at one store. */
export const ShoppingLine = named(
  'ShoppingLine',
  'One item of a shopping list bought at one store (beyond the contract).',
  z.object({
    ref: z.string().describe('The item (ShoppingList items[].ref)'),
    store_id: z.int().describe('The store it is bought at'),
    listing_id: z.int().describe("The listing bought: for a product item, its linked listing whose line costs least at the store (then the lower id)"),
    qty: z.int(),
    price: Cents.describe('Shelf price of one unit at the store, cents (per kg for a weighable listing)'),
    cost: Cents.describe('What qty units cost there, cents: the cheapest of shelf price × qty, special × qty, club price × qty (member=true only) and the multibuy (sets at multibuy_price, the rest at the shelf price)'),
    promo: z.enum(DEAL_KINDS).nullable().describe('The promotion cost uses (special, member: club price, multibuy); null for the shelf price'),
    since: Day.describe('First day this price has held at the store'),
  }),
);

/** Beyond api-spec (issue 16 item 7): the cheapest place for a whole list (plan_shopping_list). */
export const ShoppingList = named(
  'ShoppingList',
  "The cheapest single stores and two-store splits for a shopping list, with what is missing where, from each store's current prices (beyond the contract: issue 16).",
  z.object({
    items: z
      .array(
        z.object({
          ref: z.string().describe('p<product id> or l<listing id>: how lines and missing name the item'),
          product_id: z.int().nullable().describe("The product; for a listing item its linked product (null when unlinked)"),
          listing_id: z.int().nullable().describe('The listing of a listing item; null for a product item'),
          name: z.string().describe('Product or listing name'),
          qty: z.int().describe('Units (kg for a weighable listing); repeats of one item added'),
        }),
      )
      .describe('The list, repeats merged, in first-seen order'),
    stores_considered: z.int().describe('Stores (of the retailer, within the radius) pricing at least one item'),
    single: z
      .array(
        z.object({
          store: ShoppingListStore,
          total: Cents.describe('Σ cost of the lines (the items the store prices), cents'),
          missing: z.array(z.string()).describe('Refs of the items the store does not price, in list order'),
          lines: z.array(ShoppingLine).describe('One per item priced, in list order'),
        }),
      )
      .describe('The best stores alone, at most limit: fewest missing items, then lowest total, then nearest, then store id'),
    split: z
      .array(
        z.object({
          stores: z.array(ShoppingListStore).length(2).describe('The two stores, the better one alone first'),
          total: Cents.describe('Σ cost of the lines, cents'),
          saving: Cents.describe('Cents saved over the first store alone on the items it prices (≥ 0)'),
          missing: z.array(z.string()).describe('Refs of the items priced at neither store, in list order'),
          lines: z.array(ShoppingLine).describe('One per item bought, in list order, each at the store store_id names (the cheaper one; a tie at the first)'),
        }),
      )
      .describe('The best splits over two stores, at most limit, each item bought where it costs less; only splits beating both their stores alone (fewer missing, or as many and a lower total); fewest missing, then lowest total'),
  }),
);

/** Beyond the contract (issue 26): an inclusive range of days on which nothing was collected. */
export const DayGap = named(
  'DayGap',
  'An inclusive range of days on which nothing was collected (beyond the contract).',
  z.object({
    from: Day.describe('First day of the range'),
    to: Day.describe('Last day of the range (inclusive)'),
    days: z.int().min(1).describe('Days in the range'),
  }),
);

/** Beyond the contract (issue 26): one chain's data status. */
export const RetailerStatus = named(
  'RetailerStatus',
  "How old one chain's data is (beyond the contract).",
  z.object({
    slug: z.string().describe('Retailer slug'),
    name: z.string(),
    first_day: Day.nullable().describe('First collection day of the chain; null when never collected'),
    last_day: Day.nullable().describe('Last collection day of the chain; null when never collected'),
    last_run: Timestamp.nullable().describe('When its prices were last collected; null when never'),
    days_since: z.int().nullable().describe('Today − last_day, in days; null when never collected'),
    stale: z.boolean().describe('days_since over stale_after_days, or never collected'),
    stores_active: z.int().describe('Active stores of the chain (0 for a national-only chain)'),
    stores_collected: z.int().describe('Stores collected on last_day'),
    listings_seen: z.int().describe('Listings observed on last_day (0 when never collected)'),
    run: z
      .object({
        status: z.string().describe('running, finished, aborted or failed'),
        day: Day.describe('The day the run collects'),
        started_at: Timestamp.describe('When the run started'),
        finished_at: Timestamp.nullable().describe('When it ended; null while running or when it was killed'),
        scopes: z.int().describe('Scopes (stores, or the nation) of the run'),
        collected: z.int().describe('Scopes this run collected'),
        failed: z.int().describe('Scopes that failed'),
        error: z.string().nullable().describe('Why the run failed or was aborted; null otherwise'),
      })
      .nullable()
      .describe("The chain's newest collector run; null when the collector never ran for it"),
    gaps: z.array(DayGap).describe('Ranges of days between first_day and last_day with no collection of the chain, oldest first'),
  }),
);

/** Beyond the contract (issue 28, get_data_status `jobs`): the newest run of one job. */
export const JobRunStatus = named(
  'JobRunStatus',
  "The newest run of one of the worker's jobs (beyond the contract).",
  z.object({
    job: z.string().describe('The job\'s name: import, ingest, collect, match, images, search-sync, search-reindex, basket-match, index, views, export…'),
    state: z.enum(JOB_RUN_STATUS_STATES).describe('interrupted: it was queued or running when its process went away'),
    queued_at: Timestamp.describe('When a pipeline planned it (or, run alone, when it started)'),
    started_at: Timestamp.nullable().describe('When it started; null while queued'),
    finished_at: Timestamp.nullable().describe('When it finished or failed; null otherwise'),
    seconds: z.number().nullable().describe('How long it ran, in seconds; null unless it finished or failed'),
    changed: z.string().nullable().describe("What it changed in the data served (the data version's note); null when nothing"),
    error: z.string().nullable().describe('Why it failed; null unless failed'),
  }),
);

/** Beyond the contract (issue 26, get_data_status): how old the data is. */
export const DataStatus = named(
  'DataStatus',
  'How old the data is: the newest collection day, whether every chain is current, the days nothing was collected, and each chain\'s status (beyond the contract).',
  z.object({
    today: Day.describe('Today in New Zealand when answered'),
    newest_day: Day.nullable().describe('Newest collection day over every chain; null when nothing has been collected'),
    fresh: z.boolean().describe('True when some chain has been collected and every chain that has been collected was last collected within stale_after_days days'),
    stale_after_days: z.int().describe('A chain not collected for more than this many days is stale'),
    cap_days: z.int().describe('The staleness cap in days: a price observed longer ago no longer counts as current'),
    gaps: z.array(DayGap).describe('Ranges of days between the first and the newest collection day on which no chain was collected, oldest first'),
    retailers: z.array(RetailerStatus).describe('Every chain by slug, also those never collected'),
    computing: z
      .array(z.string())
      .describe('The jobs queued or running now, in the order planned; empty when nothing is being computed. While not empty, figures derived from the prices (matches, the index, levels, shelves, suggestions) may still change or be missing'),
    jobs: z.array(JobRunStatus).describe('The newest run of every job, by name'),
  }),
);

/** api-spec ShelfSummary (list_shelves; browse_shelf shelf, crumbs, children). */
export const ShelfSummary = named(
  'ShelfSummary',
  'A shelf of the curated directory with its product count.',
  z.object({
    slug: z.string(),
    label: z.string(),
    depth: z.int().min(1).max(3).describe('1 department, 2 aisle, 3 curated sub-shelf'),
    parent: z.string().nullable().describe('Parent shelf slug; null at a department'),
    products: z.int().describe('Products with a current offer on the shelf or below it, at the last build of the shelves view'),
    compare_unit: z
      .enum(SHELF_COMPARE_UNITS)
      .nullable()
      .describe("Unit the per-unit sort compares on; null on a department or aisle whose sub-shelves compare in different units"),
  }),
);

/**
 * api-spec ShelfProduct `best` (the contract does not show its type; this service's decision): the
 * product's cheapest admitted offer as an object naming its chain, listing and promotion.
 */
export const ShelfBest = named(
  'ShelfBest',
  "A shelf product's cheapest admitted offer: specials, club prices and multibuy rates count (clearance does not). With the retailer filter, that chain's offer.",
  z.object({
    price: z.number().describe('Cents for one unit (per kg when sold by weight); an integer except for a multibuy rate (multibuy_price ÷ multibuy_qty, to a hundredth of a cent)'),
    retailer: z.string().describe('Retailer slug of the offer'),
    listing_id: z.int().describe('The listing of the offer'),
    promo_kind: PromoKind.nullable().describe('1 special, 2 club price, 3 multibuy; null when the best is the shelf price'),
    shelf_price: Cents.describe("That listing's shelf price, cents (best.price < shelf_price on a deal)"),
  }),
);

/** api-spec ShelfProduct: a ProductGroup with `best` and `per_unit`. */
export const ShelfProduct = named(
  'ShelfProduct',
  'A product on a shelf: its ProductGroup fields (offers at every chain, available and cheapest first), its best admitted offer and that price per the shelf\'s compare unit.',
  ProductGroup.extend({
    best: ShelfBest,
    per_unit: z
      .number()
      .nullable()
      .describe("best.price per the shelf's compare unit (page `unit`), cents to a hundredth; null when the product is not measured in that unit (sorted last by per_unit and per_unit_desc) and on a shelf whose unit is null"),
  }),
);

/** api-spec ShelfPage (browse_shelf). */
export const ShelfPage = named(
  'ShelfPage',
  'One page of a shelf, filtered and sorted server-side across the whole set, with a true total and facets.',
  z.object({
    shelf: ShelfSummary,
    crumbs: z.array(ShelfSummary).describe('Root first, the shelf itself last'),
    children: z.array(ShelfSummary).describe('Direct sub-shelves'),
    unit: z.enum(SHELF_COMPARE_UNITS).nullable().describe('Unit family of the per-unit sort: the shelf\'s compare unit (null: per_unit is null and the per-unit sorts order by price)'),
    kinds: z
      .array(z.object({ slug: z.string(), label: z.string(), products: z.int() }))
      .describe('Kinds under the current filters except kind, most products first (then slug); each count is the total with that kind chosen'),
    retailers: z
      .array(z.object({ slug: z.string(), products: z.int() }))
      .describe('Chains stocking the current set under the current filters except retailer, most products first (then slug); each count is the total with that chain chosen'),
    total: z.int().describe('Products in the set under the current filters'),
    params: z
      .object({
        sort: z.enum(SHELF_SORTS),
        retailer: z.string().nullable(),
        deals: z.boolean(),
        kind: z.string().nullable(),
        q: z.string().describe('"" when none'),
        limit: z.int(),
        offset: z.int(),
      })
      .describe('The request as applied (sort: relevance without words in q is popular)'),
    products: z.array(ShelfProduct),
  }),
);

/** TypeScript types of the resources. */
export type ListingCard = z.infer<typeof ListingCard>;
export type ShelfSummary = z.infer<typeof ShelfSummary>;
export type ShelfProduct = z.infer<typeof ShelfProduct>;
export type ShelfPage = z.infer<typeof ShelfPage>;
export type ProductGroup = z.infer<typeof ProductGroup>;
export type Suggestion = z.infer<typeof Suggestion>;
export type Retailer = z.infer<typeof Retailer>;
export type Store = z.infer<typeof Store>;
export type GroupLevel = z.infer<typeof GroupLevel>;
export type StoreListing = z.infer<typeof StoreListing>;
export type Bin = z.infer<typeof Bin>;
export type StoreDetail = z.infer<typeof StoreDetail>;
export type StoreListings = z.infer<typeof StoreListings>;
export type StoreLevels = z.infer<typeof StoreLevels>;
export type Area = z.infer<typeof Area>;
export type Areas = z.infer<typeof Areas>;
export type CurrentPrice = z.infer<typeof CurrentPrice>;
export type ListingStorePrice = z.infer<typeof ListingStorePrice>;
export type DailyStats = z.infer<typeof DailyStats>;
export type ListingDetail = z.infer<typeof ListingDetail>;
export type History = z.infer<typeof History>;
export type HistoryByRetailer = z.infer<typeof HistoryByRetailer>;
export type ProductStorePrice = z.infer<typeof ProductStorePrice>;
export type Spread = z.infer<typeof Spread>;
export type SpreadByRetailer = z.infer<typeof SpreadByRetailer>;
export type Offer = z.infer<typeof Offer>;
export type Alternative = z.infer<typeof Alternative>;
export type ProductDetail = z.infer<typeof ProductDetail>;
export type ErrorBody = z.infer<typeof ErrorBody>;
export type IndexLatest = z.infer<typeof IndexLatest>;
export type IndexPoint = z.infer<typeof IndexPoint>;
export type GroupSeries = z.infer<typeof GroupSeries>;
export type IndexGroups = z.infer<typeof IndexGroups>;
export type ItemSeries = z.infer<typeof ItemSeries>;
export type IndexItems = z.infer<typeof IndexItems>;
export type BasketMatch = z.infer<typeof BasketMatch>;
export type BasketItem = z.infer<typeof BasketItem>;
export type BasketItemListing = z.infer<typeof BasketItemListing>;
export type BasketItemDetail = z.infer<typeof BasketItemDetail>;
export type Compare = z.infer<typeof Compare>;
export type LevelSeries = z.infer<typeof LevelSeries>;
export type RetailerLevels = z.infer<typeof RetailerLevels>;
export type Deals = z.infer<typeof Deals>;
export type CategoryNode = z.infer<typeof CategoryNode>;
export type RetailerBrowse = z.infer<typeof RetailerBrowse>;
export type ShoppingList = z.infer<typeof ShoppingList>;
export type SpecialCheck = z.infer<typeof SpecialCheck>;
export type SpecialChecks = z.infer<typeof SpecialChecks>;
export type DayGap = z.infer<typeof DayGap>;
export type RetailerStatus = z.infer<typeof RetailerStatus>;
export type JobRunStatus = z.infer<typeof JobRunStatus>;
export type DataStatus = z.infer<typeof DataStatus>;

/**
 * api-spec ExportManifest (get_export_manifest): the one schema of src/services/exports.ts (which the
 * export worker writes and checks manifests with), named for the API documents, with the day and
 * timestamp as the shared Day and Timestamp components.
 */
export const ExportManifest = named(
  'ExportManifest',
  'The nightly bulk export: its data day, licence and files (each downloadable from /data/latest/<name>).',
  ExportManifestSchema.extend({
    day: Day.describe('The data day the export holds prices up to'),
    generated_at: Timestamp.describe('When the export was written'),
  }),
);
export type ExportManifest = z.infer<typeof ExportManifest>;

/** Beyond the contract (issue 32 item 4): one event of list_shrinkflation (rule: src/domain/shrinkflation.ts). */
export const ShrinkEvent = named(
  'ShrinkEvent',
  "A listing's pack got smaller while its shelf price stayed the same or rose (the national series), so its unit price rose.",
  z.object({
    listing_id: z.int().describe('The listing (see get_listing)'),
    retailer: z.string().describe("Its chain's slug"),
    name: z.string(),
    brand: z.string().nullable(),
    day: Day.describe('The first day the smaller size was observed'),
    old_size: z.string().describe('The size before, as the chain printed it'),
    new_size: z.string().describe('The size from `day`, as the chain printed it'),
    old_qty: z.number().describe('Pack total before (quantity × pack count), in `unit`'),
    new_qty: z.number().describe('Pack total from `day`, in `unit` (smaller than old_qty)'),
    unit: z.enum(['g', 'ml', 'each', 'sheet']).describe('Unit of the pack totals'),
    old_price: z.int().describe('Shelf price before the change (the national span in force the day before), cents'),
    new_price: z.int().describe('Shelf price on `day`, cents (≥ old_price)'),
    compare_unit: z.string().describe('What the unit prices are per: kg, l (litre), each or 100sheet (100 sheets)'),
    old_unit_price: z.number().describe('Cents per compare unit before, to a hundredth of a cent'),
    new_unit_price: z.number().describe('Cents per compare unit from `day`, to a hundredth of a cent'),
    unit_price_change: z.number().describe('Unit price rise, per cent to a tenth ((new ÷ old − 1) × 100)'),
  }),
);

/** Beyond the contract (issue 32 item 4): list_shrinkflation's body. */
export const Shrinkflation = named(
  'Shrinkflation',
  'Shrinkflation events whose change day is within the window ending at as_of (the last observed day, not today), newest first.',
  z.object({
    as_of: Day.nullable().describe("The window's last day: the data's last observed day (the chain's with `retailer`); null when nothing was collected"),
    from: Day.nullable().describe("The window's first day (as_of − days + 1); null with as_of"),
    days: z.int().describe('The window length in days'),
    total: z.int().describe('Events in the window under the filters (not only the page)'),
    events: z.array(ShrinkEvent).describe('Change day descending, then the largest unit-price rise, then listing id'),
  }),
);
