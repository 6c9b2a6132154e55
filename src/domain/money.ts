/**
 * Money parsing. Every price is integer NZ cents; sources print dollars ("3.99", "10.0", "$4").
 */

const DOLLARS_RE = /^\$?\s*(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Parses a dollar amount with at most two decimals into integer cents, exactly (no float maths):
 * "3.99" → 399, "10.0" → 1000, "$4" → 400.
 * @throws RangeError when the text is not such an amount (e.g. "", "1.234", "-1").
 */
export function dollarsToCents(text: string): number {
  const m = DOLLARS_RE.exec(text.trim());
  if (!m) throw new RangeError(`not a dollar amount: "${text}"`);
  const frac = (m[2] ?? '').padEnd(2, '0');
  return Number(m[1]) * 100 + Number(frac);
}
