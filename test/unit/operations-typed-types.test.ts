/**
 * Type tests for the typed registry (facades/operation.ts defineOperation with the generated
 * document types of facades/generated/operations.ts). Each `@ts-expect-error` marks a mistake the
 * compiler must reject; `npm run typecheck` fails if one of them stops being an error. The runtime
 * part checks the one behaviour defineOperation adds: a left-out `shape` is the document's one
 * root field.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation, idParam, type ResultOf } from '../../facades/operation.js';
import { registry } from '../../facades/operations.js';
import { ListingDetail, Retailer } from '../../facades/resources.js';

const common = { summary: 'test', method: 'GET', family: 'light', path: '/api/v1/test/{id}', params: z.object({ id: idParam }) } as const;

/** Declared, never run: only the compiler looks at these. */
export function rejectedByTheCompiler() {
  defineOperation({
    ...common,
    name: 'get_listing',
    variables: (p) => ({ id: p.id }),
    result: ListingDetail,
    shape: ({ listing }) => ({
      ...ListingDetail.parse(listing),
      // @ts-expect-error `weighable` is a Listing field in the schema, but get_listing's document does not select it.
      available: listing!.weighable,
    }),
  });

  defineOperation({
    ...common,
    name: 'list_retailers',
    variables: () => ({}),
    result: z.array(Retailer),
    // @ts-expect-error the document aliases lastRun to last_run; the generated type has only the alias.
    shape: ({ retailers }) => retailers.map((r) => ({ ...r, last_run: r.lastRun })),
  });

  defineOperation({
    ...common,
    name: 'list_retailers',
    variables: () => ({}),
    result: z.array(Retailer),
    // @ts-expect-error the body misses a contract field (Retailer.last_run).
    shape: ({ retailers }) => retailers.map(({ last_run: _dropped, ...r }) => r),
  });

  defineOperation({
    ...common,
    name: 'get_listing',
    // @ts-expect-error the document's $id is an Int.
    variables: (p) => ({ id: String(p.id) }),
    result: ListingDetail,
    shape: ({ listing }) => ListingDetail.parse(listing),
  });

  // @ts-expect-error `shape` may be left out only when the document's root field is the contract type (get_listing's is nullable and has no empty-stats form).
  defineOperation({
    ...common,
    name: 'get_listing',
    variables: (p) => ({ id: p.id }),
    result: ListingDetail,
  });

  const card = {} as ResultOf<'search_listings'>['searchListings'][number];
  // @ts-expect-error the ListingCard fragment selects the price fields of `current`, not its day.
  void card.current?.day;
}

describe('defineOperation', () => {
  it('makes a left-out shape the one root field of the document', () => {
    const op = defineOperation({ ...common, name: 'list_retailers', variables: () => ({}), result: z.array(Retailer) });
    const retailers = [{ slug: 'x', name: 'X', listings: 1, stores: 2, last_run: null }];
    expect(op.shape({ retailers }, { id: 1 })).toBe(retailers);
  });

  it('keeps every registry entry typed by its own document', () => {
    // The tuple keeps each entry's name as a literal (so its generated types), not `string`.
    const names: readonly ('search_products' | 'search_listings')[] = [registry[0].name, registry[1].name];
    expect(names).toEqual(['search_products', 'search_listings']);
  });
});
