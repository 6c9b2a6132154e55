/**
 * get_index_validation (beyond the contract, issue 30 item 4): GET /api/v1/index/validation →
 * IndexValidation, the nowcast's track record against Stats NZ's Food Price Index
 * (src/services/index-validation.ts; formula src/domain/index-validation.ts, shared with
 * `npm run validate:index`).
 */
import { z } from 'zod';
import { INDEX_METHOD_LABELS } from '../../src/domain/index-method.js';
import { FIRST_DAYS } from '../../src/domain/index-validation.js';
import { defineOperation } from '../operation.js';
import { IndexValidation } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_index_validation',
  summary: "The food-price nowcast's track record: month by month, its change against Stats NZ's official Food Price Index, with mean absolute errors against a flat forecast.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/index/validation',
  description: [
    `\`method\` names the method of the stored index (${[...INDEX_METHOD_LABELS.values()].join(' or ')}; the default is the first, INDEX_METHOD selects). For all food and each observable basket group, every month the index computed, oldest first:`,
    "`official` = Stats NZ's monthly change in percent; `nowcast` = the change of the mean of the month's daily raw values (as get_index_daily gives them) against the previous month's mean;",
    `\`first_days\` = the same over days 1 to ${FIRST_DAYS} of both months (the early estimate); errors are nowcast − official, in percentage points; \`coverage\` is the month's mean coverage.`,
    'A month is counted in `summary` when every calendar day was computed with coverage above 0 and it has both an official and a nowcast change (the previous month may be partial, as the first month of the data);',
    '`summary` gives the mean absolute error of the nowcast, of the first-days estimate and of the flat forecast (0 % every month).',
    '`estimate` is the latest month computed as of its last observed day (`as_of`): once complete, its final nowcast change; before that the same-day estimate, the change of the means of days 1 to `through_day` of the month and of the previous one;',
    '`low`–`high` is a prediction interval at `level` (0.9) from the errors of the same estimate in the earlier counted months (`past_months`, at least 3): change ± Student t quantile (n degrees of freedom) × their root mean square;',
    '`official` and `error` appear once Stats NZ has published the month.',
    '`unobservable` lists the groups the nowcast cannot see on shelves (restaurant meals and ready-to-eat food); the nowcast renormalises all food over the others, while the official all food includes them.',
    'The record grows as official months are imported.',
  ].join(' '),
  params: z.object({}),
  variables: () => ({}),
  result: IndexValidation,
  beyondContract: 'issue 30',
});
