/**
 * Progress bars for long CLI jobs (cli-progress), shown only on a terminal.
 */
import cliProgress from 'cli-progress';

/** The subset of a progress bar the workers use. */
export interface Progress {
  increment(n?: number): void;
  stop(): void;
}

/**
 * A progress bar titled `title` over `total` steps; a no-op unless `enabled` (default: stderr is a TTY).
 */
export function makeProgress(enabled: boolean | undefined, title: string, total: number): Progress {
  if (!(enabled ?? process.stderr.isTTY) || total === 0) return { increment() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${title} [{bar}] {value}/{total} {eta_formatted}`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { increment: (n = 1) => bar.increment(n), stop: () => bar.stop() };
}
