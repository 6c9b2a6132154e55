/**
 * get_index_daily: GET /api/v1/index/daily?from=&to=&group= → IndexPoint[] oldest first. Days are
 * `YYYY-MM-DD`; a malformed or impossible day, `from` after `to`, or an unknown group is a 400.
 */
import { z } from 'zod';
import { isDay } from '../../src/domain/days.js';
import { defineOperation, intWithDefault, MAX_ID } from '../operation.js';
import { IndexPoint } from '../resources.js';

/**
 * An optional day parameter: a real New Zealand calendar day written `YYYY-MM-DD` (2025-02-30 and
 * 2025-2-3 are refused); absent or empty means the default.
 */
function optionalDay(description: string) {
  return z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string({ error: 'must be a day written YYYY-MM-DD' })
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day written YYYY-MM-DD')
        .refine(isDay, 'must be a real calendar day')
        .optional(),
    )
    .describe(description);
}

/** The operation entry. */
export default defineOperation({
  name: 'get_index_daily',
  summary: 'Daily points of the food-price index, all food (group 0) or one basket group, oldest first.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/index/daily',
  description: [
    '`from` and `to` are New Zealand days written `YYYY-MM-DD`, both inclusive; `to` defaults to today in New Zealand and `from` to the same day a year before `to`.',
    'A malformed or impossible day, or `from` after `to`, is a 400.',
    '`group` 0 is all food; any other value must be a basket group id (see get_index_groups), else 400.',
    'Only computed days are returned (the index may end before today); a group that is not observable on shelves (restaurant meals and ready-to-eat food) has no points, so its answer is `[]`.',
    '`anchored` is null when no official month overlaps the index.',
  ].join(' '),
  params: z.object({
    from: optionalDay('First day, inclusive, YYYY-MM-DD (default: one year before to).'),
    to: optionalDay('Last day, inclusive, YYYY-MM-DD (default: today in New Zealand).'),
    group: intWithDefault(0, MAX_ID, 0, '0 is all food; other ids come from get_index_groups.'),
  }),
  variables: (p) => ({ group: p.group, from: p.from ?? null, to: p.to ?? null }),
  result: z.array(IndexPoint),
});
