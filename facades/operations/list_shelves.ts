/** list_shelves: GET /api/v1/shelves → ShelfSummary[] (the directory; with q, the one shelf a word names, or none). */
import { z } from 'zod';
import { MAX_QUERY_LENGTH } from '../../src/services/search.js';
import { defineOperation, optionalText } from '../operation.js';
import { ShelfSummary } from '../resources.js';
import { shelfSummary } from './browse_shelf.js';

const params = z.object({
  q: optionalText(
    MAX_QUERY_LENGTH,
    'A category word resolved to its shelf by exact match of label or alias (case, accents, punctuation, "&"/"and" and singular/plural ignored: "capsicum" and "Peppers" both name Capsicums & chillies); without q, the whole directory.',
  ),
});

/** The operation entry. */
export default defineOperation({
  name: 'list_shelves',
  summary: 'The curated shelf directory (departments, aisles, sub-shelves) with product counts, or the one shelf a category word names.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/shelves',
  description: [
    'Departments (depth 1) first, most products first (then label); then the aisles (depth 2) grouped by department in that order, then the sub-shelves (depth 3) grouped by aisle, each group most products first (then label). Aisles and sub-shelves name their parent in `parent`.',
    '`products` counts the products (linked products, and listings not yet linked) with a current offer on the shelf or below it: what browse_shelf gives as `total` without filters. Every shelf of the directory is listed, empty ones with 0.',
    'With `q`, a list of one shelf or none: no partial or fuzzy match (use search_products for free text). Counts come from a derived view recomputed at most every ten minutes.',
  ].join(' '),
  params,
  variables: (p) => ({ q: p.q ?? null }),
  result: z.array(ShelfSummary),
  shape: ({ shelves }) => shelves.map(shelfSummary),
});
