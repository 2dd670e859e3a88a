import { disputeStatuses } from "../../../../generated/rules";
import { Link, useSearchParams } from "react-router";
import { api } from "../../api/client";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Badge, EmptyState, ErrorMessage, Loading, Page, ui } from "../../components/ui";
import { formatDateTime, formatMoney } from "../../lib/format";
import { oneOf, withFilters } from "../../lib/filters";
import { useMode, useModePath } from "../../lib/useMode";
import type { Transaction } from "../../api/types";
import { usePagedQuery } from "../../api/queries";

const statusText: Record<string, { text: string; tone: "warn" | "ok" | "danger" }> = {
  OPEN: { text: "aberta", tone: "warn" },
  WON: { text: "ganha", tone: "ok" },
  LOST: { text: "perdida", tone: "danger" },
};

/** Disputes (MED) of the mode, open and closed, with amounts and the charge. */
export function Disputes() {
  const mode = useMode();
  const to = useModePath();
  const [search, setSearch] = useSearchParams();
  const status = oneOf(search, "situacao", disputeStatuses);
  const list = usePagedQuery((page) =>
    api.queryOptions("get", "/dashboard/v1/modes/{mode}/disputes", {
      params: { path: { mode }, query: { ...page, ...(status ? { status } : {}) } },
    }),
  );
  const columns: Column<Transaction>[] = [
    {
      header: "Cobrança",
      cell: (t) => (
        <Link to={to(`transacoes/${t.id}`)}>
          <code>{t.id}</code>
        </Link>
      ),
    },
    { header: "Aberta em", cell: (t) => formatDateTime(t.dispute?.createdAt) },
    {
      essential: true,
      header: "Situação",
      cell: (t) => {
        const s = statusText[t.dispute?.status ?? ""];
        return s ? <Badge tone={s.tone}>{s.text}</Badge> : "—";
      },
    },
    { header: "Pagador", cell: (t) => t.customer.name },
    { header: "Em disputa", numeric: true, cell: (t) => formatMoney(t.dispute?.amountCents ?? 0) },
    { essential: true, header: "Valor da cobrança", numeric: true, cell: (t) => formatMoney(t.amountCents) },
  ];
  const rows = list.data?.data ?? [];
  return (
    <Page title="Disputas (MED)" subtitle="Contestações de pagadores pelo Mecanismo Especial de Devolução.">
      <form className={ui.filters} aria-label="Filtros" onSubmit={(event) => event.preventDefault()}>
        <Field label="Situação">
          <select
            value={status ?? ""}
            onChange={(event) => setSearch(withFilters(search, { situacao: event.target.value }))}
          >
            <option value="">Todas</option>
            <option value="OPEN">Abertas</option>
            <option value="WON">Ganhas</option>
            <option value="LOST">Perdidas</option>
          </select>
        </Field>
      </form>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorMessage error={list.error} retry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="Nenhuma disputa">
          <p>
            {mode === "test"
              ? "No modo de teste, abra uma disputa numa cobrança paga, na página da transação."
              : "Quando um pagador contestar um Pix, a disputa aparece aqui e o valor fica bloqueado."}
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable caption="Lista de disputas" columns={columns} rows={rows} rowKey={(t) => t.id} />
          <CursorPager hasMore={list.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
        </>
      )}
    </Page>
  );
}
