/**
 * Issue 29 item 1: words that name Object.prototype's members (`constructor`, `__proto__`,
 * `toString`…) are ordinary words wherever data or a user supplies a word that is looked up. Each
 * lookup below used a plain object (`obj[word]`), which answered those words from the prototype:
 * list_shelves `q=constructor` answered 500, a size text or a data file could put a function where
 * a unit, a class or a region belongs, and counts by a file's tag lost or garbled such keys.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countInto, emptyRecord } from '../../src/domain/dictionary.js';
import { PlaceError, toUrbanCore } from '../../src/domain/places.js';
import { normaliseShelfWord, resolveShelfWord } from '../../src/domain/shelves.js';
import { parseSize } from '../../src/domain/sizes.js';
import { CATALOGUE_COLUMNS, readCatalogue } from '../../workers/import/catalogue.js';
import { readFullResults } from '../../workers/import/samples.js';
import { readPaknsaveStores } from '../../workers/import/stores.js';
import { PROTOTYPE_TEXTS, PROTOTYPE_WORDS } from '../helpers/fuzz.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prototype-words-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};

describe('prototype words are ordinary words', () => {
  it('covers Object.prototype and prototype', () => {
    expect(PROTOTYPE_WORDS).toEqual(expect.arrayContaining(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', '__defineGetter__', 'isPrototypeOf']));
  });

  it('shelf words: normalised as text and naming no shelf (list_shelves q=constructor answered 500)', () => {
    for (const { label, value } of PROTOTYPE_TEXTS) {
      expect(typeof normaliseShelfWord(value), label).toBe('string');
      expect(resolveShelfWord(value), label).toBeNull();
    }
    expect(normaliseShelfWord('Constructors')).toBe('constructor');
    // The irregular plurals still work.
    expect(normaliseShelfWord('Loaves')).toBe('loaf');
  });

  it('size texts: a prototype word is no unit', () => {
    for (const w of PROTOTYPE_WORDS) {
      for (const text of [`500${w}`, `500 ${w}`, `6 x 330${w}`, `330${w} x 6`]) {
        const parsed = parseSize(text);
        if (parsed) expect(Number.isFinite(parsed.qty) && ['g', 'ml', 'each', 'm'].includes(parsed.unit), `${text}: ${JSON.stringify(parsed)}`).toBe(true);
      }
      expect(parseSize(`500 ${w}`), w).toBeNull();
    }
    expect(parseSize('500g')).toMatchObject({ qty: 500, unit: 'g' });
  });

  it('urban cores: a prototype word is an unknown class', () => {
    for (const w of PROTOTYPE_WORDS) {
      expect(() => toUrbanCore({ id: 1001, name: 'Auckland', typeName: w, lat: -36.85, lng: 174.76 }), w).toThrow(PlaceError);
    }
  });

  it('store lists: a prototype word is an unknown salesOrgId', () => {
    for (const w of PROTOTYPE_WORDS) {
      const f = file('paknsave.json', JSON.stringify({ stores: [{ id: 'x', name: 'PAK', banner: 'PNS', latitude: -36.8, longitude: 174.7, salesOrgId: w }] }));
      expect(() => readPaknsaveStores(f), w).toThrow(/unknown salesOrgId/);
    }
  });

  it('sample files: a prototype word is an unknown company', () => {
    const header = 'company,store,store_id,returned_ingredient,price,quantity,measurement_unit,is_sale,sku,department,sub_department,date_created';
    for (const w of PROTOTYPE_WORDS) {
      const f = file('full_results.csv', `${header}\n${w},Store,1,Milk,3.50,1,L,False,123,Dairy,Milk,2024-05-01\n`);
      expect(() => readFullResults(f), w).toThrow(/unknown company/);
    }
  });

  it("catalogue counts: every tag is its own key, prototype words included", () => {
    const row = (sku: number, tag: string) => [String(sku), '', `p-${sku}`, `Product ${sku}`, '', '', 'Each', 'Pantry', '3.00', '3.00', '', '', '', '500g', tag].join('\t');
    const lines = [CATALOGUE_COLUMNS.join('\t'), ...PROTOTYPE_WORDS.map((w, i) => row(i + 1, w)), row(900, 'constructor')];
    const read = readCatalogue(file('products.tsv', `${lines.join('\n')}\n`));
    const expected = Object.fromEntries(PROTOTYPE_WORDS.map((w) => [w, w === 'constructor' ? 2 : 1]));
    expect(Object.keys(read.tags).sort()).toEqual(Object.keys(expected).sort());
    for (const w of PROTOTYPE_WORDS) expect(Object.hasOwn(read.tags, w) && read.tags[w], w).toBe(expected[w]);
    expect(JSON.parse(JSON.stringify(read.tags))).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('emptyRecord and countInto keep every key as an own key', () => {
    const counts = emptyRecord<number>();
    for (const w of [...PROTOTYPE_WORDS, 'constructor']) countInto(counts, w);
    expect(Object.keys(counts)).toHaveLength(PROTOTYPE_WORDS.length);
    expect(counts.constructor).toBe(2);
    expect(counts.__proto__).toBe(1);
    expect(Object.getPrototypeOf(counts)).toBeNull();
  });
});
