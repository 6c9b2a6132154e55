// Pure helpers of the dashboard and the front door (issue 26: say how old every fact is). No DOM,
// no fetch: they run in the browser (imported by app.js and freshness.js) and in the unit test
// (test/unit/dashboard-facts.test.ts; types in facts.d.ts).
//
// - Days for people: `formatDay('2026-08-03')` is "3 Aug 2026"; never a raw ISO string in prose.
// - Index lines break where nothing was observed: `lineSegments` turns a series into the runs of
//   days it may be drawn through (a day with coverage 0, a missing value or a skipped calendar day
//   ends a run), and `drawnValues` keeps only those days, so uPlot (which breaks a line at null)
//   draws no segment across a gap.
// - `freshnessView` turns GET /api/v1/status into the words shown: the banner when data is older
//   than its `stale_after_days`, each chain's "prices as of", the days with no collection, and
//   (issue 28) what is still being computed (`computing`: the jobs queued or running).

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** "3 Aug 2026" for "2026-08-03"; anything that is not a day string comes back as given. */
export function formatDay(day) {
  const m = DAY.exec(String(day ?? ''));
  if (!m) return String(day ?? '');
  return `${Number(m[3])} ${MONTHS[Number(m[2]) - 1]} ${m[1]}`;
}

/** "Nov 2024" for "2024-11"; anything that is not a month string comes back as given. */
export function formatMonth(month) {
  const m = /^(\d{4})-(\d{2})$/.exec(String(month ?? ''));
  return m ? `${MONTHS[Number(m[2]) - 1]} ${m[1]}` : String(month ?? '');
}

/** "+0.42 %" / "−0.10 %" for a percent change; "—" for null. */
export function formatChange(pct, unit = ' %') {
  if (pct == null || !Number.isFinite(pct)) return '—';
  return `${pct < 0 ? '−' : '+'}${Math.abs(pct).toFixed(2)}${unit}`;
}

/** "5,295" for 5295 (thousands with commas, whatever the browser's locale). */
export function formatCount(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "1 day" / "448 days". */
export function plural(n, word) {
  return `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** Days since 1970-01-01 of a day string (calendar arithmetic, no time zone). */
export function dayNumber(day) {
  const m = DAY.exec(day);
  if (!m) return NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000;
}

/** "3 Aug 2026 → 26 Jul 2026"-style range of a gap {from, to}. */
export function formatRange(from, to) {
  return from === to ? formatDay(from) : `${formatDay(from)} → ${formatDay(to)}`;
}

/**
 * The line segments of one index series: runs of consecutive days that were observed, as
 * inclusive index ranges `{ from, to }` into `days`. A day ends a run when its value is null (or
 * not a number), its coverage is 0 (nothing observed that day: the index only carries the last
 * level forward), or it is not the calendar day after the previous one. A run may be one day long.
 *
 * @param days    the x axis, day strings, oldest first
 * @param values  the series, aligned with `days`
 * @param coverage its coverage, aligned with `days` (null or omitted: every valued day counts)
 */
export function lineSegments(days, values, coverage) {
  const segments = [];
  let start = -1;
  for (let i = 0; i < days.length; i++) {
    const v = values[i];
    const c = coverage ? coverage[i] : undefined;
    const observed = typeof v === 'number' && Number.isFinite(v) && !(typeof c === 'number' && c <= 0);
    const follows = start >= 0 && dayNumber(days[i]) - dayNumber(days[i - 1]) === 1;
    if (start >= 0 && (!observed || !follows)) {
      segments.push({ from: start, to: i - 1 });
      start = -1;
    }
    if (observed && start < 0) start = i;
  }
  if (start >= 0) segments.push({ from: start, to: days.length - 1 });
  return segments;
}

/** The series as drawn: its values inside {@link lineSegments}, null everywhere else. */
export function drawnValues(days, values, coverage) {
  const out = days.map(() => null);
  for (const s of lineSegments(days, values, coverage)) for (let i = s.from; i <= s.to; i++) out[i] = values[i];
  return out;
}

/**
 * The holes between segments (not before the first nor after the last), as day ranges
 * `{ from, to, days }`: the days a chart shades as "nothing observed". Where a calendar day is
 * missing from `days` the hole still spans it.
 */
export function segmentGaps(days, segments) {
  const gaps = [];
  for (let k = 1; k < segments.length; k++) {
    const a = segments[k - 1].to;
    const b = segments[k].from;
    const n = dayNumber(days[b]) - dayNumber(days[a]) - 1;
    if (n < 1) continue;
    gaps.push({ from: dayAfter(days[a], 1), to: dayAfter(days[b], -1), days: n });
  }
  return gaps;
}

/** The day `n` calendar days after `day`. */
export function dayAfter(day, n) {
  const d = new Date((dayNumber(day) + n) * 86_400_000);
  return d.toISOString().slice(0, 10);
}

/** "No prices were collected 5 May 2025 → 26 Jul 2026 (448 days)." */
export function gapSentence(gap) {
  return `No prices were collected ${formatRange(gap.from, gap.to)} (${plural(gap.days, 'day')}).`;
}

/**
 * The sentences of a list of gaps: one per gap of at least `long` days ("No prices were collected
 * 5 May 2025 → 26 Jul 2026 (448 days)."), the shorter ones together in one sentence ("No prices
 * were collected on 8 other days: 10 Jan 2025, 26 Feb → 28 Feb 2025 (3 days), …."), oldest first.
 */
export function gapSentences(gaps, long = 7) {
  const list = Array.isArray(gaps) ? gaps : [];
  const longer = list.filter((g) => g.days >= long);
  const shorter = list.filter((g) => g.days < long);
  const out = longer.map(gapSentence);
  if (shorter.length === 1) out.push(gapSentence(shorter[0]));
  else if (shorter.length > 1) {
    const days = shorter.reduce((n, g) => n + g.days, 0);
    const each = shorter.map((g) => (g.days > 1 ? `${formatRange(g.from, g.to)} (${g.days} days)` : formatDay(g.from)));
    out.push(`No prices were collected on ${longer.length ? `${formatCount(days)} other days` : plural(days, 'day')}: ${each.join(', ')}.`);
  }
  return out;
}

/** "today", "yesterday", "121 days ago" for a count of days. */
export function ago(days) {
  if (days == null || !Number.isFinite(days)) return '';
  if (days <= 0) return 'today';
  if (days === 1) return 'yesterday';
  return `${formatCount(days)} days ago`;
}

/**
 * What the pages say about GET /api/v1/status (null when it did not answer: nothing is shown):
 *
 * - `banner`: a warning when data is older than `stale_after_days` (overall `fresh: false`, or a
 *   chain `stale`), else null;
 * - `chains`: per chain, "Woolworths: prices as of 3 Aug 2026 (121 days ago)", its `stale` flag and
 *   its own gaps' sentences ({@link gapSentences});
 * - `gaps`: the sentences of the overall gaps (days no chain was collected; {@link gapSentences});
 * - `today`, `newestDay`: formatted days ("2 Dec 2026"), or null.
 */
export function freshnessView(status) {
  if (!status || typeof status !== 'object' || !Array.isArray(status.retailers)) return null;
  const after = Number.isFinite(status.stale_after_days) ? status.stale_after_days : 2;
  const today = status.today ?? null;
  const since = (day, given) => (Number.isFinite(given) ? given : today && day ? dayNumber(today) - dayNumber(day) : null);
  const chains = status.retailers.map((r) => {
    const days = r.last_day ? since(r.last_day, r.days_since) : null;
    return {
      slug: r.slug,
      name: r.name ?? r.slug,
      lastDay: r.last_day ?? null,
      stale: typeof r.stale === 'boolean' ? r.stale : days == null || days > after,
      text: `${r.last_day ? `prices as of ${formatDay(r.last_day)}${days != null ? ` (${ago(days)})` : ''}` : 'no prices collected yet'}${runNote(r.run)}`,
      gaps: gapSentences(r.gaps),
    };
  });
  // Chains never collected are stale too, but they do not make the data out of date (a chain without
  // a collector yet): the warning is about chains whose prices have aged.
  const collected = chains.filter((c) => c.lastDay);
  const late = collected.filter((c) => c.stale);
  const stale = `Data older than ${plural(after, 'day')} is stale`;
  let banner = null;
  if (!status.newest_day) {
    banner = 'No prices have been collected yet.';
  } else if ((collected.length && late.length === collected.length) || (status.fresh === false && !late.length)) {
    const days = since(status.newest_day, undefined);
    banner =
      `Prices are out of date: the newest were collected on ${formatDay(status.newest_day)}` +
      `${days != null ? `, ${plural(days, 'day')} before today (${formatDay(today)})` : ''}. ` +
      `${stale}: each chain's prices are as of its last collection day.`;
  } else if (late.length) {
    banner = `Some chains' prices are out of date: ${late.map((c) => `${c.name} (as of ${formatDay(c.lastDay)})`).join(', ')}. ${stale}.`;
  }
  return {
    banner,
    computing: computingSentence(status.computing),
    chains,
    gaps: gapSentences(status.gaps),
    today: today ? formatDay(today) : null,
    newestDay: status.newest_day ? formatDay(status.newest_day) : null,
  };
}

/** Seconds between two reads of the status while something is being computed (freshness.js followFreshness). */
export const FOLLOW_SECONDS = 10;

/** Words for the worker's jobs (names as in the status's `computing`); a name not here is shown as is. */
const JOB_WORDS = new Map([
  ['import', 'importing the real data'],
  ['ingest', 'ingesting prices'],
  ['collect', 'collecting prices'],
  ['import-export', 'importing an export'],
  ['match', 'matching products across chains'],
  ['images', 'fetching product images'],
  ['search-sync', 'updating the search index'],
  ['search-reindex', 'rebuilding the search index'],
  ['basket-match', 'matching the Food Price Index basket'],
  ['index', 'computing the food-price index'],
  ['views', 'building the comparisons, shelves and suggestions'],
  ['export', 'writing the bulk export'],
]);

/**
 * "Still being computed: importing the real data, matching products across chains. …" for the
 * status's `computing` (job names in the order planned); null when nothing is (or it is absent).
 */
export function computingSentence(names) {
  if (!Array.isArray(names) || !names.length) return null;
  const words = names.map((n) => JOB_WORDS.get(String(n)) ?? String(n));
  return `Still being computed: ${words.join(', ')}. Figures derived from the prices (comparisons, the index, shelves) may change or be missing until this is done.`;
}

/** "; the last collection run failed (1 Dec 2026)" for a chain's newest run that did not finish well; else ''. */
function runNote(run) {
  if (!run || typeof run !== 'object') return '';
  const on = run.day ? ` (${formatDay(run.day)})` : '';
  if (run.status === 'failed') return `; the last collection run failed${on}`;
  if (run.status === 'aborted') return `; the last collection run was aborted${on}`;
  if (run.status === 'running') return `; collecting${run.day ? ` ${formatDay(run.day)}` : ''} now`;
  return '';
}

/**
 * The day (or days) a page of deals describes: "as of 27 Jul 2026", or "seen 20 Jul → 27 Jul 2026"
 * when its deals were seen on different days; '' when none carries a day.
 */
export function dealsAsOf(days) {
  const known = [...new Set(days.filter((d) => typeof d === 'string' && DAY.test(d)))].sort();
  if (!known.length) return '';
  if (known.length === 1) return `as of ${formatDay(known[0])}`;
  return `seen ${formatRange(known[0], known[known.length - 1])}`;
}

/**
 * The sentence of the latest month's estimate (GraphQL MonthEstimate, issue 30 item 3): the month,
 * the days it uses and the day it describes, the change, its interval (or why there is none) and
 * Stats NZ's figure once published. Null without an estimate.
 */
export function estimateSentence(e) {
  if (!e) return null;
  const when = e.final
    ? `${formatMonth(e.month)} (complete, as of ${formatDay(e.asOf)})`
    : `${formatMonth(e.month)} so far (days 1–${e.throughDay} against the same days of ${formatMonth(previousMonth(e.month))}, as of ${formatDay(e.asOf)})`;
  if (e.change == null) return `${when}: no estimate, the month before was not observed.`;
  const interval =
    e.low != null && e.high != null
      ? `${Math.round(e.level * 100)} % interval ${formatChange(e.low)} to ${formatChange(e.high)}, from the errors of ${plural(e.pastMonths, 'earlier month')}`
      : `no interval yet (${plural(e.pastMonths, 'earlier month')} with an official figure; 3 needed)`;
  const official = e.official != null ? `Stats NZ: ${formatChange(e.official)}.` : 'Stats NZ has not published it yet.';
  return `${when}: ${formatChange(e.change)} (${interval}). ${official}`;
}

/** "2026-07" for "2026-08" (calendar, no time zone). */
function previousMonth(month) {
  const m = /^(\d{4})-(\d{2})$/.exec(String(month ?? ''));
  if (!m) return String(month ?? '');
  const y = Number(m[1]);
  const mo = Number(m[2]);
  return mo === 1 ? `${y - 1}-12` : `${m[1]}-${String(mo - 1).padStart(2, '0')}`;
}
