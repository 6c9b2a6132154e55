/**
 * One rule, two backends: a kind's suggestion detail is its shelf's label unless that shelf is the
 * kind itself. The embedded backend says it in SQL (src/search/embedded.ts KIND_DETAIL_SQL, over
 * the `kind` table, several kinds of one label folded with min()), the Elasticsearch backend in
 * TypeScript (src/search/elasticsearch/query.ts suggestKinds, over the curated list). This test
 * runs the SQL on a real PostgreSQL over every curated kind and requires the same detail for every
 * label.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KINDS } from '../../src/domain/kinds.js';
import { shelfOfKind } from '../../src/domain/shelves.js';
import { KIND_DETAIL_SQL } from '../../src/search/embedded.js';
import { suggestKinds } from '../../src/search/elasticsearch/query.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('kind_detail');
});
afterAll(async () => {
  await db?.drop();
});

it('gives every kind label the same suggestion detail in SQL (embedded) and in TypeScript (Elasticsearch)', async () => {
  const { rows } = await db.pool.query<{ label: string; detail: string | null }>(
    `SELECT k.label, min(${KIND_DETAIL_SQL}) AS detail
     FROM unnest($1::text[], $2::text[]) AS k(label, shelf_label)
     GROUP BY k.label ORDER BY k.label`,
    [KINDS.map((k) => k.label), KINDS.map((k) => shelfOfKind(k.slug)?.label ?? null)],
  );
  expect(rows.length).toBeGreaterThan(50);
  const ts = rows.map((r) => ({ label: r.label, detail: suggestKinds(r.label).find((k) => k.label === r.label)?.detail }));
  expect(ts).toEqual(rows);
  // Both kinds of detail occur: a kind that is its own shelf (null) and one on a broader shelf.
  expect(rows.some((r) => r.detail === null)).toBe(true);
  expect(rows.some((r) => r.detail !== null)).toBe(true);
});
