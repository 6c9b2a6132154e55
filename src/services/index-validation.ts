/**
 * The nowcast's published track record (issue 30 item 4; get_index_validation, beyond the
 * contract): per aggregate (all food, then each observable basket group) and per month, the
 * official monthly change, the nowcast's change and error (whole month and first 15 days), the
 * month's mean coverage; the mean absolute errors against the flat forecast; the latest month's
 * estimate with a prediction interval (final or same-day, src/domain/index-validation.ts estimateMonth).
 *
 * Computed at read time from index_day (raw, coverage) and official_index: the work is small
 * (months × groups over a few thousand rows), and the formula is src/domain/index-validation.ts
 * `validateAggregate`, the same pure function `npm run validate:index` (test/bench/index-validate.ts)
 * uses, so the endpoint and the script agree by construction. It follows the official file's
 * import (workers/index/official.ts) and the index worker's runs with no job of its own.
 */
import type pg from 'pg';
import { ALL_FOOD } from '../domain/basket.js';
import { INDEX_METHOD_LABELS } from '../domain/index-method.js';
import { FIRST_DAYS, validateAggregate, type MonthEstimate, type ValidationMonth, type ValidationSummary } from '../domain/index-validation.js';
import type { CoveredValue, OfficialMonth } from '../domain/price-index.js';
import { indexMethod } from './index-method.js';
import { groupRows } from './prices.js';

/** Why a basket group has no nowcast. */
export const UNOBSERVABLE_REASON =
  'Not sold on supermarket shelves: restaurant meals and ready-to-eat food are priced at restaurants, cafes and takeaway outlets, which the collected data does not cover; the nowcast renormalises all food over the observable groups.';

/** One aggregate's track record. */
export interface ValidationAggregate {
  /** 0 is all food, else the basket group id. */
  id: number;
  code: string;
  name: string;
  /** Stats NZ series it is compared with. */
  series_ref: string;
  summary: ValidationSummary;
  months: ValidationMonth[];
  /** The latest month's estimate with its interval; null without index days. */
  estimate: MonthEstimate | null;
}

/** A basket group the nowcast cannot observe. */
export interface UnobservableGroup {
  id: number;
  code: string;
  name: string;
  series_ref: string;
  reason: string;
}

/** The track record (resource IndexValidation). */
export interface IndexValidation {
  method: string;
  first_days: number;
  aggregates: ValidationAggregate[];
  unobservable: UnobservableGroup[];
}

/**
 * The track record of all food and every observable basket group, from every stored index day and
 * official month, and the method of the stored run (four SQL statements). Aggregates without index days have no months.
 */
export async function indexValidation(pool: pg.Pool): Promise<IndexValidation> {
  const [method, { rows: groups }, { rows: points }, { rows: official }] = await Promise.all([
    indexMethod(pool),
    pool.query<{ id: number; code: string; name: string; observable: boolean; series_ref: string }>(
      `SELECT id, code, name, observable, series_ref FROM basket_group ORDER BY id`,
    ),
    pool.query<{ group_id: number; day: string; raw: number; coverage: number }>(
      `SELECT group_id, day::text AS day, raw, coverage FROM index_day ORDER BY group_id, day`,
    ),
    pool.query<{ series_ref: string; month: string; value: number }>(`SELECT series_ref, month, value FROM official_index`),
  ]);
  const series = groupRows(points, (p) => p.group_id);
  const months = groupRows(official, (o) => o.series_ref);
  const aggregate = (id: number, code: string, name: string, seriesRef: string): ValidationAggregate => ({
    id,
    code,
    name,
    series_ref: seriesRef,
    ...validateAggregate(
      (series.get(id) ?? []).map((p): CoveredValue => ({ day: p.day, value: p.raw, coverage: p.coverage })),
      (months.get(seriesRef) ?? []).map((o): OfficialMonth => ({ month: o.month, value: o.value })),
    ),
  });
  return {
    method: INDEX_METHOD_LABELS.get(method) ?? method,
    first_days: FIRST_DAYS,
    aggregates: [
      aggregate(ALL_FOOD.id, ALL_FOOD.code, ALL_FOOD.name, ALL_FOOD.series_ref),
      ...groups.filter((g) => g.observable).map((g) => aggregate(g.id, g.code, g.name, g.series_ref)),
    ],
    unobservable: groups.filter((g) => !g.observable).map((g) => ({ id: g.id, code: g.code, name: g.name, series_ref: g.series_ref, reason: UNOBSERVABLE_REASON })),
  };
}
