/**
 * What the CLI prints: JSON for scripts (`--json`), or text that fits a 100-column terminal for
 * people — a table for lists (long cells cut with "…", ids never cut) and key/value rows for one
 * resource (long values wrapped, secrets never cut nor wrapped: they are shown only once).
 */

type Row = Record<string, unknown>;

/** The widest line human output aims for. */
export const maxWidth = 100;
const gap = "  ";
const minCellWidth = 6;

/** The value at a dotted path (`plan.chargeFeeCents`). */
const pick = (row: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Row)[k] : undefined), row);

/** One value as text: "-" for nothing (or an empty list), lists comma-separated, objects as JSON. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return "-";
  if (Array.isArray(v)) return v.length === 0 ? "-" : v.map(cell).join(", ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

const cut = (s: string, width: number) => (s.length <= width ? s : `${s.slice(0, Math.max(0, width - 1))}…`);

/** Ids are what people copy from a table: they are never cut. */
const keptWhole = (column: string) => column === "id" || column.endsWith("Id") || column === "secret";

/** A plain text table of the chosen columns, at most `width` wide. */
export function table(rows: readonly unknown[], columns: readonly string[], width = maxWidth): string {
  const texts = rows.map((r) => columns.map((c) => cell(pick(r, c))));
  const widths = columns.map((c, i) => Math.max(c.length, ...texts.map((t) => t[i]?.length ?? 0)));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + gap.length * (columns.length - 1);
  while (total() > width) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (!keptWhole(columns[i] ?? "") && w > minCellWidth && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
    });
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => cut(v, widths[i] ?? 0).padEnd(widths[i] ?? 0))
      .join(gap)
      .trimEnd();
  return [line(columns), line(widths.map((w) => "-".repeat(w))), ...texts.map(line)].join("\n");
}

/**
 * Splits `text` into lines of at most `width`, at ", " or spaces when it can, else after a colon
 * (a certificate's fingerprint, `86:56:D2:…`, breaks between its bytes, not inside one).
 */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const window = rest.slice(0, width + 1);
    const at = Math.max(window.lastIndexOf(", ") + 1, window.lastIndexOf(" "));
    const colon = window.lastIndexOf(":", width - 1) + 1;
    const end = at > 0 ? at : colon > 0 ? colon : width;
    lines.push(rest.slice(0, end).trimEnd());
    rest = rest.slice(end).trimStart();
  }
  lines.push(rest);
  return lines;
}

/** One resource as "field  value" rows, at most `width` wide (a secret stays whole on its line). */
export function record(value: unknown, fields: readonly string[], width = maxWidth): string {
  const keyWidth = Math.max(...fields.map((f) => f.length));
  const valueWidth = Math.max(minCellWidth, width - keyWidth - gap.length);
  return fields
    .flatMap((f) => {
      const text = cell(pick(value, f));
      const lines = f === "secret" ? [text] : wrap(text, valueWidth);
      return lines.map((l, i) => `${(i === 0 ? f : "").padEnd(keyWidth)}${gap}${l}`.trimEnd());
    })
    .join("\n");
}

/** Where and how the CLI prints: decided per run by `--json`. */
export interface Output {
  /** Whether this run prints JSON. */
  readonly json: boolean;
  /** `value` as JSON, or the text `human` renders from it. */
  print(value: unknown, human: () => string): void;
  /** One resource: JSON, or key/value rows of `fields`. */
  record(value: unknown, fields: readonly string[]): void;
  /** A list or a page (`{ data, hasMore }`): JSON, or a table of `columns`. */
  list(value: readonly unknown[] | { data: readonly unknown[]; hasMore?: boolean }, columns: readonly string[]): void;
  /** A line for people, left out with `--json` (the JSON says it all). */
  note(line: string): void;
}

export function createOutput(json: () => boolean): Output {
  const out: Output = {
    get json() {
      return json();
    },
    print(value, human) {
      console.log(json() ? JSON.stringify(value, null, 2) : human());
    },
    record(value, fields) {
      out.print(value, () => record(value, fields));
    },
    list(value, columns) {
      const rows = Array.isArray(value) ? value : (value as { data: readonly unknown[] }).data;
      out.print(value, () => table(rows, columns));
      const last = rows.at(-1) as { id?: string } | undefined;
      const hasMore = (value as { hasMore?: boolean }).hasMore === true;
      if (hasMore && last?.id) out.note(`Há mais resultados: acrescente --starting-after ${last.id}`);
    },
    note(line) {
      if (!json()) console.log(line);
    },
  };
  return out;
}
