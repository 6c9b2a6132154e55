/**
 * The two halves of a bench child server's contract with its parent (test/bench/levels-server.ts,
 * test/bench/cache-server.ts): announce the listening port on stdout, and stop when the parent goes.
 */

/** Writes `{"port": n}` and a newline on stdout, the line the parent waits for. */
export function announce(port: number): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}

/** Ends this process when the parent closes our stdin (it exited or killed us without a signal reaching us), or on SIGTERM/SIGINT, after `stop`. */
export function exitWithParent(stop: () => Promise<void>): void {
  const done = () => void stop().finally(() => process.exit(0));
  process.stdin.on('end', done);
  process.stdin.on('error', done);
  process.stdin.resume();
  process.once('SIGTERM', done);
  process.once('SIGINT', done);
}
