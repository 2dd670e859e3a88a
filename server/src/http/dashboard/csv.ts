import { stringify } from "csv-stringify/sync";

// CSV files for a spreadsheet set to pt-BR (Excel, LibreOffice, Google Sheets): UTF-8 with a BOM
// (without one Excel reads the bytes as Windows-1252), `;` between fields (`,` is the decimal
// separator there), CRLF between records, quotes where a field needs them, and a text field that
// starts a formula (`=`, `+`, `-`, `@`, a tab or a carriage return) prefixed with `'`, so a
// payer's name cannot run in the merchant's spreadsheet (OWASP "CSV injection"; csv-stringify's
// `escape_formulas`, which leaves numbers alone). docs/decisions/0025-csv-export.md.

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

/** Cents as a pt-BR spreadsheet reads an amount in reais: `12990` → `129,90`, no thousands separator. */
export function reais(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const whole = Math.abs(cents);
  return `${sign}${Math.trunc(whole / 100)},${String(whole % 100).padStart(2, "0")}`;
}

const brasilia = new Intl.DateTimeFormat("en-GB", {
  timeZone: "America/Sao_Paulo",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** An instant as a pt-BR spreadsheet reads a date and time, in Brasília time: `24/11/2026 15:30`. */
export function brasiliaDateTime(iso: string | null): string | null {
  if (iso === null) return null;
  const parts = Object.fromEntries(brasilia.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${parts.day}/${parts.month}/${parts.year} ${parts.hour}:${parts.minute}`;
}
