/**
 * New Zealand calendar days. A day is a `YYYY-MM-DD` string in Pacific/Auckland (NZST UTC+12,
 * NZDT UTC+13 from the last Sunday of September to the first Sunday of April); the IANA zone
 * database in Node's ICU decides the offset, so daylight-saving boundaries are exact.
 */

const nzFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Pacific/Auckland',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The NZ calendar day of an instant given as a Date or as Unix seconds. */
export function nzDay(instant: Date | number): string {
  const d = typeof instant === 'number' ? new Date(instant * 1000) : instant;
  if (Number.isNaN(d.getTime())) throw new RangeError('invalid instant');
  return nzFormat.format(d); // en-CA formats as YYYY-MM-DD
}

/**
 * Today in New Zealand (Pacific/Auckland) as `YYYY-MM-DD`, at the instant `now` (default: the
 * clock). Pass `now` (or take a `today` option, as ingest does) to make "today" injectable.
 */
export function nzToday(now: Date = new Date()): string {
  return nzDay(now);
}

/**
 * True when `day` is later than `today` (both `YYYY-MM-DD`; `today` defaults to today in New
 * Zealand): a collection cannot be dated in the future.
 * @throws RangeError when either is not a calendar day.
 */
export function isFutureDay(day: string, today: string = nzToday()): boolean {
  if (!isDay(day)) throw new RangeError(`not a day: ${day}`);
  if (!isDay(today)) throw new RangeError(`not a day: ${today}`);
  return day > today; // YYYY-MM-DD orders as text
}

/** True when `s` is a real calendar day in `YYYY-MM-DD` form (rejects 2025-02-30). */
export function isDay(s: string): boolean {
  const m = DAY_RE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** `day` plus `n` calendar days (n may be negative). @throws RangeError on a malformed day. */
export function addDays(day: string, n: number): string {
  if (!isDay(day)) throw new RangeError(`not a day: ${day}`);
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}
