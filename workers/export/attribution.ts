/**
 * The licence and attribution texts written into every export folder beside the manifest
 * (`README.md` and `LICENSE`), as the contract requires ("Licence", "Attribution": data under
 * CC BY 4.0; attribution to the service and the source retailers; prices as advertised online;
 * the food-price index is a nowcast, not an official statistic). The per-table column reference
 * is generated from the column catalogue (workers/export/columns.ts), so it never drifts.
 */
import { DUCKDB_TYPE, EXPORT_TABLES, type ExportTable } from './columns.js';

/** The service's name as it must appear in attributions. */
export const SERVICE_NAME = 'NZ Grocery Prices';
/** The data licence (the manifest's `licence`). */
export const LICENCE = 'CC BY 4.0';
/** The licence's canonical address. */
export const LICENCE_URL = 'https://creativecommons.org/licenses/by/4.0/';

/** The chains the data comes from when the caller names none (retailer table names). */
export const DEFAULT_RETAILERS = ['Woolworths', 'New World', "PAK'nSAVE", 'FreshChoice', 'SuperValue', 'The Warehouse'];

/** What the texts need to know about one export. */
export interface AttributionInput {
  /** Latest data day of the export, `YYYY-MM-DD`. */
  day: string;
  /** When the export was made. */
  generatedAt: Date;
  /** Public base URL of the service (e.g. `https://example.org`); omitted from the texts when absent. */
  serviceUrl?: string;
  /** Display names of the source chains, in order (default {@link DEFAULT_RETAILERS}). */
  retailers?: readonly string[];
  /** Data rows per table name (shown in the table list); absent tables show no count. */
  rows?: Readonly<Record<string, number>>;
}

/** "A, B and C". */
function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The attribution sentence users must reproduce (with the service's address when known).
 */
export function attributionText(serviceUrl?: string, retailers: readonly string[] = DEFAULT_RETAILERS): string {
  const service = serviceUrl ? `${SERVICE_NAME} (${serviceUrl})` : SERVICE_NAME;
  return (
    `Contains data from ${service}, collected from the retailers' public websites: ${joinNames(retailers)}; ` +
    `prices as advertised online, in-store prices may differ. Licensed under ${LICENCE} (${LICENCE_URL}).`
  );
}

const escapeCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown column reference of one table: name, Parquet/DuckDB type, nullable, meaning. */
export function tableReference(table: ExportTable, rows?: number): string {
  const lines = [
    `### ${table.name}`,
    '',
    `Files \`${table.name}.parquet\` and \`${table.name}.csv.gz\`${rows === undefined ? '' : `, ${rows} rows`}. ${table.doc}`,
    '',
    '| column | type | nullable | meaning |',
    '|---|---|---|---|',
    ...table.columns.map(
      (c) => `| \`${c.name}\` | ${DUCKDB_TYPE[c.type]} (${c.type}) | ${c.nullable ? 'yes' : 'no'} | ${escapeCell(c.doc)} |`,
    ),
  ];
  return lines.join('\n');
}

/** The export folder's README.md (Markdown, UTF-8). */
export function exportReadme(input: AttributionInput): string {
  const url = input.serviceUrl?.replace(/\/+$/, '');
  const retailers = input.retailers?.length ? input.retailers : DEFAULT_RETAILERS;
  return `# ${SERVICE_NAME}: bulk export of ${input.day}

Daily online shelf prices of New Zealand supermarket chains, as price spans, with the listings and
stores they refer to. Generated ${input.generatedAt.toISOString()}; the latest data day is ${input.day}.
\`manifest.json\` lists every data file with its size in bytes, row count and SHA-256.${
    url ? `\nThe newest export is always at ${url}/data/latest/manifest.json.` : ''
  }

## Licence

The data is licensed under the Creative Commons Attribution 4.0 International licence (${LICENCE}),
${LICENCE_URL}; see \`LICENSE\`. You may share and adapt it for any purpose, provided you give
attribution.

## Attribution (required)

Reproduce this notice wherever you use the data:

> ${attributionText(url, retailers)}

The retailers (${joinNames(retailers)}) are the source of all store and price data. Prices are
point-in-time observations of the retailers' websites, as advertised online; in-store prices may
differ. They are not official figures.

The food price index (\`index_daily\`) is a nowcast, not an official statistic. Its basket and
weights (\`basket\`) are those of Stats NZ's Food Price Index: "Source: Stats NZ, licensed by Stats NZ
for re-use under the Creative Commons Attribution 4.0 International licence."

## Conventions

* Each table is written twice with the same rows in the same order: Zstd-compressed Parquet
  (\`<table>.parquet\`) and gzipped CSV (\`<table>.csv.gz\`: RFC 4180, UTF-8, one header row, an empty
  field is null, an empty string is \`""\`).
* Days are dates (\`YYYY-MM-DD\`, the New Zealand calendar). Money is integer New Zealand cents.
  Ids are the service's own ids, the same as in the API.
* Booleans are \`true\`/\`false\` in CSV. List columns (\`text[]\`) are Parquet lists of strings and,
  in CSV, JSON arrays of strings.
* A price span holds from \`first_day\` to \`last_day\` inclusive. For the current (open) span
  \`last_day\` is the last day it was observed (never a day nothing observed it): a price not
  seen for more than 14 days before its store's or chain's latest collection is no longer current.

Read with DuckDB: \`SELECT * FROM 'price_spans.parquet'\`; with pandas: \`pandas.read_parquet('price_spans.parquet')\`.

## Tables

${EXPORT_TABLES.map((t) => tableReference(t, input.rows?.[t.name])).join('\n\n')}
`;
}

/** The export folder's LICENSE text. */
export function exportLicense(serviceUrl?: string, retailers: readonly string[] = DEFAULT_RETAILERS): string {
  return `The data in this folder is licensed under the Creative Commons Attribution 4.0 International
licence (CC BY 4.0).

Full text: ${LICENCE_URL}legalcode
Summary:   ${LICENCE_URL}

Attribution required:

${attributionText(serviceUrl?.replace(/\/+$/, ''), retailers)}

The food price index is a nowcast, not an official statistic. Basket and weights: "Source: Stats NZ,
licensed by Stats NZ for re-use under the Creative Commons Attribution 4.0 International licence."
`;
}
