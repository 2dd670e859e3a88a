import { useState } from "react";
import { api } from "../../../api/client";
import { EventName } from "../../../components/EventName";
import { type Column, CursorPager, DataTable } from "../../../components/DataTable";
import { Card, EmptyState, ErrorMessage, Loading, ui } from "../../../components/ui";
import { formatDateTime } from "../../../lib/format";
import { useMode } from "../../../lib/useMode";
import type { DashboardEvent } from "../../../api/types";
import { usePagedQuery } from "../../../api/queries";

type Event = DashboardEvent;

/** The mode's events, newest first, and one event's JSON. */
export function Events() {
  const mode = useMode();
  const [shown, setShown] = useState<string | null>(null);
  const list = usePagedQuery((page) =>
    api.queryOptions("get", "/dashboard/v1/modes/{mode}/events", { params: { path: { mode }, query: page } }),
  );
  const one = api.useQuery(
    "get",
    "/dashboard/v1/modes/{mode}/events/{id}",
    { params: { path: { mode, id: shown ?? "" } } },
    { enabled: shown !== null },
  );
  const columns: Column<Event>[] = [
    { header: "Evento", cell: (e) => <EventName kind={e.type} /> },
    { header: "Quando", cell: (e) => formatDateTime(e.createdAt) },
    {
      header: "Id",
      cell: (e) => (
        <button type="button" className="link" onClick={() => setShown(shown === e.id ? null : e.id)}>
          {e.id}
        </button>
      ),
    },
  ];
  const rows = list.data?.data ?? [];
  return (
    <div className="stack">
      {shown ? (
        <Card title={`Evento ${shown}`} id="evento">
          {one.isPending ? (
            <Loading />
          ) : one.isError ? (
            <ErrorMessage error={one.error} />
          ) : (
            <pre className={ui.json} tabIndex={0} aria-label="JSON do evento">
              {JSON.stringify(one.data, null, 2)}
            </pre>
          )}
          <button type="button" className="secondary" onClick={() => setShown(null)}>
            Fechar
          </button>
        </Card>
      ) : null}
      <Card title="Eventos" id="eventos">
        {list.isPending ? (
          <Loading />
        ) : list.isError ? (
          <ErrorMessage error={list.error} retry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState title="Nenhum evento neste modo">
            <p>Eventos surgem quando algo acontece: uma cobrança paga, um reembolso, um saque.</p>
          </EmptyState>
        ) : (
          <>
            <DataTable caption="Lista de eventos" columns={columns} rows={rows} rowKey={(e) => e.id} />
            <CursorPager hasMore={list.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
          </>
        )}
      </Card>
    </div>
  );
}
