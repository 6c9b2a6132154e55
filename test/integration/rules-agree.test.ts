/**
 * Rules written twice, once in TypeScript and once in SQL, must agree on the same rows:
 * - the open-span end rule: src/domain/spans.ts spanTo vs src/services/span-sql.ts spanToSql, and
 *   a listing's last seen day and availability (src/domain/listings.ts lastSeen and isAvailable
 *   over src/services/prices.ts currentNationalSpans vs span-sql's latestNationalSpanJoin,
 *   listingLastSeenSql and listingAvailableSql, as the export and the search documents use them);
 * - search text normalisation: src/search/synonyms.ts normalizeSearchText vs the SQL
 *   `search_normalize` (prisma/migrations/20261121000100_search), over tricky strings and every
 *   name and brand of the real Woolworths catalogue;
 * - the no-card price (historical lows, check_special): src/domain/lows.ts noCardPrice vs span-sql's
 *   noCardPriceSql, over every combination of shelf price, promotional price and PromoKind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAvailable, lastSeen } from '../../src/domain/listings.js';
import { noCardPrice } from '../../src/domain/lows.js';
import { isCurrentSpan, spanTo } from '../../src/domain/spans.js';
import { normalizeSearchText } from '../../src/search/synonyms.js';
import { UNACCENT_DECOMPOSED, UNACCENT_REPLACED, UNACCENT_VERSION_DEPENDENT } from '../../src/search/unaccent.js';
import { currentNationalSpans } from '../../src/services/prices.js';
import {
  latestNationalSpanJoin,
  listingAvailableSql,
  listingLastSeenSql,
  currentSpanSql,
  nationalCoveredDay,
  noCardPriceSql,
  spanToSql,
  storeCoveredDay,
} from '../../src/services/span-sql.js';
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('rules_agree');
});
afterAll(async () => {
  await db?.drop();
});

const DAYS = [null, '2025-01-01', '2025-03-04', '2026-07-27'] as const;

describe('the open-span end rule', () => {
  // Every combination of first_day, last_day (null = open), seen_day and the scope's covered day.
  const cases = DAYS.flatMap((last) =>
    DAYS.flatMap((scope) => DAYS.flatMap((seen) =>
      ['2025-01-01', '2025-02-01'].map((first) => ({ first_day: first, last_day: last, seen_day: seen, scope })))),
  );
  const values = cases.map((_, i) => `($${4 * i + 1}::date, $${4 * i + 2}::date, $${4 * i + 3}::date, $${4 * i + 4}::date, ${i})`).join(', ');
  const params = cases.flatMap((c) => [c.first_day, c.last_day, c.seen_day, c.scope]);

  it.each([
    ['store spans', storeCoveredDay('st')],
    ['national spans', nationalCoveredDay('st')],
  ])('spanToSql equals spanTo on %s', async (_label, scopeExpr) => {
    // `st` plays the store or the retailer (covered_day) of the span `sp`.
    const scopeCol = scopeExpr.split('.')[1];
    const { rows } = await db.pool.query<{ i: number; to: string }>(
      `SELECT v.i, to_char(${spanToSql('sp', scopeExpr)}, 'YYYY-MM-DD') AS "to"
       FROM (VALUES ${values}) v(first_day, last_day, seen_day, scope, i)
       CROSS JOIN LATERAL (SELECT v.first_day, v.last_day, v.seen_day) sp
       CROSS JOIN LATERAL (SELECT v.scope AS ${scopeCol}) st
       ORDER BY v.i`,
      params,
    );
    expect(rows.map((r) => r.to)).toEqual(cases.map((c) => spanTo(c, c.scope)));
  });

  it.each([['store' as const], ['national' as const]])('currentSpanSql equals isCurrentSpan on %s spans', async (kind) => {
    // The scope's latest collection day: none, the covered day, 14 and 15 days after it.
    const latest = [null, '2026-07-27', '2026-08-10', '2026-08-11'];
    const rows4 = cases.flatMap((c) => latest.map((l) => ({ ...c, latest: l })));
    const vals = rows4.map((_, i) => `($${5 * i + 1}::date, $${5 * i + 2}::date, $${5 * i + 3}::date, $${5 * i + 4}::date, $${5 * i + 5}::date, ${i})`).join(', ');
    const ps = rows4.flatMap((c) => [c.first_day, c.last_day, c.seen_day, c.scope, c.latest]);
    const lastCol = kind === 'store' ? 'last_day' : 'last_national_day';
    const { rows } = await db.pool.query<{ i: number; current: boolean }>(
      `SELECT v.i, ${currentSpanSql('sp', 'sc', kind)} AS current
       FROM (VALUES ${vals}) v(first_day, last_day, seen_day, covered, latest, i)
       CROSS JOIN LATERAL (SELECT v.first_day, v.last_day, v.seen_day) sp
       CROSS JOIN LATERAL (SELECT v.covered AS covered_day, v.latest AS ${lastCol}) sc
       ORDER BY v.i`,
      ps,
    );
    const want = rows4.map((c) => isCurrentSpan(c, c.scope, c.latest));
    expect(rows.map((r) => r.current)).toEqual(want);
    expect(want.filter(Boolean).length).toBeGreaterThan(0);
    expect(want.filter((x) => !x).length).toBeGreaterThan(0);
  });

  it('last seen and availability in SQL equal lastSeen and isAvailable over currentNationalSpans', async () => {
    const { rows: [r] } = await db.pool.query<{ id: number }>(
      `UPDATE retailer SET last_national_day = '2026-08-03', covered_day = '2026-07-27' WHERE slug = 'woolworths' RETURNING id`,
    );
    // A chain whose latest collection (a partial one, 2026-12-02) saw only some of its listings.
    const { rows: [late] } = await db.pool.query<{ id: number }>(
      `UPDATE retailer SET last_national_day = '2026-12-02', covered_day = '2026-07-27' WHERE slug = 'paknsave' RETURNING id`,
    );
    const { rows: [other] } = await db.pool.query<{ id: number }>(
      `UPDATE retailer SET last_national_day = NULL WHERE slug = 'warehouse' RETURNING id`,
    );
    // [retailer, available flag, spans as [first_day, last_day, seen_day?]]
    const listings: [number, boolean, [string, string | null, string?][]][] = [
      [r.id, true, [['2025-01-01', '2025-02-01'], ['2025-02-02', null]]], // open: runs to the chain's covered day
      [r.id, true, [['2025-01-01', '2025-03-04']]], // closed: stopped being observed
      [r.id, false, [['2025-01-01', null]]], // open, flagged unavailable
      [r.id, true, []], // never priced nationally
      [other.id, true, [['2025-05-05', null]]], // open, chain never collected nationally
      [r.id, true, [['2026-07-20', null, '2026-08-03']]], // open, seen by the partial collection
      [late.id, true, [['2026-07-01', null]]], // open, not seen for 128 days before the chain's latest collection
      [late.id, true, [['2026-07-01', null, '2026-12-02']]], // open, seen by that collection
    ];
    const ids: number[] = [];
    for (const [i, [retailerId, available, spans]] of listings.entries()) {
      const { rows: [l] } = await db.pool.query<{ id: number }>(
        `INSERT INTO listing (retailer_id, external_id, name, first_seen, available)
         VALUES ($1, $2, $3, '2024-12-25', $4) RETURNING id`,
        [retailerId, `rules-${i}`, `rules listing ${i}`, available],
      );
      ids.push(l.id);
      for (const [first, last, seen] of spans) {
        await db.pool.query('INSERT INTO national_price_span (listing_id, first_day, last_day, seen_day, price) VALUES ($1, $2, $3, $4, 100)', [l.id, first, last, seen ?? null]);
      }
    }
    const { rows } = await db.pool.query<{ id: number; first_seen: string; available_flag: boolean; last_seen: string; available: boolean }>(
      `SELECT l.id, to_char(l.first_seen, 'YYYY-MM-DD') AS first_seen, l.available AS available_flag,
         to_char(${listingLastSeenSql('l', 'latest')}, 'YYYY-MM-DD') AS last_seen, ${listingAvailableSql('l', 'latest')} AS available
       FROM listing l JOIN retailer r ON r.id = l.retailer_id ${latestNationalSpanJoin('l', 'r', 'latest')}
       WHERE l.id = ANY($1::int[]) ORDER BY l.id`,
      [ids],
    );
    const latest = await currentNationalSpans(db.pool, ids);
    expect(rows.map((x) => [x.last_seen, x.available])).toEqual(
      rows.map((x) => [lastSeen(x.first_seen, latest.get(x.id)), isAvailable(x.available_flag, latest.get(x.id))]),
    );
    // And the expected values, spelled out.
    expect(rows.map((x) => [x.last_seen, x.available])).toEqual([
      ['2026-07-27', true],
      ['2025-03-04', false],
      ['2026-07-27', false],
      ['2024-12-25', false],
      ['2025-05-05', true],
      ['2026-08-03', true],
      ['2026-07-27', false],
      ['2026-12-02', true],
    ]);
  });
});

/** Every name and brand of the real Woolworths catalogue (neon-ninja--woolies/products.columns.tsv). */
function catalogueTexts(): string[] {
  const file = path.join(DATA_DIR, 'neon-ninja--woolies', 'products.columns.tsv');
  const [header, ...lines] = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
  const cols = header.split('\t');
  const name = cols.indexOf('name');
  const brand = cols.indexOf('brand');
  const texts = new Set<string>();
  for (const line of lines) {
    const f = line.split('\t');
    if (f[name]) texts.add(f[name]);
    if (f[brand]) texts.add(f[brand]);
  }
  return [...texts];
}

/** Strings chosen to trip a normaliser: accents, apostrophes, hyphens, dots, ampersands, spaces. */
const TRICKY = [
  '', ' ', '   ', 'Crème Brûlée', 'CRÈME fraîche', 'Jalapeño', 'Ñandú', 'Çava', 'Ångström', 'Māori kūmara', 'Ōtaki',
  "Pic's Peanut Butter", 'Pic’s Peanut Butter', 'Pic`s', "rock 'n' roll", "''", '’’’', 'L’Oréal',
  'Sun-Dried Tomatoes', 'co--op', '-', 'a - b', 'St. John’s', 'U.S.A.', '...', '1.5L', '2.5kg', '0.5 ltr',
  'Fish & Chips', 'A&W', '&&', ' & ', 'M&M’s', 'Salt&Vinegar',
  'two  spaces', ' lead and trail ', 'tab\there', 'new\nline', 'cr\r\nlf',
  'ÉCLAIR', 'naïve café', 'Über', 'Smörgåsbord', 'Piña Colada', 'Açaí', 'Crêpe', 'Gruyère', 'Emmentaler',
  'MIXED case Words', '100% NZ', 'Kiwi-Fruit (Gold)', 'Bread & Butter Pickles – Sweet', '“quoted”', 'Fat-free 0.5%',
  '½ price', '3×2', 'x-large', 'e’s', 'Ä Ö Ü ä ö ü', 'Straße', 'Ærø', 'Œuvre', 'Łódź', 'Þórr', 'ﬁsh',
  'no\u00a0break', 'thin\u2009space', 'ideo\u3000space', 'nnbsp\u202fx', 'e\u0301clair', 'Привет Й', 'Ελληνικά', 'ΟΔΟΣ ΣΟΦΟΣ', 'İstanbul', '한국어 김치', '日本語',
];

/**
 * Every character unaccent has a rule for (src/search/unaccent.ts) and every assigned character of
 * the Latin, Greek, Cyrillic, punctuation, letter-like and number-form blocks, alone and inside a
 * word; except the characters whose rule differs between PostgreSQL versions.
 */
function characterCorpus(): string[] {
  const chars = new Set<string>([...UNACCENT_DECOMPOSED, ...UNACCENT_REPLACED.keys()]);
  for (const [lo, hi] of [[0x00a0, 0x052f], [0x1e00, 0x1fff], [0x2000, 0x218f]]) {
    for (let cp = lo; cp <= hi; cp++) chars.add(String.fromCodePoint(cp));
  }
  return [...chars]
    .filter((ch) => !/\p{Cn}|\p{Cs}/u.test(ch) && !UNACCENT_VERSION_DEPENDENT.has(ch))
    .flatMap((ch) => [ch, `ab${ch}cd`]);
}

describe('search text normalisation', () => {
  it('normalizeSearchText equals SQL search_normalize on tricky strings, every character unaccent knows and the real catalogue', async () => {
    // ½ and the like map differently on PostgreSQL 15 and 18: left out wherever they occur.
    const tricky = TRICKY.filter((t) => ![...t].some((ch) => UNACCENT_VERSION_DEPENDENT.has(ch)));
    expect(tricky.length).toBeGreaterThan(TRICKY.length - 3);
    const corpus = [...tricky, ...characterCorpus(), ...catalogueTexts()];
    expect(corpus.length).toBeGreaterThan(15_000);
    const { rows } = await db.pool.query<{ s: string | null }>(
      'SELECT search_normalize(t) AS s FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i) ORDER BY i',
      [corpus],
    );
    const mismatches = corpus
      .map((text, i) => ({ text, sql: rows[i].s, ts: normalizeSearchText(text) }))
      .filter((m) => m.sql !== m.ts);
    expect(mismatches).toEqual([]);
  });

  it('search_document and search_category_text (PL/pgSQL, migration 20261212000000) equal their definition as one SQL expression on tricky strings and the real catalogue', async () => {
    // The documents' rule restated as a plain expression, as the first migration wrote it: a
    // faster body that weighted, stemmed or joined differently would change what search finds.
    const texts = [...TRICKY, ...catalogueTexts()];
    const names = texts.concat([null as unknown as string]);
    const brands = [...names.slice(1), names[0]];
    const paths = names.map((t, i) => (t === null ? [] : i % 3 === 0 ? [t] : i % 3 === 1 ? [t, 'Pantry & Baking', 'Crème-Fraîche'] : []));
    const { rows } = await db.pool.query<{ same_doc: boolean; same_cat: boolean; doc: string }>(
      `SELECT search_document(n, b, c) IS NOT DISTINCT FROM (
                setweight(to_tsvector('english', coalesce(search_normalize(n), '')), 'A')
             || setweight(to_tsvector('simple', coalesce(search_normalize(n), '')), 'A')
             || setweight(to_tsvector('english', coalesce(search_normalize(b), '')), 'B')
             || setweight(to_tsvector('english', coalesce(search_normalize(array_to_string(c, ' ')), '')), 'C')) AS same_doc,
              search_category_text(c) IS NOT DISTINCT FROM search_normalize(array_to_string(c, ' ')) AS same_cat,
              search_document(n, b, c)::text AS doc
       FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(n, b, p, i)
       CROSS JOIN LATERAL (SELECT CASE WHEN p IS NULL THEN '{}'::text[] ELSE p::text[] END AS c) x ORDER BY i`,
      [names, brands, paths.map((p) => `{${p.map((s) => `"${s.replace(/["\\]/g, '\\$&')}"`).join(',')}}`)],
    );
    expect(rows.length).toBe(names.length);
    expect(rows.filter((r) => !r.same_doc || !r.same_cat)).toEqual([]);
    // Not vacuous: weights of all three parts appear.
    expect(rows.some((r) => /:\d+A/.test(r.doc) && /:\d+B/.test(r.doc) && /:\d+C/.test(r.doc))).toBe(true);
  });
});

describe('the no-card price', () => {
  it('noCardPriceSql equals noCardPrice on every combination of shelf price, promo price and PromoKind', async () => {
    const tuples: { price: number; promo_price: number | null; promo_kind: number | null }[] = [];
    for (const price of [0, 250, 500]) {
      for (const promo_price of [null, -1, 0, 249, 250, 251, 600]) {
        for (const promo_kind of [null, 1, 2, 3, 4]) tuples.push({ price, promo_price, promo_kind });
      }
    }
    const { rows } = await db.pool.query<{ paid: number }>(
      `SELECT ${noCardPriceSql('t')} AS paid
       FROM unnest($1::int[], $2::int[], $3::smallint[]) WITH ORDINALITY AS t(price, promo_price, promo_kind, n) ORDER BY t.n`,
      [tuples.map((t) => t.price), tuples.map((t) => t.promo_price), tuples.map((t) => t.promo_kind)],
    );
    const expected = tuples.map((t) => noCardPrice({ ...t, promo_kind: t.promo_kind as 1 | 2 | 3 | 4 | null, multibuy_qty: null, multibuy_price: null }));
    expect(rows.map((r) => r.paid)).toEqual(expected);
    // Only a special below the shelf price, at a positive price, is paid without a card.
    expect(noCardPrice({ price: 500, promo_price: 250, promo_kind: 1, multibuy_qty: null, multibuy_price: null })).toBe(250);
    expect(noCardPrice({ price: 500, promo_price: 250, promo_kind: 2, multibuy_qty: null, multibuy_price: null })).toBe(500);
    expect(noCardPrice({ price: 500, promo_price: 250, promo_kind: 3, multibuy_qty: 2, multibuy_price: 500 })).toBe(500);
  });
});
