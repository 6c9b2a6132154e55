/**
 * get_data_status (beyond the contract, issue 26 "Say how old every fact is"): GET /api/v1/status →
 * DataStatus, how old the data is chain by chain (src/services/data-status.ts, rules in
 * src/domain/freshness.ts): first and last collection days, the last run, staleness, the stores
 * and listings the last day saw, the newest collector run, and the days nothing was collected; and
 * (issue 28) what is still being computed, from the job log (src/services/job-runs.ts).
 */
import { z } from 'zod';
import { STALE_AFTER_DAYS } from '../../src/domain/freshness.js';
import { STALE_DAYS } from '../../src/domain/price-index.js';
import { defineOperation } from '../operation.js';
import { DataStatus } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_data_status',
  summary: 'How old the data is: each chain\'s first and last collection day, last run, staleness, stores and listings seen, the days nothing was collected, and what is still being computed.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/status',
  description: [
    '`today` is today in New Zealand when answered. A chain is `stale` when its last collection day (`last_day`) is more than',
    `\`stale_after_days\` (${STALE_AFTER_DAYS}) days before today, or it has never been collected; \`fresh\` is true when some chain has`,
    'been collected and no collected chain is stale. `cap_days` is the staleness cap: a price observed more than',
    `${STALE_DAYS} days before a day does not count as current on it (the index carries such items forward).`,
    '`gaps` (overall) are the days between the first and the newest collection day on which no chain was collected;',
    "a chain's `gaps` are the days between its own first and last day without its collection. `stores_collected` counts",
    'stores with prices on the chain\'s last day; `listings_seen` the listings observed that day. `run` is the chain\'s',
    'newest collector run (null for a chain only imported from files). Every chain is listed, by slug, also those never collected.',
    '`computing` names the jobs queued or running now (on a first start: import, match, basket-match, index, views), empty',
    'when nothing is being computed; while it is not empty, figures derived from the prices (matches, the index, levels,',
    'shelves, suggestions) may still change or be missing. `jobs` gives the newest run of every job; a job whose process',
    'went away while it was queued or running is `interrupted`. This answer is never cached: ask again to follow the work.',
    'Every GET answer of /api/v1 carries `Last-Modified`: when the data was observed (the newest `last_run`).',
  ].join(' '),
  params: z.object({}),
  variables: () => ({}),
  result: DataStatus,
  beyondContract: 'issue 26',
});
