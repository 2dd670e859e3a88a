import { stringify } from "csv-stringify/sync";

// CSV files for a spreadsheet set to pt-BR (Excel, LibreOffice, Google Sheets): UTF-8 with a BOM
// (without one Excel reads the bytes as Windows-1252), `;` between fields (`,` is the decimal
// separator there), CRLF between records, quotes where a field needs them, and a text field that
// starts a formula (`=`, `+`, `-`, `@`, a tab or a carriage return) prefixed with `'`, so a
// payer's name cannot run in the merchant's spreadsheet (OWASP "CSV injection"; csv-stringify's
// `escape_formulas`, which leaves numbers alone). docs/decisions/0025-csv-export.md. An amount and
// an instant as such a spreadsheet reads them: `spreadsheetReais` (domain/core/money.ts) and
// `spreadsheetDateTime` (domain/core/time.ts).

/** One column: its header, and its value for a row (null: an empty field). */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | null;
}

const options = { delimiter: ";", record_delimiter: "windows", escape_formulas: true } as const;

const bom = "\uFEFF";

/**
 * The CSV text of every row of `pages`, one chunk per page, the BOM and the header line in the
 * first: pulled one page at a time, so a file is never whole in memory.
 */
export async function* csvChunks<T>(
  columns: CsvColumn<T>[],
  pages: AsyncIterable<readonly T[]>,
): AsyncGenerator<string> {
  let header: string | null = bom + stringify([columns.map((c) => c.header)], options);
  for await (const page of pages) {
    const records = stringify(
      page.map((row) => columns.map((c) => c.value(row) ?? "")),
      options,
    );
    yield header === null ? records : header + records;
    header = null;
  }
  if (header !== null) yield header;
}
