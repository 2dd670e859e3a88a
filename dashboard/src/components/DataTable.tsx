import type { ReactNode } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";
import { ui } from "./ui";

// A list's table, and its pages by cursor (the API's `startingAfter`/`hasMore`), the cursor kept
// in the address (`?apos=<id>`) so a page can be reloaded and shared, and the way back in the
// history's state. Where the list has less room than its columns need (under 45rem: a phone, a
// tablet) each row is a card, every cell on its own line beside its column's name, so the amount
// and the status of a row are never off the screen.

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
  /** A cell that must stay in view at every width (the browser tests' layout check looks for it). */
  essential?: boolean;
}

export function DataTable<Row>(props: {
  caption: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
}) {
  return (
    <div className={ui.tableWrap} tabIndex={0} role="region" aria-label={props.caption}>
      <table>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? "number" : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((column) => (
                <td
                  key={column.header}
                  className={column.numeric ? "number" : undefined}
                  data-label={column.header}
                  data-essential={column.essential ? "" : undefined}
                >
                  <div>{column.cell(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const cursorParam = "apos";

/** @public The page's cursor from the address, and the moves to the next and previous pages. */
export function useCursor() {
  const [search] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const startingAfter = search.get(cursorParam) ?? undefined;
  const trail = ((location.state as { trail?: unknown } | null)?.trail ?? []) as string[];
  const go = (cursor: string | undefined, nextTrail: string[]) => {
    const params = new URLSearchParams(search);
    if (cursor) params.set(cursorParam, cursor);
    else params.delete(cursorParam);
    navigate({ search: params.toString() }, { state: { trail: nextTrail } });
  };
  return {
    startingAfter,
    isFirst: startingAfter === undefined,
    next: (lastId: string) => go(lastId, [...trail, startingAfter ?? ""]),
    previous: () => go(trail.at(-1) || undefined, trail.slice(0, -1)),
    first: () => go(undefined, []),
  };
}

/** @public "Anterior" / "Próxima" under a list. */
export function CursorPager(props: { hasMore: boolean; lastId: string | undefined; count: number }) {
  const cursor = useCursor();
  if (cursor.isFirst && !props.hasMore) return null;
  return (
    <nav className={ui.pager} aria-label="Páginas">
      <button type="button" className="secondary" disabled={cursor.isFirst} onClick={cursor.previous}>
        ← Anterior
      </button>
      <span>{props.count} nesta página</span>
      <button
        type="button"
        className="secondary"
        disabled={!props.hasMore || props.lastId === undefined}
        onClick={() => props.lastId && cursor.next(props.lastId)}
      >
        Próxima →
      </button>
    </nav>
  );
}
