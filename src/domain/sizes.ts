/**
 * Size text as printed by the chains ("6 x 330ml", "1.5L", "500g", "per kg", "12pk", "1ea") parsed
 * into quantity, unit and pack count (api-spec unit enumeration: g, ml, each, m). Pure; no I/O.
 * Used for unit prices and for matching the same item across chains.
 */

/** A parsed size: `packCount` items of `qty` `unit` each; `perKg` when priced by weight. */
export interface ParsedSize {
  /** Quantity of one item in `unit` (grams, millilitres, items or metres). */
  qty: number;
  unit: 'g' | 'ml' | 'each' | 'm';
  /** Items in the pack (1 for a single item). */
  packCount: number;
  /** Sold by weight: the price is per kilogram (qty 1000 g). */
  perKg: boolean;
}

/**
 * Multipliers from printed units to the enumeration's base units. Looked up by a word of a size
 * text (the retailers' data), so a Map: an object would find "constructor" on Object.prototype.
 */
const UNITS: ReadonlyMap<string, { unit: ParsedSize['unit']; factor: number }> = new Map(Object.entries({
  g: { unit: 'g', factor: 1 },
  gm: { unit: 'g', factor: 1 },
  gms: { unit: 'g', factor: 1 },
  gram: { unit: 'g', factor: 1 },
  grams: { unit: 'g', factor: 1 },
  kg: { unit: 'g', factor: 1000 },
  kgs: { unit: 'g', factor: 1000 },
  mg: { unit: 'g', factor: 0.001 },
  ml: { unit: 'ml', factor: 1 },
  l: { unit: 'ml', factor: 1000 },
  lt: { unit: 'ml', factor: 1000 },
  ltr: { unit: 'ml', factor: 1000 },
  litre: { unit: 'ml', factor: 1000 },
  litres: { unit: 'ml', factor: 1000 },
  liter: { unit: 'ml', factor: 1000 },
  cl: { unit: 'ml', factor: 10 },
  m: { unit: 'm', factor: 1 },
  metre: { unit: 'm', factor: 1 },
  metres: { unit: 'm', factor: 1 },
  cm: { unit: 'm', factor: 0.01 },
  ea: { unit: 'each', factor: 1 },
  each: { unit: 'each', factor: 1 },
  pc: { unit: 'each', factor: 1 },
  pcs: { unit: 'each', factor: 1 },
  pieces: { unit: 'each', factor: 1 },
  pk: { unit: 'each', factor: 1 },
  pack: { unit: 'each', factor: 1 },
  s: { unit: 'each', factor: 1 },
} satisfies Record<string, { unit: ParsedSize['unit']; factor: number }>));

const NUM = '(\\d+(?:\\.\\d+)?)';
const UNIT = '([a-z]+)';

/** Rounds away binary noise (1.5 × 1000 = 1500, 0.3 × 1000 = 300). */
const clean = (n: number) => Math.round(n * 1000) / 1000;

function amount(value: string, printedUnit: string): { qty: number; unit: ParsedSize['unit'] } | null {
  const u = UNITS.get(printedUnit);
  return u ? { qty: clean(Number(value) * u.factor), unit: u.unit } : null;
}

/**
 * Parses a printed size. Returns null when the text holds no recognisable size.
 * - "500g" → 500 g; "1.5L" → 1500 ml; "0.5kg" → 500 g; "100cm" → 1 m
 * - "6 x 330ml", "6x330ml", "330ml x 6", "330ml 6pk" → 6 × 330 ml
 * - "12pk", "12 pack", "12s" → 12 × 1 each; "1ea", "each" → 1 × 1 each
 * - "per kg", "kg", "1kg loose" when sold by weight ("per kg" or bare "kg") → perKg, 1000 g
 */
export function parseSize(text: string | null | undefined): ParsedSize | null {
  if (!text) return null;
  const t = text.toLowerCase().replace(/approx\.?|approximately|min\.?|avg\.?/g, ' ').replace(/,/g, '.').replace(/\s+/g, ' ').trim();
  if (/^(per |\/)?kg$|^per kg\b|^\$?\/kg$/.test(t)) return { qty: 1000, unit: 'g', packCount: 1, perKg: true };
  if (/^(each|ea|1 ?ea)$/.test(t)) return { qty: 1, unit: 'each', packCount: 1, perKg: false };

  // n x amount (or amount x n)
  let m = t.match(new RegExp(`^(\\d+) ?(?:x|×|\\*) ?${NUM} ?${UNIT}\\b`));
  if (m) {
    const a = amount(m[2], m[3]);
    if (a) return { ...a, packCount: Number(m[1]), perKg: false };
  }
  m = t.match(new RegExp(`^${NUM} ?${UNIT} ?(?:x|×|\\*) ?(\\d+)\\b`));
  if (m) {
    const a = amount(m[1], m[2]);
    if (a) return { ...a, packCount: Number(m[3]), perKg: false };
  }
  // amount then "n pk"
  m = t.match(new RegExp(`^${NUM} ?${UNIT} (\\d+) ?(?:pk|pack)\\b`));
  if (m) {
    const a = amount(m[1], m[2]);
    if (a) return { ...a, packCount: Number(m[3]), perKg: false };
  }
  // a count of items: "12pk", "12 pack", "12s", "6 each"
  m = t.match(/^(\d+) ?(pk|pack|s|ea|each|pcs|pieces)$/);
  if (m) return { qty: 1, unit: 'each', packCount: Number(m[1]), perKg: false };
  // a single amount: "500g", "1.5 l"
  m = t.match(new RegExp(`^${NUM} ?${UNIT}\\b`));
  if (m) {
    const a = amount(m[1], m[2]);
    if (a) return { ...a, packCount: 1, perKg: false };
  }
  return null;
}

/** Total quantity of a parsed size in its unit (`qty × packCount`). */
export function totalQty(size: ParsedSize): number {
  return clean(size.qty * size.packCount);
}

/**
 * Sheets in a pack when the size text counts them ("224 sheets", "3 x 90 sheets", "80ss"), else
 * null. Kept apart from {@link parseSize}, whose unit enumeration (g, ml, each, m) has no sheets:
 * only the per-100-sheets unit price (src/domain/unit-price.ts) reads it.
 */
export function sheetCount(text: string | null | undefined): number | null {
  if (!text) return null;
  const m = text.toLowerCase().trim().match(/^(?:(\d+) ?(?:x|×|\*) ?)?(\d+) ?(?:sheets?|ss)$/);
  if (!m) return null;
  const n = Number(m[2]) * (m[1] ? Number(m[1]) : 1);
  return n > 0 ? n : null;
}
