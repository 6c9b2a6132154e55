/**
 * Money parsing. Every price is integer NZ cents. Sources print dollars ("3.99", "10.0"); the
 * observation format prints cents ("349"). Both grammars are strict: plain decimal digits, no
 * sign, no spaces, no currency symbol, no thousands separator, no hex/binary/exponent notation.
 */

/** Plain decimal dollars: digits without a leading zero (but "0" itself), then at most two decimals. */
const DOLLARS_RE = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,2}))?$/;
/** Plain decimal integer: digits without a leading zero (but "0" itself). */
const DIGITS_RE = /^(0|[1-9][0-9]*)$/;

/**
 * Parses a plain decimal dollar amount with at most two decimals into integer cents, exactly (no
 * float maths): "3.99" → 399, "10.0" → 1000, "0.29" → 29, "4" → 400.
 * The grammar is `^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$`: no sign, no surrounding spaces, no "$",
 * no thousands separator, no exponent, no leading zeros, no bare "." ("4." and ".5" are refused).
 * Callers that read padded fields trim them first.
 * @throws RangeError when the text is not such an amount (e.g. "", " 1.49", "$4", "1.234", "-1",
 *   "1e3", "01.50") or the amount exceeds Number.MAX_SAFE_INTEGER cents.
 */
export function dollarsToCents(text: string): number {
  const m = DOLLARS_RE.exec(text);
  if (!m) throw new RangeError(`not a dollar amount (plain digits with at most two decimals, e.g. 3.49): "${text}"`);
  const cents = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) throw new RangeError(`dollar amount too large: "${text}"`);
  return cents;
}

/**
 * True when `text` is a plain decimal integer: `^(0|[1-9][0-9]*)$` (no sign, spaces, leading
 * zeros, fraction, exponent, hex or binary). The grammar of every integer column of the
 * observation format (cents, promo_kind, multibuy_qty).
 */
export function isPlainDigits(text: string): boolean {
  return DIGITS_RE.test(text);
}

/**
 * Parses integer cents written as plain decimal digits ("349" → 349, "0" → 0).
 * @throws RangeError when the text is not plain digits (e.g. "", " 12 ", "1e3", "0x10", "12.0",
 *   "-1", "007") or is larger than Number.MAX_SAFE_INTEGER.
 */
export function parseCents(text: string): number {
  if (!DIGITS_RE.test(text)) throw new RangeError(`not integer cents (digits only, e.g. 349): "${text}"`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`cents too large: "${text}"`);
  return n;
}
