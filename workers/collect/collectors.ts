/**
 * The registry of chain collectors (issue 18): the runner (workers/collect/run.ts) collects the
 * chains listed here, in this order, for `npm run collect -- all`. One line per chain.
 */
import type { ChainCollector } from './types.js';
import { woolworths } from './woolworths.js';
import { paknsave } from './paknsave.js';
import { newworld } from './newworld.js';
import { freshchoice } from './freshchoice.js';
import { supervalue } from './supervalue.js';
import { warehouse } from './warehouse.js';
// A new chain: import its collector here and add it to COLLECTORS below.

/** Every registered collector, in collection order. */
export const COLLECTORS: readonly ChainCollector[] = [
  woolworths,
  paknsave,
  newworld,
  freshchoice,
  supervalue,
  warehouse,
];
