/**
 * Records keyed by words that come from data or from users (DESIGN.md "Avoid: plain objects as
 * dictionaries of user input"; issue 29). A plain object answers `obj["constructor"]` and
 * `obj["__proto__"]` from Object.prototype, and assigning `obj["__proto__"]` changes its prototype
 * instead of storing a value. Lookups use a `Map`; a record that is reported as JSON (counts by a
 * file's tag or name) is an object without a prototype, built here, so every key is its own.
 */

/** An empty record without a prototype: every key, `__proto__` and `constructor` included, is an own key. */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Adds one to `counts[key]` (absent counts as 0). `counts` must come from {@link emptyRecord}. */
export function countInto(counts: Record<string, number>, key: string): void {
  counts[key] = (Object.hasOwn(counts, key) ? counts[key] : 0) + 1;
}
