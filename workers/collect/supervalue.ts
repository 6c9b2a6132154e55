/**
 * SuperValue collector. SuperValue's online shops run on the same MyFoodLink storefront platform as
 * FreshChoice (per-store subdomains `https://<store>.store.supervalue.co.nz`, the same "talker"
 * product cards): JavaGT/nz-grocery-prices src/adapters/supervalue.js reuses its FreshChoice card
 * parser for SuperValue, and the COSC345 scraper runs both chains through one MyFoodLinkScraper. So
 * this module is the MyFoodLink translation of freshchoice.ts with SuperValue's host (shapes and
 * sources there and in test/fixtures/collect/supervalue/README.md). Not verified on a captured
 * SuperValue page: the fixtures are FreshChoice's recorded card markup under SuperValue's host.
 * Only a few SuperValue stores have an online shop; `store.external_id` is the storefront subdomain
 * (e.g. `milton`).
 */
import { myFoodLinkCollector } from './freshchoice.js';
import type { ChainCollector } from './types.js';

/** SuperValue: MyFoodLink storefronts `https://<store>.store.supervalue.co.nz`. */
export const supervalue: ChainCollector = myFoodLinkCollector({ retailer: 'supervalue', chooserHost: 'store.supervalue.co.nz' });
