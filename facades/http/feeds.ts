/**
 * Price-change feeds (issue 32 item 3, beyond the contract): Atom (RFC 4287) and JSON Feed 1.1 under
 * /feeds, for a feed reader, a script or an agent polling with a conditional GET. Thin: each feed
 * runs the persisted operation list_price_changes through the same executor as REST and MCP (the
 * response cache and the concurrency bounds included) and renders its answer with feedsmith
 * (generateAtomFeed, generateJsonFeed); nothing here reads the database.
 *
 * Routes ({@link FEEDS}; `{format}` is `atom` or `json`):
 * - /feeds/listings/{id}.{format}: a listing's changes (all kinds);
 * - /feeds/products/{id}.{format}: the changes of a product's linked listings;
 * - /feeds/deals/{retailer}.{format}?kind=special|member|multibuy: a chain's new deals of one kind
 *   (default special);
 * - /feeds/search.{format}?q=: price drops among the best 100 matches of a search;
 * - /feeds/shelves/{slug}.{format}: price drops on a shelf (its sub-shelves included);
 * - /feeds/shrinkflation.{format}?retailer=&shelf=&listing=: packs that got smaller at a flat or
 *   higher shelf price (list_shrinkflation, issue 32 item 4).
 * The price-change feeds also take `days` (1 … 90, default 30), `limit` (1 … 100, default 50: the
 * feed's length bound) and `direction` (drop, rise, any) as list_price_changes does; the
 * shrinkflation feed `days` and `limit` as list_shrinkflation does.
 *
 * Decisions:
 * - An entry's id is stable: the change's id (src/domain/price-changes.ts changeId: listing, day,
 *   kind, both prices) as is in JSON Feed, and as a name-based UUID of it (`urn:uuid:`, SHA-1,
 *   RFC 9562 version 5 layout) in Atom, whose ids must be IRIs.
 * - Dates: an entry's `updated`/`published` (`date_published`) is the day the new price started at
 *   00:00 UTC (the data has days, not times; UTC midnight keeps the date the same in every reader
 *   west of New Zealand's date line and says no time was observed). The feed's `updated` is the
 *   `as_of` day (the data's last observed day) at 00:00 UTC, or 1970-01-01T00:00:00Z when the
 *   scope was never priced.
 * - Conditional GET: the feeds are under facades/http/caching.ts like /api/v1 (a strong ETag of the
 *   body, the data version's Last-Modified, If-None-Match and If-Modified-Since → 304); the body
 *   holds nothing that changes without the data (no generation time), so the ETag is stable.
 * - Errors are the contract's Error body in JSON (a feed reader shows the status): 404 for an
 *   unknown subject or a format other than atom or json, 400 for bad parameters, 503 in an outage.
 * - A further feed is one {@link FeedRoute}: an operation, the input its path gives and a function
 *   from the answer to a {@link FeedDoc}; {@link renderFeed} does the rest.
 */
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generateAtomFeed, generateJsonFeed } from 'feedsmith';
import { describeFailure } from '../../src/db/embedded.js';
import { CHANGE_DAYS, CHANGE_LIMIT } from '../../src/domain/price-changes.js';
import { SHRINK_DAYS, SHRINK_LIMIT } from '../../src/domain/shrinkflation.js';
import { errorBody, type Executor } from '../execute.js';
import type { AnyOperation } from '../operation.js';
import type { PriceChanges } from '../operations/list_price_changes.js';
import type { Shrinkflation } from '../resources.js';
import type { z } from 'zod';

/** A feed's formats and their media types. */
export const FEED_FORMATS = new Map([
  ['atom', 'application/atom+xml; charset=utf-8'],
  ['json', 'application/feed+json; charset=utf-8'],
] as const);

/** A feed format. */
export type FeedFormat = 'atom' | 'json';

/** One entry of a feed, format-neutral. */
export interface FeedEntry {
  /** Stable id (any text; Atom gets its name-based UUID). */
  id: string;
  title: string;
  /** Plain text. */
  summary: string;
  /** The entry's day, YYYY-MM-DD (published and updated at 00:00 UTC). */
  day: string;
  /** Absolute URL of the resource the entry is about. */
  url: string;
}

/** A feed, format-neutral: what {@link renderFeed} writes as Atom or JSON Feed. */
export interface FeedDoc {
  title: string;
  /** Plain text: what the feed holds, or why it is empty. */
  description: string;
  /** The feed's last data day, YYYY-MM-DD, or null (then 1970-01-01). */
  updated: string | null;
  /** Absolute URL of the same data as JSON (the REST answer). */
  homeUrl: string;
  entries: FeedEntry[];
}

/** 00:00 UTC of a day as a Date. */
function midnight(day: string | null): Date {
  return new Date(`${day ?? '1970-01-01'}T00:00:00Z`);
}

/** A name-based UUID (SHA-1, version 5 layout) of `name`: the Atom id of an entry. */
export function nameUuid(name: string): string {
  const h = crypto.createHash('sha1').update(`nz-grocery-prices:${name}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * Writes a feed as Atom 1.0 or JSON Feed 1.1 (feedsmith). The feed's own URL (`selfUrl`, absolute,
 * with its query) is its Atom id and its `rel="self"` link; the other format's URL is an alternate.
 * @returns the body text (UTF-8) for the format's media type ({@link FEED_FORMATS}).
 */
export function renderFeed(doc: FeedDoc, format: FeedFormat, selfUrl: string, otherUrl: string): string {
  if (format === 'json') {
    const feed = {
      title: doc.title,
      home_page_url: doc.homeUrl,
      feed_url: selfUrl,
      description: doc.description,
      authors: [{ name: 'NZ Grocery Prices API' }],
      language: 'en-NZ',
      items: doc.entries.map((e) => ({
        id: e.id,
        url: e.url,
        title: e.title,
        content_text: e.summary,
        date_published: midnight(e.day),
      })),
    };
    // JSON Feed 1.1 requires `items` even when empty; feedsmith leaves an empty array out.
    const out = generateJsonFeed(feed) as Record<string, unknown>;
    return JSON.stringify({ ...out, items: out.items ?? [] });
  }
  return generateAtomFeed({
    id: selfUrl,
    title: { value: doc.title, type: 'text' },
    subtitle: { value: doc.description, type: 'text' },
    updated: midnight(doc.updated),
    authors: [{ name: 'NZ Grocery Prices API' }],
    links: [
      { href: selfUrl, rel: 'self', type: 'application/atom+xml' },
      { href: otherUrl, rel: 'alternate', type: 'application/feed+json' },
      { href: doc.homeUrl, rel: 'related', type: 'application/json' },
    ],
    entries: doc.entries.map((e) => ({
      id: `urn:uuid:${nameUuid(e.id)}`,
      title: { value: e.title, type: 'text' },
      summary: { value: e.summary, type: 'text' },
      updated: midnight(e.day),
      published: midnight(e.day),
      links: [{ href: e.url, rel: 'alternate', type: 'application/json' }],
    })),
  });
}

/** Cents as dollars: 399 → `$3.99` (a fractional multibuy rate rounds to the cent). */
export function dollars(cents: number): string {
  return `$${(Math.round(cents) / 100).toFixed(2)}`;
}

/** What a deal kind is called in an entry. */
const DEAL_WORDS = new Map([
  ['special', 'special'],
  ['member', 'member price'],
  ['multibuy', 'multibuy'],
]);

/** The words of a change kind in an entry's title. */
function changeWords(c: PriceChangesBody['changes'][number]): string {
  if (c.kind === 'price') return '';
  const deal = DEAL_WORDS.get(c.deal_kind ?? '') ?? 'deal';
  const each = c.deal_kind === 'multibuy' ? ' each' : '';
  return c.kind === 'deal_start' ? ` (${deal} ${dollars(c.deal_price ?? 0)}${each} started)` : ` (${deal} ended)`;
}

/** The 200 body of list_price_changes. */
type PriceChangesBody = z.output<typeof PriceChanges>;

/**
 * A list_price_changes answer as a feed: one entry per change, newest first, titled
 * `<name>: $4.50 → $3.99 at <chain>` (and the deal that started or ended).
 * @param baseUrl the service's public URL (no trailing slash); @param homeUrl the same data from REST.
 */
export function changesFeed(body: PriceChangesBody, baseUrl: string, homeUrl: string): FeedDoc {
  const { scope } = body;
  const drops = body.direction === 'drop' ? 'Price drops' : body.direction === 'rise' ? 'Price rises' : 'Price changes';
  const title =
    body.kind !== null
      ? `New ${DEAL_WORDS.get(body.kind) ?? body.kind} deals at ${scope.name}`
      : scope.type === 'search'
        ? `${drops} for “${scope.name}”`
        : `${drops}: ${scope.name}`;
  const window = body.as_of === null ? 'never priced' : `the ${body.days} days to ${body.as_of}`;
  const description =
    `${title}, ${window}, from the NZ Grocery Prices API (national prices, no-card: shelf price or a special open to everyone; per kg when sold by weight). ` +
    (body.as_of === null
      ? 'Empty: nothing in this scope has been priced.'
      : body.total === 0
        ? `Empty: no change in the ${body.days} days to ${body.as_of}, the last day observed.`
        : `${body.total} change${body.total === 1 ? '' : 's'} in the window${body.total > body.changes.length ? `, the newest ${body.changes.length} here` : ''}.`);
  return {
    title,
    description,
    updated: body.as_of,
    homeUrl,
    entries: body.changes.map((c) => ({
      id: c.id,
      title: `${c.name}: ${dollars(c.old_price)} → ${dollars(c.new_price)} at ${c.retailer_name}${changeWords(c)}`,
      summary:
        `From ${c.day} the price of ${c.name} at ${c.retailer_name} without a loyalty card is ${dollars(c.new_price)}, was ${dollars(c.old_price)}` +
        `${c.kind === 'price' ? '' : `;${changeWords(c).replace(/[()]/g, '')}`}. Listing ${c.listing_id}; prices in cents: ${c.old_price} → ${c.new_price}.`,
      day: c.day,
      url: `${baseUrl}/api/v1/listings/${c.listing_id}/history`,
    })),
  };
}

/** A feed route: where it is, what it runs and how its answer becomes a feed. */
export interface FeedRoute<B = unknown> {
  /** Fastify path with the file name last, e.g. `/feeds/listings/:file` (`:file` is `<key>.<format>`), or a fixed `/feeds/search` (then `.atom`/`.json` is appended). */
  path: string;
  /** The operation's input from the path key (null for a fixed path) and the query. */
  input: (key: string | null, query: Record<string, unknown>) => Record<string, unknown>;
  /** The answer as a feed. */
  toFeed: (body: B, baseUrl: string, homeUrl: string) => FeedDoc;
  /** The operation (its REST path gives the feed's home URL). */
  operation: AnyOperation;
}

/** The query text of an input (for the REST home URL of a feed), in key order, empty values left out. */
function queryOf(input: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(input)) if (v !== undefined && v !== null && v !== '' && !Array.isArray(v)) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Registers one feed route per {@link FeedRoute} (both formats): a GET answering the feed, or the
 * operation's Error body with its status.
 * @param run the executor REST and MCP use (the response cache's, with the concurrency bounds).
 */
export function registerFeedRoutes(app: FastifyInstance, run: Executor, baseUrl: string, routes: readonly FeedRoute[]): void {
  const handle = async (route: FeedRoute, key: string | null, format: string | undefined, req: FastifyRequest, reply: FastifyReply) => {
    const fmt = format === 'atom' || format === 'json' ? format : null;
    if (fmt === null || key === '') return reply.code(404).type('application/json; charset=utf-8').send(errorBody(404, 'No such feed: the file name ends in .atom or .json'));
    const query = req.query as Record<string, unknown>;
    const input = route.input(key, query);
    const outcome = await run(route.operation, input);
    if (outcome.status !== 200) {
      if (outcome.cause !== undefined) {
        if (outcome.status === 503) req.log.warn({ feed: route.path, reason: describeFailure(outcome.cause) }, 'database unavailable');
        else req.log.error({ err: outcome.cause, feed: route.path }, 'feed failed');
      }
      if (outcome.headers) reply.headers(outcome.headers);
      return reply.code(outcome.status).type(outcome.contentType).send(outcome.body);
    }
    const rawQuery = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    const file = (f: FeedFormat) => (key === null ? `${route.path}.${f}` : route.path.replace(':file', `${encodeURIComponent(key)}.${f}`));
    const self = `${baseUrl}${file(fmt)}${rawQuery}`;
    const other = `${baseUrl}${file(fmt === 'atom' ? 'json' : 'atom')}${rawQuery}`;
    const home = `${baseUrl}${route.operation.path}${queryOf(input)}`;
    const doc = route.toFeed(outcome.body, baseUrl, home);
    return reply.code(200).type(FEED_FORMATS.get(fmt)!).send(renderFeed(doc, fmt, self, other));
  };
  for (const route of routes) {
    if (route.path.endsWith('/:file')) {
      app.get(route.path, async (req, reply) => {
        const name = (req.params as { file: string }).file;
        const dot = name.lastIndexOf('.');
        return handle(route, dot < 0 ? '' : name.slice(0, dot), dot < 0 ? undefined : name.slice(dot + 1), req, reply);
      });
    } else {
      for (const f of ['atom', 'json'] as const) app.get(`${route.path}.${f}`, async (req, reply) => handle(route, null, f, req, reply));
    }
  }
}

/** The entries of `query` named in `keys` (the parameters a feed passes on to its operation). */
function passThrough(query: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(query, k)) out[k] = query[k];
  return out;
}

const COMMON = ['days', 'limit', 'direction'] as const;

/**
 * The price-change feeds (module comment) over the operation `op` (list_price_changes). Query
 * parameters other than the ones a feed names are ignored.
 */
export function priceChangeFeeds(op: AnyOperation): FeedRoute<PriceChangesBody>[] {
  return [
    { path: '/feeds/listings/:file', operation: op, toFeed: changesFeed, input: (k, q) => ({ ...passThrough(q, COMMON), listing_id: k }) },
    { path: '/feeds/products/:file', operation: op, toFeed: changesFeed, input: (k, q) => ({ ...passThrough(q, COMMON), product_id: k }) },
    {
      path: '/feeds/deals/:file',
      operation: op,
      toFeed: changesFeed,
      input: (k, q) => ({ ...passThrough(q, COMMON), kind: q.kind === undefined || q.kind === '' ? 'special' : q.kind, retailer: k }),
    },
    { path: '/feeds/search', operation: op, toFeed: changesFeed, input: (_k, q) => ({ direction: 'drop', ...passThrough(q, [...COMMON, 'q']) }) },
    { path: '/feeds/shelves/:file', operation: op, toFeed: changesFeed, input: (k, q) => ({ direction: 'drop', ...passThrough(q, COMMON), shelf: k }) },
  ];
}

/** The 200 body of list_shrinkflation. */
type ShrinkflationBody = z.output<typeof Shrinkflation>;

/** A unit price as text: 1234.5 cents per kg → `$12.35/kg`. */
function perUnit(cents: number, compareUnit: string): string {
  return `${dollars(cents)}/${compareUnit === '100sheet' ? '100 sheets' : compareUnit}`;
}

/**
 * A list_shrinkflation answer as a feed: one entry per event, newest first, titled
 * `<name>: 500g → 450g, $4.50 → $4.50 (unit price +11.1 %)`. The entry id names the listing, the
 * day, both pack totals and both prices (immutable facts of the event), so it stays stable.
 * @param baseUrl the service's public URL (no trailing slash); @param homeUrl the same data from REST.
 */
export function shrinkflationFeedDoc(body: ShrinkflationBody, baseUrl: string, homeUrl: string): FeedDoc {
  const title = 'Shrinkflation: smaller packs at the same or a higher shelf price';
  const description =
    `${title}, from the NZ Grocery Prices API (shelf prices of each chain's national series; unit prices per kg, litre, item or 100 sheets). ` +
    (body.as_of === null
      ? 'Empty: nothing has been collected.'
      : body.total === 0
        ? `Empty: no pack got smaller at a flat or higher price in the ${body.days} days to ${body.as_of}, the last day observed (a catalogue holding one size per listing has no size change to find).`
        : `${body.total} event${body.total === 1 ? '' : 's'} in the ${body.days} days to ${body.as_of}${body.total > body.events.length ? `, the newest ${body.events.length} here` : ''}.`);
  return {
    title,
    description,
    updated: body.as_of,
    homeUrl,
    entries: body.events.map((e) => ({
      id: `shrinkflation:${e.listing_id}:${e.day}:${e.old_qty}${e.unit}-${e.new_qty}${e.unit}:${e.old_price}-${e.new_price}`,
      title: `${e.name}: ${e.old_size} → ${e.new_size}, ${dollars(e.old_price)} → ${dollars(e.new_price)} (unit price +${e.unit_price_change} %)`,
      summary:
        `From ${e.day} ${e.name} (${e.retailer}, listing ${e.listing_id}) is sold as ${e.new_size} for ${dollars(e.new_price)}, was ${e.old_size} for ${dollars(e.old_price)}: ` +
        `${perUnit(e.new_unit_price, e.compare_unit)}, was ${perUnit(e.old_unit_price, e.compare_unit)} (+${e.unit_price_change} %).`,
      day: e.day,
      url: `${baseUrl}/api/v1/listings/${e.listing_id}/history`,
    })),
  };
}

/** The shrinkflation feed (module comment) over `op` (list_shrinkflation); other query parameters are ignored. */
export function shrinkflationFeeds(op: AnyOperation): FeedRoute<ShrinkflationBody>[] {
  return [{ path: '/feeds/shrinkflation', operation: op, toFeed: shrinkflationFeedDoc, input: (_k, q) => passThrough(q, ['retailer', 'shelf', 'listing', 'days', 'limit']) }];
}

/** One feed as the OpenAPI document and llms.txt describe it. */
export interface FeedDescription {
  /** OpenAPI path template, e.g. `/feeds/listings/{id}.{format}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Path parameter (besides `format`) and its description, if any. */
  key: { name: string; description: string; schema: Record<string, unknown> } | null;
  /** Its query parameters. */
  query: { name: string; description: string; required: boolean; schema: Record<string, unknown> }[];
}

/** A feed's `days` and `limit` query parameters within an operation's bounds. */
function windowQuery(days: { min: number; max: number; default: number }, limit: { min: number; max: number; default: number }): FeedDescription['query'] {
  return [
    {
      name: 'days',
      description: `Window in days ending at the data's last observed day (${days.min} to ${days.max}, default ${days.default}).`,
      required: false,
      schema: { type: 'integer', minimum: days.min, maximum: days.max, default: days.default },
    },
    {
      name: 'limit',
      description: `Most entries (${limit.min} to ${limit.max}, default ${limit.default}), newest first.`,
      required: false,
      schema: { type: 'integer', minimum: limit.min, maximum: limit.max, default: limit.default },
    },
  ];
}

/** The query parameters every price-change feed takes. */
const COMMON_QUERY = [
  ...windowQuery(CHANGE_DAYS, CHANGE_LIMIT),
  {
    name: 'direction',
    description: 'drop, rise or any (default: drop for search and shelf feeds, any for the others).',
    required: false,
    schema: { type: 'string', enum: ['drop', 'rise', 'any'] },
  },
];

/** The feeds for the OpenAPI document and llms.txt ({@link priceChangeFeeds} and {@link shrinkflationFeeds} in words). */
export const FEEDS: readonly FeedDescription[] = [
  {
    path: '/feeds/listings/{id}.{format}',
    operationId: 'feed_listing_price_changes',
    summary: "A listing's price changes as a feed (every kind: price changes, deals starting and ending).",
    key: { name: 'id', description: 'Listing id.', schema: { type: 'integer', minimum: 1, maximum: 2147483647 } },
    query: COMMON_QUERY,
  },
  {
    path: '/feeds/products/{id}.{format}',
    operationId: 'feed_product_price_changes',
    summary: "The price changes of a product's linked listings as a feed.",
    key: { name: 'id', description: 'Product id.', schema: { type: 'integer', minimum: 1, maximum: 2147483647 } },
    query: COMMON_QUERY,
  },
  {
    path: '/feeds/deals/{retailer}.{format}',
    operationId: 'feed_new_deals',
    summary: "A chain's new deals of one kind as a feed.",
    key: { name: 'retailer', description: 'Retailer slug (see list_retailers).', schema: { type: 'string', minLength: 1, maxLength: 100 } },
    query: [
      {
        name: 'kind',
        description: 'special (default), member or multibuy: the deals that started.',
        required: false,
        schema: { type: 'string', enum: ['special', 'member', 'multibuy'], default: 'special' },
      },
      ...COMMON_QUERY,
    ],
  },
  {
    path: '/feeds/search.{format}',
    operationId: 'feed_search_price_drops',
    summary: 'Price drops among the best 100 matches of a search, as a feed.',
    key: null,
    query: [{ name: 'q', description: 'Search words (as search_listings).', required: true, schema: { type: 'string', minLength: 1, maxLength: 100 } }, ...COMMON_QUERY],
  },
  {
    path: '/feeds/shelves/{slug}.{format}',
    operationId: 'feed_shelf_price_drops',
    summary: "Price drops on a shelf (sub-shelves included) as a feed.",
    key: { name: 'slug', description: 'Shelf slug (see list_shelves).', schema: { type: 'string', minLength: 1, maxLength: 100 } },
    query: COMMON_QUERY,
  },
  {
    path: '/feeds/shrinkflation.{format}',
    operationId: 'feed_shrinkflation',
    summary: 'Shrinkflation (list_shrinkflation) as a feed: packs that got smaller at the same or a higher shelf price.',
    key: null,
    query: [
      { name: 'retailer', description: "Retailer slug (see list_retailers); only that chain's listings.", required: false, schema: { type: 'string', minLength: 1, maxLength: 100 } },
      { name: 'shelf', description: 'Shelf slug (see list_shelves); only listings on that shelf or below it.', required: false, schema: { type: 'string', minLength: 1, maxLength: 100 } },
      { name: 'listing', description: "Listing id; only that listing's events.", required: false, schema: { type: 'integer', minimum: 1, maximum: 2147483647 } },
      ...windowQuery(SHRINK_DAYS, SHRINK_LIMIT),
    ],
  },
];

/** What every feed is, for the OpenAPI descriptions and llms.txt. */
export const FEEDS_ABOUT =
  'Atom 1.0 (`.atom`, application/atom+xml) or JSON Feed 1.1 (`.json`, application/feed+json), each entry with a stable id and the day it happened (00:00 UTC of that New Zealand day). The price-change feeds read list_price_changes: each entry a change with both prices (no-card, per unit; per kg when sold by weight). The shrinkflation feed reads list_shrinkflation: both sizes, both shelf prices and both unit prices. Poll with If-None-Match (ETag) or If-Modified-Since: 304 while the data is unchanged.';

/**
 * The OpenAPI path items of the feeds ({@link FEEDS}), tagged `feeds` and `beyond-contract`; their
 * error responses are the document's shared components (BadRequest, NotFound, Unavailable).
 */
export function feedOpenApiPaths(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of FEEDS) {
    const format = { name: 'format', in: 'path', required: true, description: 'atom (Atom 1.0) or json (JSON Feed 1.1).', schema: { type: 'string', enum: ['atom', 'json'] } };
    out[f.path] = {
      get: {
        operationId: f.operationId,
        tags: ['feeds', 'beyond-contract'],
        'x-beyond-contract': 'issue 32',
        summary: f.summary,
        description: `${f.summary} ${FEEDS_ABOUT} 404 (an Error body in JSON) for an unknown subject; 400 for bad parameters. Counts against the per-IP budget.`,
        parameters: [
          ...(f.key ? [{ name: f.key.name, in: 'path', required: true, description: f.key.description, schema: f.key.schema }] : []),
          format,
          ...f.query.map((q) => ({ ...q, in: 'query' })),
        ],
        responses: {
          200: {
            description: 'The feed.',
            headers: {
              ...Object.fromEntries(
                ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'].map((h) => [h, { $ref: `#/components/headers/${h}` }]),
              ),
              ETag: { description: 'Entity tag of the body, for If-None-Match.', schema: { type: 'string' } },
              'Last-Modified': { description: 'When the data was observed, an HTTP-date, for If-Modified-Since.', schema: { type: 'string' } },
            },
            content: {
              'application/atom+xml': { schema: { type: 'string' } },
              'application/feed+json': { schema: { type: 'object' } },
            },
          },
          304: { $ref: '#/components/responses/NotModified' },
          400: { $ref: '#/components/responses/BadRequest' },
          404: { $ref: '#/components/responses/NotFound' },
          429: { $ref: '#/components/responses/TooManyRequests' },
          503: { $ref: '#/components/responses/Unavailable' },
        },
      },
    };
  }
  return out;
}
