/**
 * What a chain's collector is (issue 18; DESIGN "Collectors"): a module that only translates one
 * chain's online-shop shapes into observation rows (workers/ingest/format.ts ObservationInput) and
 * says which page to fetch next. Everything else — the per-host concurrency and rate limit, retries
 * with backoff and jitter on 429/5xx honouring Retry-After, timeouts, the User-Agent, per-store
 * checkpoints, the run log, handing a store's rows to the ingest — is the shared runner's
 * (workers/collect/run.ts), so every chain is polite the same way and the live code path is the
 * tested one (only the origin differs: `--origin`, `COLLECT_<RETAILER>_ORIGIN`).
 *
 * A collector is pure apart from the requests the runner makes for it: `firstPage` and `parsePage`
 * do no I/O, so they are unit-tested on the recorded fixtures (test/fixtures/collect/<retailer>/).
 */
import type { ObservationInput } from '../ingest/format.js';
import { ExpectedError } from '../../src/errors.js';

/** One HTTP request the runner makes for a collector. `url` is absolute (origin included). */
export interface PageRequest {
  url: string;
  /** Default GET. PUT (added for Woolworths' store selection, `PUT /api/v1/fulfilment/my/pickup-addresses`). */
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Readonly<Record<string, string>>;
  /** Request body (POST), already serialised (JSON text). */
  body?: string;
  /** A short label for logs and checkpoints, e.g. `page 3` or `category fruit-veg page 2`. */
  label?: string;
  /**
   * How the runner hands the body to `parsePage`: `json` (default; a body that is not JSON is a
   * MalformedPage) or `text` (the body as a string, for chains that publish HTML pages).
   */
  responseType?: 'json' | 'text';
}

/** Where a collection runs: one store (the retailer's own store id, as `store.external_id`) or, for a national-only chain, the nation. */
export interface CollectScope {
  /** The retailer's own store id (`store.external_id`); null for national prices. */
  store: string | null;
}

/** What a collector is told about the run when it builds requests and parses pages. */
export interface CollectContext extends CollectScope {
  /** The chain's origin for this run, without a trailing slash, e.g. `https://www.woolworths.co.nz`. */
  origin: string;
  /** The NZ calendar day being collected, `YYYY-MM-DD` (every row carries it). */
  day: string;
  /** Headers returned by {@link ChainCollector.session} for this scope (cookies, tokens), if any. */
  session?: Readonly<Record<string, string>>;
}

/** One parsed page. */
export interface ParsedPage {
  /** Observation rows of the page (retailer, day and store filled in; money in integer cents). */
  rows: ObservationInput[];
  /** The next request of this scope, or null when the scope is done. */
  next: PageRequest | null;
  /** Further requests this page fans out to (e.g. the categories of a department), run after `next`; optional. */
  more?: PageRequest[];
}

/** Thrown by `parsePage` when a body does not have the recorded shape: the runner logs the URL and skips the page, writing nothing of it. */
export class MalformedPage extends ExpectedError {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedPage';
  }
}

/**
 * One store of a chain's published store directory ({@link ChainCollector.stores}). The runner
 * places a store with coordinates into town and area (src/domain/places.ts, as the store importer
 * does) and upserts it; a store without coordinates is only refreshed when the store table already
 * has it (its coordinates kept), otherwise logged and left out (the table needs coordinates).
 */
export interface DirectoryStore {
  /** The retailer's own store id (`store.external_id`). */
  external_id: string;
  name: string;
  address?: string | null;
  /** WGS84 decimal degrees, when the directory gives them. */
  lat?: number | null;
  lng?: number | null;
}

/** A chain's collector (one module per chain under workers/collect/<retailer>.ts). */
export interface ChainCollector {
  /** Retailer slug (`retailer.slug`), e.g. `woolworths`. */
  retailer: string;
  /** The live origin, e.g. `https://www.woolworths.co.nz`; overridden by `--origin` or `COLLECT_<RETAILER>_ORIGIN`. */
  defaultOrigin: string;
  /** Whether prices are national (one scope, `store` null) rather than per store. */
  national: boolean;
  /** Optional per-scope set-up request(s) (e.g. selecting the fulfilment store, fetching a token): headers to send with every page of the scope. */
  session?(ctx: Omit<CollectContext, 'session'>, fetchJson: (req: PageRequest) => Promise<{ body: unknown; headers: Record<string, string> }>): Promise<Record<string, string>>;
  /**
   * Optional: the chain's stores from its platform's public store directory. Called by the runner
   * (before the scopes are chosen) when the chain is collected with its default scope, every store;
   * the stores listed are upserted (never deleted). `ctx.store` is null.
   * @throws MalformedPage when the directory does not have the recorded shape (the run goes on with
   *   the stores already in the table).
   */
  stores?(ctx: Omit<CollectContext, 'session'>, fetchJson: (req: PageRequest) => Promise<{ body: unknown; headers: Record<string, string> }>): Promise<DirectoryStore[]>;
  /** The first request of a scope. */
  firstPage(ctx: CollectContext): PageRequest;
  /**
   * Parses one page's JSON body (validated with zod against the recorded shape).
   * @throws MalformedPage when the body does not have the recorded shape.
   */
  parsePage(body: unknown, req: PageRequest, ctx: CollectContext): ParsedPage;
  /**
   * Optional (added with the runner): the request that follows a page that was skipped as
   * malformed, when the collector can tell it without the page (numbered pages); null or absent:
   * the scope's chain of pages ends there. The runner follows at most a few malformed pages in a row.
   */
  afterMalformed?(req: PageRequest, ctx: CollectContext): PageRequest | null;
}
