/**
 * PAK'nSAVE collector: the Foodstuffs edge API of the PAK'nSAVE web shop, per store
 * (`store.external_id` = the Foodstuffs store UUID of the imported store list). The translation is
 * shared with New World in foodstuffs.ts (shapes and sources there and in
 * test/fixtures/collect/paknsave/README.md).
 */
import { foodstuffsCollector } from './foodstuffs.js';
import type { ChainCollector } from './types.js';

/** PAK'nSAVE (banner `PNS`, live API origin `https://api-prod.paknsave.co.nz`). */
export const paknsave: ChainCollector = foodstuffsCollector({
  retailer: 'paknsave',
  apiOrigin: 'https://api-prod.paknsave.co.nz',
  storeBanner: 'PNS',
});
