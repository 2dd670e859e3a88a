import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { DateRangeFilter } from "../../components/DateRangeFilter";
import { Field } from "../../components/Field";
import { StatusBadge } from "../../components/StatusBadge";
import { Badge, EmptyState, ErrorMessage, Loading, Page, ui } from "../../components/ui";
import { brasiliaDay, formatDateTime, formatDay, formatDocument, formatMoney } from "../../lib/format";
import { statusLabel } from "../../lib/labels";
import {
  type TransactionFilters,
  addressFromFilters,
  filtersFromAddress,
  monthOf,
  searchMaxLength,
  transactionStatuses,
  transactionsCsvHref,
} from "../../lib/transactions";
import { useMode, useModePath } from "../../lib/useMode";
import type { Transaction } from "../../api/types";
import { usePagedQuery } from "../../api/queries";
import { canCall } from "../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../api/session";
import { overdueBadge } from "../due-date-charges/terms";
import { transactionQueries } from "./queries";

/** A page of 100: what a merchant scans at once, and what the benchmark measures. */
const pageSize = 100;

/** The transactions of the mode: filters and cursor in the address, the CSV of the same view. */
export function Transactions() {
  const mode = useMode();
  const to = useModePath();
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromAddress(search);
  const [lookup, setLookup] = useState(filters.search ?? "");
  const { user } = useCurrentSession();
  const list = usePagedQuery((page) => transactionQueries.list(mode, page, filters), pageSize);
  const apply = (changes: Partial<TransactionFilters>) => setSearch(addressFromFilters({ ...filters, ...changes }));
  const rows = list.data?.data ?? [];
  return (
    <Page
      title="Transações"
      subtitle={mode === "test" ? "Cobranças Pix do modo de teste" : "Cobranças Pix de produção"}
      actions={
        <>
          {canCall("createDashboardDueDateCharge", user.role) ? (
            <Link className="button secondary" to={to("transacoes/vencimento/nova")}>
              Nova cobrança com vencimento
            </Link>
          ) : null}
          <a className="button secondary" href={transactionsCsvHref(mode, filters)} download>
            Exportar CSV
          </a>
        </>
      }
    >
      <form
        className={ui.filters}
        aria-label="Filtros"
        onSubmit={(event) => {
          event.preventDefault();
          const text = lookup.trim();
          // A payment link's id is its own filter; anything else the server searches for.
          if (/^plk_[A-Za-z0-9]+$/.test(text)) {
            setLookup("");
            apply({ paymentLinkId: text, search: undefined });
          } else apply({ search: text || undefined });
        }}
      >
        <Field label="Situação">
          <select
            value={filters.status ?? ""}
            onChange={(event) => apply({ status: (event.target.value || undefined) as TransactionFilters["status"] })}
          >
            <option value="">Todas</option>
            {transactionStatuses.map((status) => (
              <option key={status} value={status}>
                {statusLabel[status]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Tipo">
          <select
            value={filters.kind ?? ""}
            onChange={(event) => apply({ kind: (event.target.value || undefined) as TransactionFilters["kind"] })}
          >
            <option value="">Todas</option>
            <option value="DUE_DATE">Com vencimento</option>
          </select>
        </Field>
        <DateRangeFilter
          from={filters.from}
          to={filters.to}
          onChange={(change) =>
            apply("from" in change ? { from: change.from || undefined } : { to: change.to || undefined })
          }
        />
        <div className={ui.wideFilter}>
          <Field label="Buscar" hint="Id da transação (txn_…), de um link (plk_…) ou CPF/CNPJ do pagador">
            <input
              type="search"
              maxLength={searchMaxLength}
              value={lookup}
              onChange={(event) => setLookup(event.target.value)}
            />
          </Field>
        </div>
        <div className={ui.formActions}>
          <button type="submit" className="secondary">
            Buscar
          </button>
        </div>
      </form>
      <div className={ui.actions}>
        <button type="button" className="secondary" onClick={() => apply(monthOf(brasiliaDay(new Date())))}>
          Este mês
        </button>
        {filters.paymentLinkId ? (
          <button type="button" className="secondary" onClick={() => apply({ paymentLinkId: undefined })}>
            Link {filters.paymentLinkId} ✕
          </button>
        ) : null}
        {filters.customerId ? (
          <button type="button" className="secondary" onClick={() => apply({ customerId: undefined })}>
            Cliente {filters.customerId} ✕
          </button>
        ) : null}
        {filters.search ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setLookup("");
              apply({ search: undefined });
            }}
          >
            Busca “{filters.search}” ✕
          </button>
        ) : null}
        {Object.keys(filters).length > 0 ? (
          <button
            type="button"
            className="link"
            onClick={() => {
              setLookup("");
              setSearch(new URLSearchParams());
            }}
          >
            Limpar filtros
          </button>
        ) : null}
      </div>
      {list.isPending ? (
        <Loading label="Carregando transações…" />
      ) : list.isError ? (
        <ErrorMessage error={list.error} retry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState
          title={Object.keys(filters).length ? "Nenhuma transação com estes filtros" : "Nenhuma transação ainda"}
        >
          <p>
            {Object.keys(filters).length ? (
              filters.search ? (
                "A busca acha uma transação pelo id inteiro (txn_…) ou as de um pagador pelo CPF/CNPJ inteiro. Confira o texto, ou limpe os filtros."
              ) : (
                "Mude ou limpe os filtros."
              )
            ) : (
              <>
                Crie um <Link to={to("links")}>link de pagamento</Link> e pague-o, ou crie cobranças pela API com uma{" "}
                <Link to={to("desenvolvedores")}>chave de API</Link>.
              </>
            )}
          </p>
        </EmptyState>
      ) : (
        <>
          <TransactionTable rows={rows} />
          <CursorPager hasMore={list.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
        </>
      )}
    </Page>
  );
}

/** The rows of a transaction list: id (to its page), when, who paid, status, amount. */
export function TransactionTable(props: { rows: Transaction[]; caption?: string }) {
  const to = useModePath();
  const columns: Column<Transaction>[] = [
    {
      header: "Transação",
      cell: (t) => (
        <>
          <Link to={to(`transacoes/${t.id}`)}>
            <code>{t.id}</code>
          </Link>
          <br />
          <span className={ui.hint}>{t.description}</span>
        </>
      ),
    },
    { header: "Criada em", cell: (t) => formatDateTime(t.createdAt) },
    {
      header: "Pagador",
      cell: (t) => (
        <>
          {t.customer.name}
          <br />
          <span className={ui.hint}>{formatDocument(t.customer.document)}</span>
        </>
      ),
    },
    {
      essential: true,
      header: "Situação",
      cell: (t) => (
        <span>
          <StatusBadge status={t.status} />
          {overdueBadge(t) ? (
            <>
              {" "}
              <Badge tone="danger">{overdueBadge(t)}</Badge>
            </>
          ) : null}
          {t.dueDateCharge ? (
            <>
              <br />
              <span className={ui.hint}>Vence {formatDay(t.dueDateCharge.adjustedDueDate)}</span>
            </>
          ) : null}
        </span>
      ),
    },
    { essential: true, header: "Valor", numeric: true, cell: (t) => formatMoney(t.amountCents) },
  ];
  return (
    <DataTable
      caption={props.caption ?? "Lista de transações"}
      columns={columns}
      rows={props.rows}
      rowKey={(t) => t.id}
    />
  );
}
