/**
 * get_index_latest: GET /api/v1/index/latest → IndexLatest, the food-price index on its last
 * computed day; 404 before the first computation. ETag and 304 come from facades/http/caching.ts.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { IndexLatest } from '../resources.js';
import { present } from '../shapes.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_index_latest',
  summary: "The daily food-price index (a nowcast of Stats NZ's Food Price Index) on its last computed day: headline level and changes, coverage, groups, a 90-day sparkline.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/index/latest',
  description: [
    '`as_of` is the last day the index has computed, which follows the price data and may be well before today.',
    '`headline.value` is all food anchored to the last official monthly value (official base June 2017 = 1000), or the raw chained level (1000 on the first computed day) when no official month overlaps.',
    '`d1`, `d30` and `yoy` are percent changes of that series against 1, 30 and 365 calendar days earlier; each is null when that earlier day was not computed (an index younger than a year has a null `yoy`).',
    "`coverage` is all food's share of observable basket weight with a counted listing, and the listings and items counted. `groups` are the observable groups that day (anchored level, else raw).",
    '`sparkline` is the headline series over the last 90 days, starting after the latest day without a value.',
    'Served with an `ETag`; `If-None-Match` gives 304 while unchanged. 404 when no index has been computed yet.',
  ].join(' '),
  params: z.object({}),
  variables: () => ({}),
  result: IndexLatest,
  errors: [404],
  shape: (data) => present(data.indexLatest, 'indexLatest'),
});
