/**
 * Builds the GraphQL schema: imports every type file for its side effects (registering types and
 * root fields on the builder), then calls toSchema once.
 */
import { builder } from '../builder.js';
import './scalars.js';
import './query.js';
import './retailer.js';
import './store.js';
import './areas.js';
import './listing.js';
import './product.js';
import './history.js';
import './spread.js';
import './search.js';
import './exports.js';
import './food-index.js';
import './index-validation.js';
import './basket.js';
import './compare.js';
import './deals.js';
import './shopping-list.js';
import './special-check.js';
import './lows.js';
import './shelves.js';
import './retailer-browse.js';
import './views.js';
import './data-status.js';
import './price-changes.js';
import './shrinkflation.js';

/** The executable schema of the read API. */
export const schema = builder.toSchema();
