/** The root Query type and its meta field `health`. */
import { builder } from '../builder.js';
import { checkDatabase } from '../services/health.js';

builder.queryType({
  description: 'Read-only graph over New Zealand supermarket shelf prices (integer cents, NZ calendar days).',
});

builder.queryField('health', (t) =>
  t.boolean({
    description: 'True when the database answers; an UNAVAILABLE error otherwise.',
    resolve: (_root, _args, ctx) => checkDatabase(ctx.pool),
  }),
);
