/** healthz: GET /healthz → 200 `ok` when the database answers, 503 when it does not. */
import { z } from 'zod';
import { defineOperation } from '../operation.js';

/** The operation entry. */
export default defineOperation({
  name: 'healthz',
  summary: 'Liveness: "ok" when the database is reachable.',
  method: 'GET',
  family: 'probe',
  path: '/healthz',
  params: z.object({}),
  variables: () => ({}),
  result: z.literal('ok'),
  // `health` is selected for its error (UNAVAILABLE → 503); its value is always true.
  shape: () => 'ok' as const,
  contentType: 'text/plain; charset=utf-8',
  internal: true,
});
