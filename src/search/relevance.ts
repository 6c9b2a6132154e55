/**
 * Offline relevance metrics for judged search results (the relevance bench, test/bench/search.ts,
 * over the judged queries of test/fixtures/relevance/queries.json). Pure functions: a ranking is
 * the list of result keys best first, the judgments map keys to graded relevance (0 not relevant,
 * 1 marginally, 2 fairly, 3 highly relevant; unjudged keys count as 0).
 *
 * Conventions shared by every function here:
 * - ranks are 1-based; a key that appears more than once in a ranking counts only at its first
 *   position (later copies gain nothing, as if they were not relevant);
 * - `k` is a cut-off (`k` ≥ 1); a ranking shorter than `k` is simply not padded;
 * - a grade is "relevant" for the binary measures (MRR, recall) when it is at least `minGrade`
 *   (default 1).
 */

/** Graded relevance of one judged result: 0 not, 1 marginally, 2 fairly, 3 highly relevant. */
export type Grade = 0 | 1 | 2 | 3;

/** Judged grades by result key (unjudged keys are grade 0). */
export type Judgments<K> = ReadonlyMap<K, number>;

/** Options of the binary measures ({@link reciprocalRank}, {@link recallAtK}). */
export interface BinaryOptions {
  /** Lowest grade that counts as relevant (default 1). */
  minGrade?: number;
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be an integer ≥ 1, got ${k}`);
}

/** The grades of the first `k` results, a repeated key counting 0 after its first position. */
export function gradesAt<K>(ranking: readonly K[], judgments: Judgments<K>, k: number): number[] {
  checkK(k);
  const seen = new Set<K>();
  const grades: number[] = [];
  for (const key of ranking.slice(0, k)) {
    grades.push(seen.has(key) ? 0 : (judgments.get(key) ?? 0));
    seen.add(key);
  }
  return grades;
}

/**
 * Discounted cumulative gain of `gains` (in rank order) at cut-off `k`:
 * DCG@k = Σ_{i=1..min(k,n)} gain_i / log2(i + 1).
 *
 * Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002,
 * with the graded relevance itself as the gain (their linear gain) and the log2(i + 1) discount
 * used by trec_eval and most later work (their original form left ranks below the log base
 * undiscounted; with i + 1 every rank is discounted and rank 1 counts in full).
 */
export function dcg(gains: readonly number[], k: number): number {
  checkK(k);
  let sum = 0;
  for (let i = 0; i < Math.min(k, gains.length); i++) sum += gains[i] / Math.log2(i + 2);
  return sum;
}

/**
 * Normalised DCG at `k`: DCG@k of the ranking over DCG@k of the ideal ranking, which is every
 * judged grade sorted descending (so the ideal comes from the judgments, not from what the system
 * returned). Between 0 and 1; 0 when no judged result has a grade above 0 (nothing to find).
 */
export function ndcgAtK<K>(ranking: readonly K[], judgments: Judgments<K>, k: number): number {
  const ideal = dcg(
    [...judgments.values()].filter((g) => g > 0).sort((a, b) => b - a),
    k,
  );
  if (ideal === 0) return 0;
  return dcg(gradesAt(ranking, judgments, k), k) / ideal;
}

/**
 * Reciprocal rank: 1 / rank of the first relevant result (grade ≥ `minGrade`), 0 when none is
 * relevant (within the first `k` when `k` is given). Averaged over queries ({@link mean}) this is
 * the mean reciprocal rank (MRR; Voorhees, "The TREC-8 question answering track report", 1999).
 */
export function reciprocalRank<K>(ranking: readonly K[], judgments: Judgments<K>, opts: BinaryOptions & { k?: number } = {}): number {
  const minGrade = opts.minGrade ?? 1;
  const grades = gradesAt(ranking, judgments, opts.k ?? Math.max(1, ranking.length));
  const i = grades.findIndex((g) => g >= minGrade);
  return i < 0 ? 0 : 1 / (i + 1);
}

/**
 * Recall at `k`: the share of the relevant judged results (grade ≥ `minGrade`) found among the
 * first `k` results, |relevant ∩ top k| / |relevant| (Manning, Raghavan & Schütze, "Introduction to
 * Information Retrieval", 2008, §8.3). With `capped`, the denominator is min(k, |relevant|), so a
 * query with more relevant results than `k` can still reach 1 (a perfect first page scores 1).
 * 0 when no judged result is relevant.
 */
export function recallAtK<K>(ranking: readonly K[], judgments: Judgments<K>, k: number, opts: BinaryOptions & { capped?: boolean } = {}): number {
  const minGrade = opts.minGrade ?? 1;
  const relevant = [...judgments.values()].filter((g) => g >= minGrade).length;
  if (relevant === 0) return 0;
  const found = gradesAt(ranking, judgments, k).filter((g) => g >= minGrade).length;
  return found / (opts.capped ? Math.min(k, relevant) : relevant);
}

/** Arithmetic mean of `values` (NaN for none, so an empty group is visible rather than 0). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((a, b) => a + b, 0) / values.length;
}
