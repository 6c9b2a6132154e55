/**
 * Ingest against a real PostgreSQL: real rows (test/fixtures, from full_results.csv) for shapes,
 * idempotency and rejection; a synthetic multi-day panel (random prices, named as such) checks the
 * set-based SQL merge against the pure reference in src/domain/spans.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { insertFixtureStores } from '../helpers/fixtures.js';
import { ingest, type IngestOptions, type IngestResult } from '../../workers/ingest/ingest.js';
import {
  MAX_HEADER_LINE_BYTES, OBSERVATION_COLUMNS, ObservationError, readObservationFile, validateObservation, type ObservationInput, type RawRecord,
} from '../../workers/ingest/format.js';
import { addDays, nzToday } from '../../src/domain/days.js';
import { mergeDay, nationalPrice, type CollectionMode, type PriceTuple, type PromoKind, type ScopeDays, type Span } from '../../src/domain/spans.js';

const FIX = new URL('../fixtures/', import.meta.url).pathname;
const TABLES = ['listing', 'store_price_span', 'national_price_span', 'listing_day_stats', 'collection', 'store', 'retailer'];


/** Every row of every table, as text, to prove that nothing changed. */
async function dump(db: TestDatabase): Promise<string> {
  const parts: string[] = [];
  for (const t of TABLES) {
    const r = await db.pool.query(`SELECT * FROM ${t} ORDER BY 1, 2`);
    parts.push(JSON.stringify(r.rows.map((row) => ({ ...row, ingested_at: undefined, last_run: undefined }))));
  }
  return parts.join('\n');
}

const records = (rows: ObservationInput[]) => rows.map((record, i) => ({ line: i + 2, record }));

describe('ingest of real observations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('ingest');
    await insertFixtureStores(db.pool);
  });
  afterAll(async () => db?.drop());

  it('rejects a file with a malformed row whole, naming its line, and writes nothing', async () => {
    const before = await dump(db);
    const err = await ingest(db.pool, readObservationFile(`${FIX}bad-row.csv`)).catch((e) => e);
    expect(err).toBeInstanceOf(ObservationError);
    expect(err.line).toBe(4);
    // Issue 13 (5): errors name the file, the line and the column (was `line 4: price: …`).
    expect(err.message).toBe('bad-row.csv line 4, column price: "12.x" is not integer cents (write digits only, e.g. 349)');
    expect(await dump(db)).toBe(before);
  });

  it('turns store observations into store spans, national medians and daily statistics', async () => {
    const r = await ingest(db.pool, readObservationFile(`${FIX}paknsave-2026-08-03.csv`), { source: 'fixture' });
    expect(r).toMatchObject({ rows: 7, days: ['2026-08-03'], merged: ['2026-08-03'], skipped: 0 });
    const nat = await db.pool.query(
      `SELECT l.external_id, n.first_day, n.last_day, n.price, n.promo_price, n.promo_kind
       FROM national_price_span n JOIN listing l ON l.id = n.listing_id ORDER BY l.external_id`,
    );
    expect(nat.rows).toEqual([
      { external_id: '5006239-EA-000', first_day: '2026-08-03', last_day: null, price: 429, promo_price: null, promo_kind: null },
      { external_id: '5125914-KGM-000', first_day: '2026-08-03', last_day: null, price: 2399, promo_price: null, promo_kind: null },
      { external_id: '5349244-EA-000', first_day: '2026-08-03', last_day: null, price: 555, promo_price: 555, promo_kind: 1 },
    ]);
    const stats = await db.pool.query(
      `SELECT l.external_id, s.min, s.med, s.max, s.n FROM listing_day_stats s JOIN listing l ON l.id = s.listing_id ORDER BY 1`,
    );
    expect(stats.rows[1]).toEqual({ external_id: '5125914-KGM-000', min: 2099, med: 2399, max: 2399, n: 3 });
    const l = await db.pool.query(`SELECT name, size_text, category_path, first_seen FROM listing WHERE external_id = '5125914-KGM-000'`);
    expect(l.rows[0]).toEqual({ name: 'NZ Beef Prime Mince', size_text: '1kg', category_path: ['Meat, Poultry & Seafood', 'Beef'], first_seen: '2026-08-03' });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM store_price_span')).rows[0].n).toBe(7);
    const ret = await db.pool.query(`SELECT last_national_day FROM retailer WHERE slug = 'paknsave'`);
    expect(ret.rows[0].last_national_day).toBe('2026-08-03');
  });

  it('changes nothing when the same day is ingested again, as CSV or as NDJSON', async () => {
    const before = await dump(db);
    const again = await ingest(db.pool, readObservationFile(`${FIX}paknsave-2026-08-03.csv`));
    expect(again).toMatchObject({ merged: [], skipped: 1 });
    const nd = await ingest(db.pool, readObservationFile(`${FIX}paknsave-2026-08-03.ndjson`));
    expect(nd).toMatchObject({ rows: 7, merged: [], skipped: 1 });
    expect(await dump(db)).toBe(before);
  });

  it('rejects a day already ingested with different prices, and a day older than the stored history', async () => {
    const before = await dump(db);
    const changed = records([{ day: '2026-08-03', retailer: 'paknsave', store: '60561e46-ece7-43a7-b142-9b14812586e4', external_id: '5006239-EA-000', price: 1 }]);
    await expect(ingest(db.pool, changed)).rejects.toThrow(/already ingested with different observations/);
    const older = records([{ day: '2026-08-02', retailer: 'paknsave', store: '60561e46-ece7-43a7-b142-9b14812586e4', external_id: '5006239-EA-000', price: 1 }]);
    await expect(ingest(db.pool, older)).rejects.toThrow(/not after the last ingested day 2026-08-03/);
    expect(await dump(db)).toBe(before);
  });

  it('rejects unknown stores and retailers, duplicates and inconsistent promotions with their lines', async () => {
    const before = await dump(db);
    const base = { day: '2026-08-04', retailer: 'paknsave', store: '60561e46-ece7-43a7-b142-9b14812586e4', external_id: 'x', price: 100 };
    await expect(ingest(db.pool, records([base, { ...base, store: 'nowhere' }]))).rejects.toThrow(/^line 3: unknown store "nowhere"/);
    await expect(ingest(db.pool, records([{ ...base, retailer: 'countdown' }]))).rejects.toThrow(/unknown retailer "countdown"/);
    await expect(ingest(db.pool, records([base, base]))).rejects.toThrow(/^line 3: duplicate observation/);
    await expect(ingest(db.pool, records([base, { ...base, external_id: 'y', promo_price: 90 }]))).rejects.toThrow(/^line 3, column promo_kind: /); // issue 13 (5): was `line 3: promo_kind: …`
    await expect(ingest(db.pool, records([{ ...base, retailer: 'warehouse' }]))).rejects.toThrow(/national prices only/);
    expect(await dump(db)).toBe(before);
  });
});

describe('issue 13: what ingest refuses, and concurrent ingests', () => {
  let db: TestDatabase;
  let dir: string;
  const STORE = '60561e46-ece7-43a7-b142-9b14812586e4';
  const HEADER = 'day,retailer,store,external_id,price,promo_price,promo_kind,multibuy_qty,multibuy_price,name';
  /** Writes `text` as `name` in a fresh temporary folder and returns its path. */
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  };
  const row = (over: Partial<ObservationInput> = {}): ObservationInput =>
    ({ day: '2026-08-10', retailer: 'paknsave', store: STORE, external_id: 'SYN-1', price: 349, ...over });
  const refusal = async (input: Parameters<typeof ingest>[1], opts: IngestOptions = {}) => {
    const before = await dump(db);
    const err = await ingest(db.pool, input, { progress: false, ...opts }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ObservationError);
    expect(await dump(db)).toBe(before); // nothing written
    return err as ObservationError;
  };

  beforeAll(async () => {
    db = await createTestDatabase('ingest_refusals');
    await insertFixtureStores(db.pool);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-test-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('(1) refuses a day after today in New Zealand, naming the line, before anything is written', async () => {
    const err = await refusal(records([row({ day: '2026-08-09' }), row({ day: '2027-01-01', external_id: 'SYN-2' })]), { today: '2026-11-27' });
    expect(err.message).toBe(
      'line 3, column day: 2027-01-01 is after today in New Zealand (2026-11-27): a collection day cannot be in the future (history is append-only, so it would block every later real day)',
    );
    expect(err.line).toBe(3);
    // Without the option, "today" is the clock's day in Pacific/Auckland.
    await refusal(records([row({ day: addDays(nzToday(), 1) })]), {});
    // Today itself is a collection day; the refused future day blocked nothing.
    const r = await ingest(db.pool, records([row({ day: '2026-08-09' })]), { today: '2026-08-09', progress: false });
    expect(r.merged).toEqual(['2026-08-09']);
    await expect(ingest(db.pool, records([row()]), { today: 'tomorrow' })).rejects.toThrow(RangeError);
  });

  it('(2) reads integer columns strictly: plain digits only, and a missing value is never 0', () => {
    const v = (over: Record<string, unknown>) => validateObservation({ line: 2, record: { ...row(), ...over } });
    const msg = (over: Record<string, unknown>) => {
      try {
        v(over);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    // Missing price: "" (CSV), null or an absent key (NDJSON) — it used to become 0 cents.
    expect(msg({ price: '' })).toBe('line 2, column price: price is required');
    expect(msg({ price: null })).toBe('line 2, column price: price is required');
    const { price: _, ...noPrice } = row();
    expect(() => validateObservation({ line: 2, record: noPrice })).toThrow('line 2, column price: price is required');
    // What z.coerce.number() used to accept, and other non-digit spellings.
    for (const bad of ['0x10', '0b101', '0o7', '1e3', ' 12 ', '12 ', '12.0', '12.5', '-1', '+5', '007', '1,000', 'Infinity', '12.x']) {
      expect(msg({ price: bad })).toBe(`line 2, column price: ${JSON.stringify(bad)} is not integer cents (write digits only, e.g. 349)`);
    }
    for (const bad of [12.5, -1, Number.NaN]) expect(msg({ price: bad })).toMatch(/^line 2, column price: .* is not integer cents/);
    expect(msg({ price: '100000001' })).toBe('line 2, column price: 100000001 cents is too large (at most 100000000)');
    expect(msg({ promo_price: ' 90', promo_kind: 1 })).toMatch(/^line 2, column promo_price: " 90" is not integer cents/);
    expect(msg({ promo_price: 90, promo_kind: '1e0' })).toBe('line 2, column promo_kind: "1e0" is not a whole number (write digits only, e.g. 1)');
    expect(msg({ promo_price: 90, promo_kind: '5' })).toBe('line 2, column promo_kind: must be 1 to 4, not 5');
    expect(msg({ promo_kind: 3, multibuy_qty: '0x2', multibuy_price: 500 })).toMatch(/^line 2, column multibuy_qty: "0x2" is not a whole number/);
    expect(msg({ promo_kind: 3, multibuy_qty: 2, multibuy_price: '5e2' })).toMatch(/^line 2, column multibuy_price: "5e2" is not integer cents/);
    // Accepted: digits as text or as a JSON integer; "" is a missing optional value (no promotion), not 0.
    expect(v({ price: '349' }).price).toBe(349);
    expect(v({ price: 349 }).price).toBe(349);
    expect(v({ price: '0' }).price).toBe(0);
    expect(v({ price: '349', promo_price: '', promo_kind: '', multibuy_qty: '', multibuy_price: '' })).toMatchObject({
      price: 349, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null,
    });
    expect(v({ promo_kind: '3', multibuy_qty: '2', multibuy_price: '500' })).toMatchObject({ promo_price: 250, promo_kind: 3, multibuy_qty: 2 });
  });

  it('(2, 5) names the file, line and column of a malformed price in a CSV file, and writes nothing', async () => {
    const csv = [HEADER, '2026-08-10,paknsave,' + STORE + ',SYN-1,349,,,,,One', '2026-08-10,paknsave,' + STORE + ',SYN-2,0,,,,,Two',
      '2026-08-10,paknsave,' + STORE + ',SYN-3,1e3,,,,,Three'].join('\n');
    const err = await refusal(readObservationFile(file('observations.csv', csv)));
    expect(err.message).toBe('observations.csv line 4, column price: "1e3" is not integer cents (write digits only, e.g. 349)');
    expect([err.file, err.line, err.column]).toEqual(['observations.csv', 4, 'price']);
    const empty = await refusal(readObservationFile(file('empty-price.csv', [HEADER, `2026-08-10,paknsave,${STORE},SYN-1,,,,,,One`].join('\n'))));
    expect(empty.message).toBe('empty-price.csv line 2, column price: price is required');
  });

  it('(issue 31) refuses malformed CSV in the parser\'s words: a row of too few or too many fields, an unclosed quote', async () => {
    const ok = `2026-08-10,paknsave,${STORE},SYN-1,349,,,,,One`;
    const cases: [string, string[]][] = [
      ['short.csv', [HEADER, ok, `2026-08-10,paknsave,${STORE},SYN-2,349`]],
      ['long.csv', [HEADER, '', ok, `${ok},extra`]],
      ['multiline.csv', [HEADER, `2026-08-10,paknsave,${STORE},SYN-2,349,,,,,"Two`, `lines",more`]],
      ['quote.csv', [HEADER, ok, `2026-08-10,paknsave,${STORE},SYN-2,349,,,,,"One`]],
    ];
    const got: string[] = [];
    for (const [name, lines] of cases) got.push((await refusal(readObservationFile(file(name, lines.join('\n'))))).message);
    // As worded before records were read as arrays (the parser's `columns` option).
    expect(got).toEqual([
      'short.csv line 3: malformed CSV: Invalid Record Length: columns length is 10, got 5 on line 3',
      'long.csv line 4: malformed CSV: Invalid Record Length: columns length is 10, got 11 on line 4',
      'multiline.csv line 3: malformed CSV: Invalid Record Length: columns length is 10, got 11 on line 3',
      'quote.csv line 3: malformed CSV: Quote Not Closed: the parsing is finished with an opening quote at line 3',
    ]);
  });

  it('(2) reads NDJSON numbers strictly too: a JSON integer or a string of digits', async () => {
    const line = (price: string, extra = '') =>
      `{"day": "2026-08-10", "retailer": "paknsave", "store": "${STORE}", "external_id": "SYN-1", "name": "Size 1.5e2 \\"x\\": 1.0", "price": ${price}${extra}}`;
    for (const [price, shownAs] of [['1e3', '"1e3"'], ['349.0', '"349.0"'], ['3.49E2', '"3.49E2"'], ['-1', '"-1"'], ['-0', '"-0"'], ['""', '""']] as const) {
      const err = await refusal(readObservationFile(file('price.ndjson', `${line('349')}\n${line(price)}\n`)));
      expect(err.message).toBe(
        price === '""' ? 'price.ndjson line 2, column price: price is required' : `price.ndjson line 2, column price: ${shownAs} is not integer cents (write digits only, e.g. 349)`,
      );
    }
    const kind = await refusal(readObservationFile(file('kind.ndjson', `${line('349', ', "promo_price": 300, "promo_kind": 1.0')}\n`)));
    expect(kind.message).toBe('kind.ndjson line 1, column promo_kind: "1.0" is not a whole number (write digits only, e.g. 1)');
    // Numbers inside strings and arrays are text, not values; "349" as a string is fine.
    const ok = await readObservationFile(file('ok.ndjson', `${line('"349"', ', "category_path": ["1.5", "2e3"]')}\n`)).next();
    expect(validateObservation(ok.value as RawRecord)).toMatchObject({ price: 349, name: 'Size 1.5e2 "x": 1.0', category_path: ['1.5', '2e3'] });
  });

  it('(3) refuses a NUL byte in any text field, naming the line and column (it used to reach PostgreSQL)', async () => {
    const csv = [HEADER, `2026-08-10,paknsave,${STORE},SYN-1,349,,,,,One`, `2026-08-10,paknsave,${STORE},SYN-2,349,,,,,Tw\u0000o`].join('\n');
    const err = await refusal(readObservationFile(file('nul.csv', csv)));
    expect(err.message).toBe('nul.csv line 3, column name: contains a NUL byte (\\0), which text cannot hold');
    const nd = `${JSON.stringify(row())}\n${JSON.stringify(row({ external_id: 'SYN\u00002' }))}\n`;
    expect((await refusal(readObservationFile(file('nul.ndjson', nd)))).message).toMatch(/^nul\.ndjson line 2, column external_id: contains a NUL byte/);
    expect((await refusal(records([row({ category_path: ['Pantry', 'Pa\u0000sta'] })]))).message).toMatch(/^line 2, column category_path: contains a NUL byte/);
    expect((await refusal(records([row({ store: `${STORE}\u0000` })]))).message).toMatch(/^line 2, column store: contains a NUL byte/);
  });

  it('(5) refuses an unknown or misspelled CSV column and a missing required one, before reading rows', async () => {
    const typo = await refusal(readObservationFile(file('typo.csv', `day,retailer,store,external_id,prcie\n2026-08-10,paknsave,${STORE},SYN-1,349\n`)));
    expect(typo.message).toBe(
      'typo.csv line 1: bad header: unknown column "prcie" (did you mean "price"?); missing required column "price" ' +
      `(the columns are ${OBSERVATION_COLUMNS.join(', ')}; docs/ingest.md "Observation format")`,
    );
    // An extra column used to be ignored silently.
    const extra = await refusal(readObservationFile(file('extra.csv', `${HEADER},colour\n2026-08-10,paknsave,${STORE},SYN-1,349,,,,,One,red\n`)));
    expect(extra.message).toMatch(/^extra\.csv line 1, column colour: bad header: unknown column "colour" \(the columns are day, /);
    const missing = await refusal(readObservationFile(file('missing.csv', `day,store,external_id,price\n2026-08-10,${STORE},SYN-1,349\n`)));
    expect(missing.message).toMatch(/^missing\.csv line 1: bad header: missing required column "retailer" /);
    const twice = await refusal(readObservationFile(file('twice.csv', `${HEADER},price\n2026-08-10,paknsave,${STORE},SYN-1,349,,,,,One,349\n`)));
    expect(twice.message).toMatch(/^twice\.csv line 1: bad header: column "price" appears twice/);
    const spaced = await refusal(readObservationFile(file('spaced.csv', `day,retailer,store,External ID,price\n2026-08-10,paknsave,${STORE},SYN-1,349\n`)));
    expect(spaced.message).toMatch(/unknown column "External ID" \(did you mean "external_id"\?\); missing required column "external_id"/);
  });

  it('(5) refuses unknown or misspelled NDJSON keys and a missing required key, naming line and column', async () => {
    const typo = `${JSON.stringify(row())}\n${JSON.stringify({ ...row({ external_id: 'SYN-2' }), promo_prise: 300 })}\n`;
    expect((await refusal(readObservationFile(file('typo.ndjson', typo)))).message).toBe(
      'typo.ndjson line 2, column promo_prise: unknown column "promo_prise" (did you mean "promo_price"?)',
    );
    const { price: _, ...noPrice } = row();
    expect((await refusal(readObservationFile(file('no-price.ndjson', `\n${JSON.stringify(noPrice)}\n`)))).message).toBe(
      'no-price.ndjson line 2, column price: price is required',
    );
    const { external_id: __, ...noId } = row();
    expect((await refusal(readObservationFile(file('no-id.ndjson', `${JSON.stringify(noId)}\n`)))).message).toBe(
      'no-id.ndjson line 1, column external_id: external_id is required', // it used to become the text "undefined"
    );
    expect((await refusal(records([{ ...row(), colour: 'red' } as ObservationInput]))).message).toBe('line 2, column colour: unknown column "colour"');
  });

  it('(issue 29) refuses an empty file, and a CSV file without a header row, writing nothing', async () => {
    for (const name of ['empty.csv', 'empty.ndjson']) {
      const err = await refusal(readObservationFile(file(name, '')));
      expect(err.message).toBe(`${name}: empty file (0 bytes): nothing to ingest (docs/ingest.md "Observation format")`);
    }
    const blank = await refusal(readObservationFile(file('blank.csv', '\n\r\n\n')));
    expect(blank.message).toMatch(/^blank\.csv line 1: bad header: no header row, the file holds only empty lines \(the columns are day, /);
    const blankNd = await refusal(readObservationFile(file('blank.ndjson', '\n  \n')));
    expect(blankNd.message).toBe('blank.ndjson: no observations: the file holds only blank lines (docs/ingest.md "Observation format")');
    // A byte-order mark and empty lines before the header are still fine, and so is a header without rows.
    const ok = await readObservationFile(file('bom.csv', `\ufeff\r\n${HEADER}\r\n2026-08-10,paknsave,${STORE},SYN-1,349,,,,,One\r\n`)).next();
    expect(validateObservation(ok.value as RawRecord)).toMatchObject({ external_id: 'SYN-1', price: 349 });
    expect((await readObservationFile(file('header-only.csv', `${HEADER}\n`)).next()).done).toBe(true);
  });

  it('(issue 29) refuses a first line too long to be a header at once, quoting only its start (1 MB took 38 s and 1.2 GB; 20 MB crashed)', async () => {
    for (const [name, bytes] of [['long-header.csv', MAX_HEADER_LINE_BYTES + 1], ['huge-header.csv', 1 << 20], ['giant-header.csv', 20 << 20]] as const) {
      const header = `day,retailer,external_id,price,${'x'.repeat(bytes - 31)}`;
      expect(Buffer.byteLength(header)).toBe(bytes);
      const started = performance.now();
      const err = await refusal(readObservationFile(file(name, `${header}\n2026-08-10,paknsave,SYN-1,349,x\n`)));
      expect(performance.now() - started, name).toBeLessThan(5_000);
      expect(err.message).toBe(
        `${name} line 1: bad header: the header line is longer than ${MAX_HEADER_LINE_BYTES} bytes (it begins "day,retailer,external_id,price,${'x'.repeat(9)}"…) ` +
          `(the columns are ${OBSERVATION_COLUMNS.join(', ')}; docs/ingest.md "Observation format")`,
      );
    }
    // A first line without a line end, and one after empty lines, are measured the same way.
    expect((await refusal(readObservationFile(file('no-newline.csv', 'a'.repeat(MAX_HEADER_LINE_BYTES + 1))))).message).toMatch(/^no-newline\.csv line 1: bad header: the header line is longer than/);
    expect((await refusal(readObservationFile(file('late.csv', `\n\n${'b'.repeat(MAX_HEADER_LINE_BYTES + 1)}\n`)))).message).toMatch(/^late\.csv line 3: bad header: the header line is longer than/);
  });

  it('(issue 29) names a long unknown column or value by an excerpt, and never compares megabytes with the columns', async () => {
    // Within the header bound: one column of 8,000 characters.
    const wide = 'w'.repeat(8_000);
    const csv = await refusal(readObservationFile(file('wide.csv', `day,retailer,external_id,price,${wide}\n2026-08-10,paknsave,SYN-1,349,x\n`)));
    expect(csv.message).toBe(`wide.csv line 1, column ${'w'.repeat(40)}… (8000 characters): bad header: unknown column "${'w'.repeat(40)}"… (8000 characters) (the columns are ${OBSERVATION_COLUMNS.join(', ')}; docs/ingest.md "Observation format")`);
    // NDJSON has no header: a key of a megabyte is a column too.
    const key = 'k'.repeat(1 << 20);
    const started = performance.now();
    const nd = await refusal(readObservationFile(file('key.ndjson', `${JSON.stringify({ ...row(), [key]: 1 })}\n`)));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(nd.message).toBe(`key.ndjson line 1, column ${'k'.repeat(40)}… (1048576 characters): unknown column "${'k'.repeat(40)}"… (1048576 characters)`);
    // A long value: its first characters.
    const value = await refusal(records([row({ price: `1${'0'.repeat(100_000)}x` })]));
    expect(value.message).toBe(`line 2, column price: "1${'0'.repeat(39)}"… (100002 characters) is not integer cents (write digits only, e.g. 349)`);
    // Many unknown columns: five named, the rest counted.
    const many = await refusal(readObservationFile(file('many.csv', `${HEADER},${Array.from({ length: 500 }, (_, i) => `c${i}`).join(',')}\n`)));
    expect(many.message).toMatch(/unknown column "c4"; 495 more unknown or repeated columns \(the columns are /);
    expect(many.message.length).toBeLessThan(600);
    // Unknown stores and retailers too.
    expect((await refusal(records([row({ store: 's'.repeat(1000) })]))).message).toBe(`line 2: unknown store "${'s'.repeat(40)}…" (1000 characters) of paknsave (import the store list first)`);
    expect((await refusal(records([row({ retailer: 'r'.repeat(5000) })]))).message).toBe(`line 2: unknown retailer "${'r'.repeat(40)}…" (5000 characters)`);
  });

  it('(4) serialises two concurrent ingests of the same chain-day: one merges, the other is an identical re-ingest', async () => {
    // Synthetic day: 3 real fixture stores × 600 made-up listings, so that both calls overlap.
    const stores = ['60561e46-ece7-43a7-b142-9b14812586e4', '5f167936-79ae-4f6a-b9d2-74afe1bb096b', '2a1b331a-fc4a-496a-b072-e97cc8f70cae'];
    const day = (d: string, bump = 0) =>
      records(stores.flatMap((store, s) => Array.from({ length: 600 }, (_, l) => ({
        day: d, retailer: 'paknsave', store, external_id: `SYN-C${l}`, price: 100 + ((s * 7 + l * 13) % 500) + bump,
      }))));
    for (const d of ['2026-08-11', '2026-08-12', '2026-08-13']) {
      const [a, b] = await Promise.allSettled([ingest(db.pool, day(d), { progress: false }), ingest(db.pool, day(d), { progress: false })]);
      for (const r of [a, b]) if (r.status === 'rejected') throw r.reason; // neither fails: the second waits and sees the first
      const results = [a, b].map((r) => (r as PromiseFulfilledResult<IngestResult>).value);
      expect(results.map((r) => r.merged.length).sort()).toEqual([0, 1]);
      expect(results.map((r) => r.skipped).sort()).toEqual([0, 1]);
      const coll = await db.pool.query('SELECT count(*)::int AS n, sum(rows)::int AS rows FROM collection WHERE day = $1 AND store_id IS NOT NULL', [d]);
      expect(coll.rows[0]).toEqual({ n: 3, rows: 1800 });
      const spans = await db.pool.query(`SELECT count(*)::int AS n FROM store_price_span sp JOIN listing l ON l.id = sp.listing_id
        WHERE l.external_id LIKE 'SYN-C%' AND sp.first_day = $1`, [d]);
      expect(spans.rows[0].n).toBe(d === '2026-08-11' ? 1800 : 0); // later days: same prices, spans extended, none opened
    }
    // The same day with different prices at once: one is merged, the other refused in plain words.
    const d = '2026-08-14';
    const [a, b] = await Promise.allSettled([ingest(db.pool, day(d, 1), { progress: false }), ingest(db.pool, day(d, 2), { progress: false })]);
    const rejected = [a, b].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBeInstanceOf(ObservationError);
    expect(rejected[0].reason.message).toMatch(/^line 2: paknsave 2026-08-14 was already ingested with different observations/);
    const won = day(d, a.status === 'fulfilled' ? 1 : 2).map(({ record: r }) => `${r.store} ${r.external_id} ${r.price}`).sort();
    const prices = await db.pool.query(`SELECT st.external_id AS store, l.external_id, sp.price FROM store_price_span sp
      JOIN listing l ON l.id = sp.listing_id JOIN store st ON st.id = sp.store_id
      WHERE l.external_id LIKE 'SYN-C%' AND sp.first_day = $1`, [d]);
    // Every opened span carries the winner's price, none the loser's.
    expect(prices.rows.map((r) => `${r.store} ${r.external_id} ${r.price}`).sort()).toEqual(won);
  });
});

describe('set-based merge equals the reference merge (synthetic panel)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('merge');
    for (let s = 1; s <= 4; s++) {
      await db.pool.query(
        `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area)
         SELECT id, $1, $2, -36.9, 174.9, 'Synthetic', 'Synthetic' FROM retailer WHERE slug = 'newworld'`,
        [`syn-${s}`, `Synthetic store ${s}`],
      );
    }
  });
  afterAll(async () => db?.drop());

  it('produces the same store and national spans over 25 random days, in every mode, after gaps and with a store missing', async () => {
    // Deterministic pseudo-random generator (synthetic data, not real prices).
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    const storeRef = new Map<string, Map<string, Span[]>>();
    const storeDays = new Map<string, ScopeDays>();
    const natRef = new Map<string, Span[]>();
    const natDays: ScopeDays = { lastDay: null, coveredDay: null };
    const last: Record<string, PriceTuple> = {};
    let day = '2026-01-01';
    const wantListings: { day: string; listings: number }[] = [];
    for (let d = 0; d < 25; d++) {
      day = addDays(day, 1 + (d % 3));
      // Some days are change logs, some partial collections, some follow unknown days (every open
      // span closes before them); on some one of the chain's four stores is not collected, so the
      // chain's national scope is not covered that day.
      const mode: CollectionMode = d % 5 === 3 ? 'changes' : d % 5 === 1 ? 'partial' : 'snapshot';
      const afterGap = d % 7 === 5;
      const storeCount = d % 4 === 2 ? 3 : 4;
      const rows: ObservationInput[] = [];
      const perListing = new Map<string, PriceTuple[]>();
      for (let s = 1; s <= storeCount; s++) {
        const obs = new Map<string, PriceTuple>();
        for (let l = 1; l <= 6; l++) {
          if (rand() < 0.15) continue; // not observed at this store today
          const key = `s${s}l${l}`;
          let t = last[key];
          if (!t || rand() < 0.3) {
            const kind = pick<PromoKind | null>([null, null, 1, 2, 3]);
            const price = pick([199, 249, 250, 299, 349]);
            t = kind === 3
              ? { price, promo_price: 200, promo_kind: 3, multibuy_qty: pick([2, 3]), multibuy_price: pick([400, 500]) }
              : { price, promo_price: kind ? price - 50 : null, promo_kind: kind, multibuy_qty: null, multibuy_price: null };
            if (kind === 3) t.promo_price = Math.round((t.multibuy_price as number) / (t.multibuy_qty as number));
            last[key] = t;
          }
          obs.set(`l${l}`, t);
          rows.push({ day, retailer: 'newworld', store: `syn-${s}`, external_id: `l${l}`, ...t });
          perListing.set(`l${l}`, [...(perListing.get(`l${l}`) ?? []), t]);
        }
        const spans = storeRef.get(`syn-${s}`) ?? new Map();
        const sd = storeDays.get(`syn-${s}`) ?? { lastDay: null, coveredDay: null };
        mergeDay(spans, sd, day, obs, { mode, afterGap });
        storeRef.set(`syn-${s}`, spans);
        storeDays.set(`syn-${s}`, sd);
      }
      mergeDay(natRef, natDays, day, new Map([...perListing].map(([k, v]) => [k, nationalPrice(v)])), {
        mode, afterGap, covers: mode !== 'partial' && storeCount === 4,
      });
      await ingest(db.pool, records(rows), { mode, afterGap });
      wantListings.push({ day, listings: perListing.size });
    }
    const cols = 'first_day, last_day, seen_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price';
    const spCols = cols.split(', ').map((c) => `sp.${c}`).join(', ');
    const got = await db.pool.query(
      `SELECT st.external_id AS store, l.external_id AS listing, ${spCols} FROM store_price_span sp
       JOIN store st ON st.id = sp.store_id JOIN listing l ON l.id = sp.listing_id ORDER BY 1, 2, sp.first_day`,
    );
    const want = [...storeRef].sort().flatMap(([store, m]) =>
      [...m].sort().flatMap(([listing, spans]) => spans.map((s) => ({ store, listing, ...s }))));
    expect(got.rows).toEqual(want.map((w) => pickCols(w)));
    const gotNat = await db.pool.query(
      `SELECT l.external_id AS listing, ${cols} FROM national_price_span n JOIN listing l ON l.id = n.listing_id ORDER BY 1, n.first_day`,
    );
    const wantNat = [...natRef].sort().flatMap(([listing, spans]) => spans.map((s) => ({ listing, ...s })));
    expect(gotNat.rows).toEqual(wantNat.map((w) => pickCols(w)));
    expect(gotNat.rows.length).toBeGreaterThan(6); // prices did change
    expect(gotNat.rows.some((r) => r.seen_day !== null)).toBe(true); // partial days were seen
    // The scopes' days agree too (latest collection and covered day).
    const st = await db.pool.query(`SELECT external_id, last_day, covered_day FROM store WHERE external_id LIKE 'syn-%' ORDER BY 1`);
    expect(st.rows).toEqual([...storeDays].sort().map(([k, v]) => ({ external_id: k, last_day: v.lastDay, covered_day: v.coveredDay })));
    const nr = await db.pool.query(`SELECT last_national_day, covered_day FROM retailer WHERE slug = 'newworld'`);
    expect(nr.rows[0]).toEqual({ last_national_day: natDays.lastDay, covered_day: natDays.coveredDay });
    // The chain's collections count the listings observed each day.
    const coll = await db.pool.query(`SELECT day::text, listings FROM collection WHERE store_id IS NULL ORDER BY day`);
    expect(coll.rows).toEqual(wantListings);
  });
});

function pickCols(w: Record<string, unknown>) {
  const { store, listing, first_day, last_day, seen_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price } = w;
  return {
    ...(store ? { store } : {}), listing, first_day, last_day, seen_day: seen_day ?? null, price, promo_price, promo_kind, multibuy_qty, multibuy_price,
  };
}

describe('collection digests: v2, and those written before it', () => {
  let db: TestDatabase;
  const STORES = ['60561e46-ece7-43a7-b142-9b14812586e4', '5f167936-79ae-4f6a-b9d2-74afe1bb096b'];
  // Synthetic day (made-up listings at two real fixture stores), with a promotion and a multibuy.
  const day = (d: string, bump = 0): ObservationInput[] => STORES.flatMap((store, s) => [
    { day: d, retailer: 'paknsave', store, external_id: 'SYN-D1', price: 349 + s + bump },
    { day: d, retailer: 'paknsave', store, external_id: 'SYN-D2', price: 500, promo_price: 450, promo_kind: 1 },
    { day: d, retailer: 'paknsave', store, external_id: 'SYN-D3', price: 250, promo_kind: 3, multibuy_qty: 2, multibuy_price: 400 },
  ]);
  beforeAll(async () => {
    db = await createTestDatabase('ingest_digest');
    await insertFixtureStores(db.pool);
  });
  afterAll(async () => db?.drop());

  it('does not depend on row order, and refuses the same day with other prices', async () => {
    const first = await ingest(db.pool, records(day('2026-08-20')), { progress: false });
    expect(first.merged).toEqual(['2026-08-20']);
    const digest = (await db.pool.query(`SELECT digest FROM collection WHERE day = '2026-08-20' AND store_id IS NULL`)).rows[0].digest as string;
    expect(digest).toMatch(/^v2:6:-?\d+$/);
    const again = await ingest(db.pool, records(day('2026-08-20').reverse()), { progress: false });
    expect(again).toMatchObject({ merged: [], skipped: 1 });
    await expect(ingest(db.pool, records(day('2026-08-20', 1)), { progress: false })).rejects.toThrow(/already ingested with different observations/);
  });

  it('compares a day recorded with the digest written before v2 in that digest', async () => {
    await ingest(db.pool, records(day('2026-08-21')), { progress: false });
    // The former digest: md5 of the rows sorted by store and external id (the code before v2).
    const rows = day('2026-08-21');
    const legacy = (await db.pool.query(
      `SELECT md5(string_agg(concat_ws('|', coalesce(store, ''), external_id, price, promo_price, promo_kind, multibuy_qty, multibuy_price), ','
         ORDER BY coalesce(store, ''), external_id)) AS d
       FROM jsonb_to_recordset($1::jsonb) AS x(store text, external_id text, price int, promo_price int, promo_kind smallint, multibuy_qty int, multibuy_price int)`,
      [JSON.stringify(rows.map((r) => ({ ...r, promo_price: r.promo_price ?? (r.promo_kind === 3 ? Math.round(Number(r.multibuy_price) / Number(r.multibuy_qty)) : null) })))],
    )).rows[0].d as string;
    expect(legacy).toMatch(/^[0-9a-f]{32}$/);
    await db.pool.query(`UPDATE collection SET digest = $1 WHERE day = '2026-08-21' AND store_id IS NULL`, [legacy]);
    expect(await ingest(db.pool, records(rows), { progress: false })).toMatchObject({ merged: [], skipped: 1 });
    await expect(ingest(db.pool, records(day('2026-08-21', 1)), { progress: false })).rejects.toThrow(/already ingested with different observations/);
  });
});

describe('listing ids', () => {
  it('are drawn in (chain, external id in byte order) order: the same rows in any order give the same ids', async () => {
    // Enough ids that the server may plan DISTINCT as a hash (no order at all), and mixed case,
    // digits, '_' and a non-ASCII letter, where collations disagree with byte order.
    const ids = ['b10', 'a2', 'B1', '_x', 'ä1', 'a10', '10', '9', ...Array.from({ length: 3000 }, (_, i) => `${String.fromCharCode(65 + ((i * 7) % 58))}${(i * 7919) % 10007}`)];
    const rows = (order: string[]): ObservationInput[] =>
      order.flatMap((external_id, i) => [
        { day: '2026-08-03', retailer: 'woolworths', store: '', external_id, price: 100 + i },
        { day: '2026-08-03', retailer: 'paknsave', store: '', external_id, price: 200 + i },
      ]);
    const mapping = async (order: string[]) => {
      const db = await createTestDatabase('ingest_ids');
      try {
        await ingest(db.pool, records(rows(order)), { progress: false });
        const { rows: got } = await db.pool.query<{ key: string; id: number }>(
          `SELECT r.slug || ':' || l.external_id AS key, l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id ORDER BY l.id`,
        );
        return got;
      } finally {
        await db.drop();
      }
    };
    const forward = await mapping(ids);
    const backward = await mapping([...ids].reverse());
    expect(backward).toEqual(forward);
    // Within a chain, in byte order of the external id (not the server's collation: 'B1' before 'a2', '_x' after 'B1').
    const woolworths = forward.filter((r) => r.key.startsWith('woolworths:')).map((r) => r.key.slice('woolworths:'.length));
    expect(woolworths).toEqual([...ids].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)));
  });
});

describe('listing ids of a file of several days (issue 31: a day mostly of new listings is merged from a copy of its rows with their ids)', () => {
  const rows = (day: string, ids: string[], chains = ['woolworths', 'paknsave']): ObservationInput[] =>
    ids.flatMap((external_id, i) => chains.map((retailer, c) => ({ day, retailer, store: '', external_id, price: 100 * (c + 1) + i })));
  const spans = async (db: TestDatabase) => (await db.pool.query(
    `SELECT r.slug, l.external_id, n.first_day::text, n.last_day::text, n.price FROM national_price_span n
     JOIN listing l ON l.id = n.listing_id JOIN retailer r ON r.id = l.retailer_id ORDER BY 1, 2, 3`)).rows;
  const allIds = async (db: TestDatabase, slug?: string) => (await db.pool.query<{ id: number }>(
    `SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE $1::text IS NULL OR r.slug = $1 ORDER BY 1`, [slug ?? null])).rows.map((r) => r.id);

  it('reports every listing of every merged day, and gives the same spans as a day-by-day ingest', async () => {
    const days = [rows('2026-08-01', ['a', 'b', 'c']), rows('2026-08-02', ['a', 'b', 'c', 'd']), rows('2026-08-03', ['e', 'b'])];
    const whole = await createTestDatabase('ingest_ids_days');
    const byDay = await createTestDatabase('ingest_ids_by_day');
    try {
      // One file of three days, every listing new to it: its keys stay provisional in staging for every day.
      const r = await ingest(whole.pool, records(days.flat()), { progress: false });
      expect(r.merged).toEqual(['2026-08-01', '2026-08-02', '2026-08-03']);
      expect(r.listingIds).toEqual(await allIds(whole));
      expect(r.listingIds).toHaveLength(10);
      for (const d of days) await ingest(byDay.pool, records(d), { progress: false });
      expect(await spans(whole)).toEqual(await spans(byDay));
      const listings = `SELECT r.slug, c.day::text, c.listings FROM collection c JOIN retailer r ON r.id = c.retailer_id WHERE c.store_id IS NULL ORDER BY 1, 2`;
      expect((await whole.pool.query(listings)).rows.map((c) => `${c.slug} ${c.day} ${c.listings}`)).toEqual([
        'paknsave 2026-08-01 3', 'paknsave 2026-08-02 4', 'paknsave 2026-08-03 2', 'woolworths 2026-08-01 3', 'woolworths 2026-08-02 4', 'woolworths 2026-08-03 2',
      ]);
      // A day of known listings and one new one (of the first row's chain): its one provisional key is replaced in place.
      const next = await ingest(whole.pool, records(rows('2026-08-04', ['a', 'b', 'c', 'd', 'e', 'f'], ['woolworths'])), { progress: false });
      expect(next.listingIds).toEqual(await allIds(whole, 'woolworths'));
      expect(next.listingIds).toHaveLength(6);
      expect((await spans(whole)).filter((s) => s.first_day === '2026-08-04').map((s) => `${s.slug}:${s.external_id}:${s.price}`))
        .toEqual(['woolworths:a:100', 'woolworths:c:102', 'woolworths:d:103', 'woolworths:e:104', 'woolworths:f:105']);
      // Days out of order in a file, the earlier one already ingested (skipped): a listing is created
      // on its earliest day, whichever row came first.
      await ingest(byDay.pool, records(rows('2026-08-04', ['a', 'b', 'c', 'd', 'e', 'f'], ['woolworths'])), { progress: false });
      const d5 = rows('2026-08-05', ['g', 'a']);
      const d6 = rows('2026-08-06', ['h', 'g', 'a']);
      await ingest(whole.pool, records(d5), { progress: false });
      const late = await ingest(whole.pool, records([...d6, ...d5]), { progress: false });
      expect([late.merged, late.skipped]).toEqual([['2026-08-06'], 2]);
      for (const d of [d5, d6]) await ingest(byDay.pool, records(d), { progress: false });
      expect(await spans(whole)).toEqual(await spans(byDay));
      const seen = `SELECT r.slug, l.external_id, l.first_seen::text FROM listing l JOIN retailer r ON r.id = l.retailer_id ORDER BY 1, 2`;
      expect((await whole.pool.query(seen)).rows).toEqual((await byDay.pool.query(seen)).rows);
    } finally {
      await whole.drop();
      await byDay.drop();
    }
  });

  it('closes the source when a row is refused (a file reader stops reading)', async () => {
    const db = await createTestDatabase('ingest_close');
    try {
      let closed = false;
      let read = 0;
      function* source(): Generator<RawRecord> {
        try {
          for (let i = 0; i < 1000; i++) {
            read += 1;
            yield { line: i + 2, record: { day: '2026-08-01', retailer: 'woolworths', store: '', external_id: `x${i}`, price: i === 3 ? '1e3' : 100 } };
          }
        } finally {
          closed = true;
        }
      }
      await expect(ingest(db.pool, source(), { progress: false })).rejects.toThrow('line 5, column price: "1e3" is not integer cents (write digits only, e.g. 349)');
      expect(read).toBe(4);
      expect(closed).toBe(true);
    } finally {
      await db.drop();
    }
  });
});
