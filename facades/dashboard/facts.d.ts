// Types of facts.js (the browser module has no build step; the unit test imports it through these).

/** One gap of GET /api/v1/status: days with no collection, inclusive. */
export interface StatusGap {
  from: string;
  to: string;
  days: number;
}

/** GET /api/v1/status (the fields the pages read). */
export interface DataStatus {
  today: string;
  newest_day: string | null;
  fresh: boolean;
  stale_after_days: number;
  cap_days: number;
  gaps: StatusGap[];
  retailers: Array<{
    slug: string;
    name: string;
    first_day: string | null;
    last_day: string | null;
    last_run?: string | null;
    days_since: number | null;
    stale: boolean;
    stores_active?: number;
    stores_collected?: number;
    listings_seen?: number;
    run: { status: string; day: string | null; started_at?: string | null; finished_at?: string | null; scopes?: unknown; collected?: number | null; failed?: number | null; error?: string | null } | null;
    gaps: StatusGap[];
  }>;
  /** Jobs queued or running now (names), in the order planned. */
  computing?: string[];
  /** The newest run of every job (the pages read only `computing`). */
  jobs?: unknown[];
}

export interface Segment {
  /** First index, inclusive. */
  from: number;
  /** Last index, inclusive. */
  to: number;
}

export interface FreshnessView {
  banner: string | null;
  /** What is still being computed, in words; null when nothing is. */
  computing: string | null;
  chains: Array<{ slug: string; name: string; lastDay: string | null; stale: boolean; text: string; gaps: string[] }>;
  gaps: string[];
  today: string | null;
  newestDay: string | null;
}

export function formatDay(day: string | null | undefined): string;
export function formatCount(n: number): string;
export function plural(n: number, word: string): string;
export function dayNumber(day: string): number;
export function formatRange(from: string, to: string): string;
export function lineSegments(days: readonly string[], values: ReadonlyArray<number | null>, coverage?: ReadonlyArray<number | null> | null): Segment[];
export function drawnValues(days: readonly string[], values: ReadonlyArray<number | null>, coverage?: ReadonlyArray<number | null> | null): Array<number | null>;
export function segmentGaps(days: readonly string[], segments: readonly Segment[]): StatusGap[];
export function dayAfter(day: string, n: number): string;
export function gapSentence(gap: StatusGap): string;
export function gapSentences(gaps: readonly StatusGap[] | null | undefined, long?: number): string[];
export function ago(days: number | null | undefined): string;
export function freshnessView(status: unknown): FreshnessView | null;
export function computingSentence(names: unknown): string | null;
export function formatMonth(month: unknown): string;
export function formatChange(pct: number | null | undefined, unit?: string): string;
export const FOLLOW_SECONDS: number;
export function dealsAsOf(days: ReadonlyArray<string | null | undefined>): string;
/** The fields of GraphQL MonthEstimate the dashboard reads. */
export interface MonthEstimateView {
  month: string;
  asOf: string;
  final: boolean;
  throughDay: number;
  change: number | null;
  low: number | null;
  high: number | null;
  level: number;
  pastMonths: number;
  official: number | null;
}
export function estimateSentence(e: MonthEstimateView | null | undefined): string | null;
