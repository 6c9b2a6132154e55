import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { BasketError, loadBasket, observableGroupWeights, parseSpec, validateBasket } from '../../src/domain/basket.js';
import { KINDS } from '../../src/domain/kinds.js';

const DATA_DIR = process.env.DATA_DIR ?? path.resolve(import.meta.dirname, '../../../shared/data');
const FPI_ITEMS = path.join(DATA_DIR, 'stats-nz-fpi/fpi_items.csv');
const RAW = JSON.parse(fs.readFileSync(new URL('../../src/domain/basket-items.json', import.meta.url), 'utf8'));

const officialNames = (): string[] =>
  (parse(fs.readFileSync(FPI_ITEMS, 'utf8'), { columns: true }) as { item: string }[]).map((r) => r.item);

const item = (name: string) => {
  const it = loadBasket().items.find((i) => i.name === name);
  if (!it) throw new Error(`no item ${name}`);
  return it;
};

describe('basket file', () => {
  it('loads and validates', () => {
    const b = loadBasket();
    expect(b.items).toHaveLength(155);
    expect(b.groups.map((g) => g.code)).toEqual(['fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages', 'restaurant']);
  });

  it.skipIf(!fs.existsSync(FPI_ITEMS))('holds every fpi_items.csv item exactly once, by official name', () => {
    const names = officialNames();
    expect(names).toHaveLength(155);
    const mine = loadBasket().items.map((i) => i.name);
    for (const n of names) expect(mine.filter((m) => m === n), n).toHaveLength(1);
    expect(new Set(mine)).toEqual(new Set(names));
    expect(() => validateBasket(RAW, names)).not.toThrow();
    // ids are the 1-based rows of fpi_items.csv
    for (const it of loadBasket().items) expect(names[it.id - 1]).toBe(it.name);
  });

  it('uses the cited Stats NZ 2020 group weights (shares summing to 1)', () => {
    const b = loadBasket();
    const w = Object.fromEntries(b.groups.map((g) => [g.code, g.weight]));
    expect(w).toEqual({ fruit_veg: 0.13, meat_poultry_fish: 0.15, grocery_food: 0.34, beverages: 0.11, restaurant: 0.27 });
    expect(b.weightsSource.publisher).toBe('Stats NZ');
    expect(b.weightsSource.year).toBe(2020);
    const total = b.items.reduce((s, i) => s + i.weight, 0);
    expect(total).toBeCloseTo(1, 12);
    // equal within a group
    for (const g of b.groups) {
      for (const i of b.items.filter((x) => x.group === g.code)) expect(i.weight).toBeCloseTo(g.weight / g.items, 12);
    }
  });

  it('marks restaurant meals and ready-to-eat food unobservable and renormalises over the rest', () => {
    const b = loadBasket();
    for (const i of b.items) expect(i.observable).toBe(i.group !== 'restaurant');
    expect(item('Coffee, takeway, each').observable).toBe(false);
    const w = observableGroupWeights(b);
    expect([...w.keys()]).not.toContain('restaurant');
    expect([...w.values()].reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
    expect(w.get('grocery_food')).toBeCloseTo(0.34 / 0.73, 12);
  });

  it('has unique codes; official ones only where the shared files give them', () => {
    const b = loadBasket();
    expect(new Set(b.items.map((i) => i.code)).size).toBe(155);
    expect(b.items.filter((i) => i.official_code).map((i) => [i.name, i.code])).toEqual(
      expect.arrayContaining([
        ['Oranges, 1kg', 'CPIM.SAP0100'],
        ['Bananas, 1kg', 'CPIM.SAP0101'],
        ['Apples, 1kg', 'CPIM.SAP0102'],
      ]),
    );
    expect(b.items.filter((i) => i.official_code)).toHaveLength(3);
    expect(item('Eggs, dozen').code).toBe('NZGP.eggs-dozen');
  });

  it('names only existing kinds', () => {
    const slugs = new Set(KINDS.map((k) => k.slug));
    for (const i of loadBasket().items) if (i.kind) expect(slugs.has(i.kind), `${i.name}: ${i.kind}`).toBe(true);
  });

  it('carries the May 2022 official price of every item', () => {
    for (const i of loadBasket().items) {
      expect(i.last_official_month).toBe('2022-05');
      expect(i.last_official_price_cents).toBeGreaterThan(0);
    }
    expect(item('Oranges, 1kg').last_official_price_cents).toBe(529);
    expect(item('Milk - standard homogenised, 2 litres').last_official_price_cents).toBe(402);
  });
});

describe('hand-checked items', () => {
  it('Oranges 1kg: per kg', () => {
    const o = item('Oranges, 1kg');
    expect(o).toMatchObject({ group: 'fruit_veg', per_unit: true, unit: 'kg', qty: 1000, spec: '1kg', kind: 'oranges' });
    expect(o.qty_min! <= 1 && o.qty_max! >= 1).toBe(true);
  });

  it('Milk 2 litres: litres, 2000 ml, per pack of exactly 2 L', () => {
    expect(item('Milk - standard homogenised, 2 litres')).toMatchObject({
      group: 'grocery_food', spec: '2 litres', unit: 'l', qty: 2000, per_unit: false, qty_min: 2, qty_max: 2, kind: 'milk',
    });
  });

  it('Eggs dozen: 12 each, per pack', () => {
    expect(item('Eggs, dozen')).toMatchObject({ spec: 'dozen', unit: 'each', qty: 12, per_unit: false });
    expect(item('Eggs, free range, 6 pack')).toMatchObject({ unit: 'each', qty: 6 });
  });

  it('multipacks carry the pack total; ranges carry bounds', () => {
    expect(item('Yoghurt - flavoured, 150g pottle (supermarket only), pk of 6')).toMatchObject({ unit: 'kg', qty: 900 });
    expect(item('Breakfast drink, 250ml, 6 pack')).toMatchObject({ unit: 'l', qty: 1500 });
    expect(item('Chilled fruit juice or smoothies, 1 to 1.5 litre')).toMatchObject({ unit: 'l', qty: null, qty_min: 1, qty_max: 1.5, per_unit: true });
    expect(item('Chicken, whole, frozen, No. 15 - Cheapest Available')).toMatchObject({ unit: 'kg', qty: 1500, per_unit: true });
  });
});

describe('parseSpec', () => {
  it.each([
    ['1kg', { unit: 'kg', qty: 1000, range: null }],
    ['1.5kg', { unit: 'kg', qty: 1500, range: null }],
    ['2 litres', { unit: 'l', qty: 2000, range: null }],
    ['380ml', { unit: 'l', qty: 380, range: null }],
    ['dozen', { unit: 'each', qty: 12, range: null }],
    ['box of 100', { unit: 'each', qty: 100, range: null }],
    ['multipack,5', { unit: 'each', qty: 5, range: null }],
    ['250ml, 6 pack', { unit: 'l', qty: 1500, range: null }],
    ['1 to 1.5 litre', { unit: 'l', qty: null, range: [1, 1.5] }],
    ['100g to 250g', { unit: 'kg', qty: null, range: [0.1, 0.25] }],
    ['6 or 8 pack', { unit: 'each', qty: null, range: [6, 8] }],
    ['multipack of 3 to 5', { unit: 'each', qty: null, range: [3, 5] }],
    ['No. 15', { unit: 'kg', qty: 1500, range: null }],
    ['each', { unit: 'each', qty: 1, range: null }],
  ])('%s', (spec, want) => expect(parseSpec(spec)).toEqual(want));

  it('returns null without a size', () => expect(parseSpec(null)).toBeNull());
});

describe('validation errors', () => {
  const clone = () => structuredClone(RAW);

  it('rejects a duplicate code, an unknown kind, a unit at odds with the spec and unordered bounds', () => {
    const d = clone();
    const milk = d.items.find((i: { name: string }) => i.name.startsWith('Milk - standard'));
    const eggs = d.items.find((i: { name: string }) => i.name === 'Eggs, dozen');
    eggs.code = milk.code;
    milk.kind = 'no-such-kind';
    milk.unit = 'kg';
    eggs.qty_min = 13;
    let err: unknown;
    try {
      validateBasket(d);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BasketError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/duplicate code/);
    expect(msg).toMatch(/unknown kind "no-such-kind"/);
    expect(msg).toMatch(/unit kg, but the spec "2 litres" is in l/);
    expect(msg).toMatch(/qty_min 13 > qty_max 12/);
  });

  it('rejects group weights that do not sum to 1 and a missing official name', () => {
    const d = clone();
    d.groups[0].weight = 0.2;
    expect(() => validateBasket(d)).toThrow(/weights sum to/);
    expect(() => validateBasket(clone(), ['Oranges, 1kg'])).toThrow(/not an official item name/);
  });

  it('rejects unknown fields (typos)', () => {
    const d = clone();
    d.items[0].keyword = ['x'];
    expect(() => validateBasket(d)).toThrow(BasketError);
  });
});
