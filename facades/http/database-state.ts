/**
 * What /healthz says about the database beyond reachability (issue 29). The contract fixes the
 * 200 body (the constant `ok`) and leaves the 503 body open, so:
 *
 * - every /healthz answer carries `Database-State: <kind>; state=<state>; restarts=<n>`, e.g.
 *   `embedded; state=up; restarts=1` or `external; state=up; restarts=0` (src/db/embedded-supervisor.ts
 *   DatabaseState: `restarting` while the embedded server is being started again);
 * - a 503 while the embedded server is being started again says so in the Error body's message.
 *
 * Registered by the process that knows the state (src/main.ts); the facades never see the database.
 */
import type { FastifyInstance } from 'fastify';
import type { DatabaseState } from '../../src/db/embedded-supervisor.js';
import { errorBody } from '../execute.js';

/** The response header naming the database's kind, state and restarts. */
export const DATABASE_STATE_HEADER = 'Database-State';

/** The header value for `s`: `embedded; state=up; restarts=0`. */
export function databaseStateHeader(s: DatabaseState): string {
  return `${s.kind}; state=${s.state}; restarts=${s.restarts}`;
}

/** Adds the header (and, while restarting, the 503 message) to /healthz answers of `app` (before it is ready). */
export function registerDatabaseState(app: FastifyInstance, state: () => DatabaseState): void {
  // Callback style: every response passes here, and all but /healthz leave at once, without a promise.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (req.routeOptions.url !== '/healthz') return done(null, payload);
    const s = state();
    reply.header(DATABASE_STATE_HEADER, databaseStateHeader(s));
    if (reply.statusCode === 503 && s.state === 'restarting') {
      return done(
        null,
        JSON.stringify(
          errorBody(503, `Service unavailable: the embedded database is being started again (${s.restarts} restart(s) so far); retry shortly`),
        ),
      );
    }
    done(null, payload);
  });
}
