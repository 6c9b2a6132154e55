/**
 * Timing helpers shared by the benches (nothing here asserts).
 */

/**
 * Calls `fn(i)` for i = 0 … n − 1 one after another. @returns each call's milliseconds, in call
 * order. With `warmUp`, one untimed `fn(0)` runs first (a cold plan or cache kept out of the figures).
 */
export async function timed(n: number, fn: (i: number) => Promise<unknown>, { warmUp = false } = {}): Promise<number[]> {
  if (warmUp) await fn(0);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** The nearest-rank `p`-th percentile (0–100) of ascending `sorted` values (undefined when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
