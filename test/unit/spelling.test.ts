/**
 * The pure parts of search's spelling correction (src/search/spelling.ts): which query words may
 * be corrected, with what edit budget, and how corrections are applied. The correction itself
 * (vocabulary, live known-word test, levenshtein) runs in SQL and is checked on the real catalogue
 * by test/integration/catalogue-search.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { applyCorrections, correctableWords, MAX_CORRECTED_WORDS, maxEdits, MIN_CORRECTED_CHARS } from '../../src/search/spelling.js';

describe('maxEdits', () => {
  it("allows one edit up to five characters and two from six (Elasticsearch's fuzziness AUTO)", () => {
    expect([4, 5, 6, 9, 40].map(maxEdits)).toEqual([1, 1, 2, 2, 2]);
  });
});

describe('correctableWords', () => {
  it('takes words of letters only, at least MIN_CORRECTED_CHARS long, each once, with its budget', () => {
    expect(MIN_CORRECTED_CHARS).toBe(4);
    expect(correctableWords('galic bread 500g mlk galic choclate')).toEqual([
      { word: 'galic', edits: 1 },
      { word: 'bread', edits: 1 },
      { word: 'choclate', edits: 2 },
    ]);
  });
  it('leaves sizes, codes and symbols alone, and counts characters, not UTF-16 units', () => {
    expect(correctableWords('1.5l + 2x 9414742351053 a&b')).toEqual([]);
    expect(correctableWords('kūmara')).toEqual([{ word: 'kūmara', edits: 2 }]);
  });
  it('looks at no more than MAX_CORRECTED_WORDS words', () => {
    // 30 distinct words: worda … wordz, then wordaa … worddd.
    const many = Array.from({ length: 30 }, (_, i) => `word${String.fromCharCode(97 + (i % 26)).repeat(1 + Math.floor(i / 26))}`).join(' ');
    expect(correctableWords(many)).toHaveLength(MAX_CORRECTED_WORDS);
  });
});

describe('applyCorrections', () => {
  it('replaces each corrected word wherever it occurs, a pair run together by its phrase', () => {
    const c = new Map([['galic', 'garlic'], ['peanutbutter', 'peanut butter']]);
    expect(applyCorrections('galic peanutbutter galic bread', c)).toEqual('garlic peanut butter garlic bread');
    expect(applyCorrections('garlic bread', c)).toEqual('garlic bread');
  });
  it('reads only the Map: words naming object properties change nothing', () => {
    expect(applyCorrections('constructor __proto__ tostring hasownproperty', new Map())).toBe('constructor __proto__ tostring hasownproperty');
  });
});
