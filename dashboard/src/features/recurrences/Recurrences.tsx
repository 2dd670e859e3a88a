import { recurrenceStatuses } from "../../../../generated/rules";
import { canCall } from "../../../../generated/dashboard-operations";
import { Link, useSearchParams } from "react-router";
import { usePagedQuery } from "../../api/queries";
import { useCurrentSession } from "../../api/session";
import type { Recurrence } from "../../api/types";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Badge, EmptyState, ErrorMessage, Loading, Page, ui } from "../../components/ui";
import { oneOf, withFilters } from "../../lib/filters";
import { formatDay, formatDocument, formatMoney } from "../../lib/format";
import { useMode, useModePath } from "../../lib/useMode";
import { periodicityLabel, recurrenceStatusLabel, recurrenceStatusTone } from "./labels";
import { recurrenceQueries } from "./queries";

/** A recurrence's status in words, coloured. */
export function RecurrenceStatusBadge(props: { status: Recurrence["status"] }) {
  return <Badge tone={recurrenceStatusTone[props.status]}>{recurrenceStatusLabel[props.status]}</Badge>;
}

/** What each cycle charges: the fixed amount, or "variável" (with the payer's ceiling when set). */
export function cycleAmount(r: Recurrence): string {
  if (r.amountCents !== null) return formatMoney(r.amountCents);
  return r.payerMaximumAmountCents !== null ? `variável, até ${formatMoney(r.payerMaximumAmountCents)}` : "variável";
}

/** Recurrences (Pix Automático) of the mode: filter by status (kept in the address), cursor pages. */
export function Recurrences() {
  const mode = useMode();
  const to = useModePath();
  const { user } = useCurrentSession();
  const [search, setSearch] = useSearchParams();
  const status = oneOf(search, "situacao", recurrenceStatuses);
  const list = usePagedQuery((page) => recurrenceQueries.list(mode, page, status ? { status } : {}));
  const rows = list.data?.data ?? [];
  const create = canCall("createDashboardRecurrence", user.role);
  return (
    <Page
      title="Recorrências"
      subtitle="Pix Automático: o pagador autoriza uma vez no app do banco, e cada ciclo é debitado na data."
      actions={
        create ? (
          <Link className="button" to={to("recorrencias/nova")}>
            Nova recorrência
          </Link>
        ) : null
      }
    >
      <form className={ui.filters} aria-label="Filtros" onSubmit={(event) => event.preventDefault()}>
        <div className={ui.wideFilter}>
          <Field label="Situação">
            <select
              value={status ?? ""}
              onChange={(event) => setSearch(withFilters(search, { situacao: event.target.value || undefined }))}
            >
              <option value="">Todas</option>
              {recurrenceStatuses.map((s) => (
                <option key={s} value={s}>
                  {recurrenceStatusLabel[s]}
                </option>
              ))}
            </select>
          </Field>
        </div>
      </form>
      {list.isPending ? (
        <Loading label="Carregando recorrências…" />
      ) : list.isError ? (
        <ErrorMessage error={list.error} retry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={status ? "Nenhuma recorrência nesta situação" : "Nenhuma recorrência ainda"}>
          <p>
            {status
              ? "Escolha outra situação, ou todas."
              : create
                ? "Crie a primeira: os dados do pagador, o valor e a periodicidade; envie o QR code a quem vai pagar."
                : "O proprietário ou um administrador cria as recorrências."}
          </p>
        </EmptyState>
      ) : (
        <>
          <RecurrenceTable rows={rows} />
          <CursorPager hasMore={list.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
        </>
      )}
    </Page>
  );
}

/** The rows of a recurrence list: what and to whom (to its page), how often, status, amount. */
export function RecurrenceTable(props: { rows: Recurrence[]; caption?: string }) {
  const to = useModePath();
  const columns: Column<Recurrence>[] = [
    {
      header: "Recorrência",
      cell: (r) => (
        <>
          <Link to={to(`recorrencias/${r.id}`)}>{r.description}</Link>
          <br />
          <code className={ui.hint}>{r.id}</code>
        </>
      ),
    },
    {
      header: "Pagador",
      cell: (r) => (
        <>
          {r.payer.name}
          <br />
          <span className={ui.hint}>{formatDocument(r.payer.document)}</span>
        </>
      ),
    },
    {
      header: "Ciclos",
      cell: (r) => `${periodicityLabel[r.periodicity]}, desde ${formatDay(r.firstDate)}`,
    },
    { essential: true, header: "Situação", cell: (r) => <RecurrenceStatusBadge status={r.status} /> },
    { essential: true, header: "Valor", numeric: true, cell: cycleAmount },
  ];
  return (
    <DataTable
      caption={props.caption ?? "Lista de recorrências"}
      columns={columns}
      rows={props.rows}
      rowKey={(r) => r.id}
    />
  );
}
