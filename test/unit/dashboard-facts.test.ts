/**
 * The pure helpers of the dashboard and the front door (facades/dashboard/facts.js, issue 26): the
 * index line breaks on days nothing was observed, days read as "3 Aug 2026", and the status
 * (GET /api/v1/status) becomes the stale banner and each chain's "prices as of".
 */
import { describe, expect, it } from 'vitest';
import {
  dayAfter,
  dealsAsOf,
  drawnValues,
  estimateSentence,
  formatCount,
  formatDay,
  formatChange,
  formatMonth,
  freshnessView,
  gapSentence,
  gapSentences,
  lineSegments,
  segmentGaps,
  type DataStatus,
} from '../../facades/dashboard/facts.js';

/** `n` consecutive days from `from`. */
const daysFrom = (from: string, n: number) => Array.from({ length: n }, (_, i) => dayAfter(from, i));

describe('lineSegments', () => {
  const days = daysFrom('2026-07-25', 8);

  it('draws one segment through observed days', () => {
    expect(lineSegments(days, [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 1, 1, 1, 1, 1])).toEqual([{ from: 0, to: 7 }]);
  });

  it('breaks the line on a day with coverage 0, even when the value is carried forward', () => {
    const raw = [1000, 1001, 1001, 1001, 1001, 1003, 1004, 1002];
    const coverage = [0.9, 0.9, 0, 0, 0, 0.8, 0.8, 0.8];
    const segments = lineSegments(days, raw, coverage);
    expect(segments).toEqual([{ from: 0, to: 1 }, { from: 5, to: 7 }]);
    // No segment covers a day with coverage 0.
    for (const s of segments) for (let i = s.from; i <= s.to; i++) expect(coverage[i]).toBeGreaterThan(0);
    expect(drawnValues(days, raw, coverage)).toEqual([1000, 1001, null, null, null, 1003, 1004, 1002]);
    expect(segmentGaps(days, segments)).toEqual([{ from: '2026-07-27', to: '2026-07-29', days: 3 }]);
  });

  it('breaks on null values and leading or trailing unobserved days, without inventing gaps there', () => {
    const segments = lineSegments(days, [null, null, 5, 6, null, 7, 8, 9], [0, 0, 1, 1, 1, 1, 1, 0]);
    expect(segments).toEqual([{ from: 2, to: 3 }, { from: 5, to: 6 }]);
    expect(segmentGaps(days, segments)).toEqual([{ from: '2026-07-29', to: '2026-07-29', days: 1 }]);
  });

  it('breaks where a calendar day is missing from the axis', () => {
    const sparse = ['2025-05-03', '2025-05-04', '2026-07-27', '2026-07-28'];
    const segments = lineSegments(sparse, [1, 2, 3, 4], [1, 1, 1, 1]);
    expect(segments).toEqual([{ from: 0, to: 1 }, { from: 2, to: 3 }]);
    expect(segmentGaps(sparse, segments)).toEqual([{ from: '2025-05-05', to: '2026-07-26', days: 448 }]);
  });

  it('treats missing coverage as observed, and keeps one-day segments', () => {
    expect(lineSegments(days.slice(0, 3), [1, 2, 3])).toEqual([{ from: 0, to: 2 }]);
    expect(lineSegments(days.slice(0, 3), [1, 2, 3], [1, 0, 1])).toEqual([{ from: 0, to: 0 }, { from: 2, to: 2 }]);
    expect(lineSegments([], [], [])).toEqual([]);
  });
});

describe('days and counts for people', () => {
  it('formats days and counts', () => {
    expect(formatDay('2026-08-03')).toBe('3 Aug 2026');
    expect(formatDay('2025-12-25')).toBe('25 Dec 2025');
    expect(formatCount(5295)).toBe('5,295');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(12)).toBe('12');
    expect(gapSentence({ from: '2025-05-05', to: '2026-07-26', days: 448 })).toBe('No prices were collected 5 May 2025 → 26 Jul 2026 (448 days).');
    expect(gapSentence({ from: '2026-07-30', to: '2026-07-30', days: 1 })).toBe('No prices were collected 30 Jul 2026 (1 day).');
  });

  it('names long gaps one by one and the short ones together', () => {
    const long = { from: '2025-05-05', to: '2026-07-26', days: 448 };
    const short = [
      { from: '2025-01-10', to: '2025-01-10', days: 1 },
      { from: '2025-02-26', to: '2025-02-28', days: 3 },
    ];
    expect(gapSentences([short[0], short[1], long])).toEqual([
      'No prices were collected 5 May 2025 → 26 Jul 2026 (448 days).',
      'No prices were collected on 4 other days: 10 Jan 2025, 26 Feb 2025 → 28 Feb 2025 (3 days).',
    ]);
    expect(gapSentences(short)).toEqual(['No prices were collected on 4 days: 10 Jan 2025, 26 Feb 2025 → 28 Feb 2025 (3 days).']);
    expect(gapSentences([short[1]])).toEqual(['No prices were collected 26 Feb 2025 → 28 Feb 2025 (3 days).']);
    expect(gapSentences([])).toEqual([]);
    expect(gapSentences(null)).toEqual([]);
  });

  it('says the day of a page of deals', () => {
    expect(dealsAsOf(['2026-07-27', '2026-07-27', null])).toBe('as of 27 Jul 2026');
    expect(dealsAsOf(['2026-08-03', '2026-07-27'])).toBe('seen 27 Jul 2026 → 3 Aug 2026');
    expect(dealsAsOf([])).toBe('');
  });
});

describe('freshnessView', () => {
  const run = { status: 'finished', day: '2026-08-03', started_at: null, finished_at: null, scopes: 1, collected: 1, failed: 0, error: null };
  const status = (over: Partial<DataStatus> = {}): DataStatus => ({
    today: '2026-12-02',
    newest_day: '2026-08-03',
    fresh: false,
    stale_after_days: 2,
    cap_days: 14,
    gaps: [{ from: '2025-05-05', to: '2026-07-26', days: 448 }],
    retailers: [
      { slug: 'woolworths', name: 'Woolworths', first_day: '2024-01-01', last_day: '2026-08-03', last_run: null, days_since: 121, stale: true, run, gaps: [{ from: '2025-05-05', to: '2026-07-26', days: 448 }] },
      { slug: 'paknsave', name: "PAK'nSAVE", first_day: '2025-01-01', last_day: '2026-07-27', last_run: null, days_since: 128, stale: true, run: null, gaps: [] },
    ],
    computing: [],
    jobs: [],
    ...over,
  });

  it('warns when the data is stale, with each chain as of its last collection day', () => {
    const v = freshnessView(status())!;
    expect(v.banner).toBe(
      'Prices are out of date: the newest were collected on 3 Aug 2026, 121 days before today (2 Dec 2026). Data older than 2 days is stale: each chain\'s prices are as of its last collection day.',
    );
    expect(v.chains.map((c) => [c.name, c.text, c.stale])).toEqual([
      ['Woolworths', 'prices as of 3 Aug 2026 (121 days ago)', true],
      ["PAK'nSAVE", 'prices as of 27 Jul 2026 (128 days ago)', true],
    ]);
    expect(v.chains[0].gaps).toEqual(['No prices were collected 5 May 2025 → 26 Jul 2026 (448 days).']);
    expect(v.gaps).toEqual(['No prices were collected 5 May 2025 → 26 Jul 2026 (448 days).']);
    // No raw ISO day in any sentence.
    for (const text of [v.banner!, ...v.chains.map((c) => c.text), ...v.gaps]) expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('shows no banner when fresh, and names only the stale chains when some are', () => {
    const fresh = status({
      today: '2026-08-04',
      fresh: true,
      retailers: [
        { ...status().retailers[0], days_since: 1, stale: false },
        { ...status().retailers[1], last_day: '2026-08-04', days_since: 0, stale: false },
      ],
    });
    const v = freshnessView(fresh)!;
    expect(v.banner).toBeNull();
    expect(v.chains.map((c) => c.text)).toEqual(['prices as of 3 Aug 2026 (yesterday)', 'prices as of 4 Aug 2026 (today)']);
    // One chain late: the service is not fresh, but only that chain is out of date.
    const one = freshnessView({ ...fresh, fresh: false, retailers: [fresh.retailers[0], { ...fresh.retailers[1], last_day: '2026-07-27', days_since: 8, stale: true }] })!;
    expect(one.banner).toBe("Some chains' prices are out of date: PAK'nSAVE (as of 27 Jul 2026). Data older than 2 days is stale.");
    // A chain never collected (no collector yet) is listed, but does not raise the warning.
    const never = { ...status().retailers[1], slug: 'warehouse', name: 'The Warehouse', first_day: null, last_day: null, days_since: null, stale: true, gaps: [] };
    const v2 = freshnessView({ ...fresh, retailers: [...fresh.retailers, never] })!;
    expect(v2.banner).toBeNull();
    expect(v2.chains[2]).toMatchObject({ slug: 'warehouse', lastDay: null, stale: true, text: 'no prices collected yet' });
  });

  it('says when a chain has never been collected or its last run failed, and shows nothing without a status', () => {
    const v = freshnessView(
      status({ retailers: [{ ...status().retailers[0], last_day: null, days_since: null, run: { ...run, status: 'failed', day: '2026-12-01' } }] }),
    )!;
    expect(v.chains[0].text).toBe('no prices collected yet; the last collection run failed (1 Dec 2026)');
    const withRun = (over: object) => freshnessView(status({ retailers: [{ ...status().retailers[0], run: { ...run, day: '2026-12-02', ...over } }] }))!.chains[0].text;
    expect(withRun({ status: 'aborted' })).toBe('prices as of 3 Aug 2026 (121 days ago); the last collection run was aborted (2 Dec 2026)');
    expect(withRun({ status: 'running' })).toBe('prices as of 3 Aug 2026 (121 days ago); collecting 2 Dec 2026 now');
    expect(withRun({ status: 'finished' })).toBe('prices as of 3 Aug 2026 (121 days ago)');
    expect(freshnessView(null)).toBeNull();
    expect(freshnessView({ error: { status: 404, message: 'Not found' } })).toBeNull();
    expect(freshnessView(status({ newest_day: null }))!.banner).toBe('No prices have been collected yet.');
  });

  it('says what is still being computed, in words, and nothing when nothing is', () => {
    expect(freshnessView(status())!.computing).toBeNull();
    expect(freshnessView({ ...status(), computing: undefined })!.computing).toBeNull();
    expect(freshnessView(status({ computing: ['import', 'match', 'index', 'constructor'] }))!.computing).toBe(
      'Still being computed: importing the real data, matching products across chains, computing the food-price index, constructor. Figures derived from the prices (comparisons, the index, shelves) may change or be missing until this is done.',
    );
  });
});

describe('formatMonth and formatChange', () => {
  it('writes months and changes for people', () => {
    expect(formatMonth('2024-11')).toBe('Nov 2024');
    expect(formatMonth('nope')).toBe('nope');
    expect(formatChange(0.4249)).toBe('+0.42 %');
    expect(formatChange(-0.1, ' pp')).toBe('−0.10 pp');
    expect(formatChange(null)).toBe('—');
  });
});

describe('estimateSentence (the latest month of the track record)', () => {
  const base = { month: '2026-08', asOf: '2026-08-03', final: false, throughDay: 3, change: -0.0169, low: -1.1618, high: 1.1279, level: 0.9, pastMonths: 5, official: null };
  it('a month in progress: the days compared, the day it describes, the interval and that Stats NZ has not published', () => {
    expect(estimateSentence(base)).toBe(
      'Aug 2026 so far (days 1–3 against the same days of Jul 2026, as of 3 Aug 2026): −0.02 % (90 % interval −1.16 % to +1.13 %, from the errors of 5 earlier months). Stats NZ has not published it yet.',
    );
  });
  it('a complete month with the official figure; a January compares with December of the year before', () => {
    expect(estimateSentence({ ...base, month: '2025-01', asOf: '2025-01-31', final: true, throughDay: 31, change: 2.16, official: 1.94 })).toBe(
      'Jan 2025 (complete, as of 31 Jan 2025): +2.16 % (90 % interval −1.16 % to +1.13 %, from the errors of 5 earlier months). Stats NZ: +1.94 %.',
    );
    expect(estimateSentence({ ...base, month: '2025-01', asOf: '2025-01-09', throughDay: 9 })).toContain('days 1–9 against the same days of Dec 2024');
  });
  it('no interval under three earlier months, no estimate without the month before, nothing without an estimate', () => {
    expect(estimateSentence({ ...base, low: null, high: null, pastMonths: 1 })).toContain('(no interval yet (1 earlier month with an official figure; 3 needed))');
    expect(estimateSentence({ ...base, change: null })).toBe('Aug 2026 so far (days 1–3 against the same days of Jul 2026, as of 3 Aug 2026): no estimate, the month before was not observed.');
    expect(estimateSentence(null)).toBeNull();
  });
});
