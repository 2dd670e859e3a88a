import { Link, useSearchParams } from "react-router";
import { usePagedQuery } from "../../api/queries";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { DateRangeFilter } from "../../components/DateRangeFilter";
import { Card, Details, EmptyState, ErrorMessage, Loading, Page, ui } from "../../components/ui";
import { isDay, withFilters } from "../../lib/filters";
import { brasiliaDay, formatDateTime, formatDay, formatMoney } from "../../lib/format";
import { monthOf } from "../../lib/transactions";
import { useMode, useModePath } from "../../lib/useMode";
import { type StatementEntry, movementLabel } from "./labels";
import { type StatementPeriod, statementCsvHref, statementQueries } from "./queries";
import styles from "./Statement.module.css";

type Balance = StatementEntry["balanceAfter"];

/** `+R$ 10,00` / `−R$ 10,00`: a change of the balance, its sign always written. */
const signed = (cents: number) =>
  cents > 0 ? `+${formatMoney(cents)}` : cents < 0 ? `−${formatMoney(-cents)}` : formatMoney(0);

/** The parts a movement changed, a line each: `disponível +R$ 99,20`, `a liberar −R$ 99,20`. */
function partsMoved(m: StatementEntry): string[] {
  return (
    [
      ["disponível", m.availableCents],
      ["a liberar", m.pendingCents],
      ["bloqueado", m.blockedCents],
    ] as const
  )
    .filter(([, cents]) => cents !== 0)
    .map(([part, cents]) => `${part} ${signed(cents)}`);
}

/** What a fee was taken from: the amount the payer paid, or what reached the Pix key. */
const feeBase = (m: StatementEntry) =>
  m.type === "withdrawal"
    ? `${formatMoney(-m.grossAmountCents)} enviados`
    : `de ${formatMoney(m.grossAmountCents)} pagos`;

/** The period of the address (`?de=2026-11-01&ate=2026-11-30`); today when it names none. */
function periodOf(search: URLSearchParams, today: string): StatementPeriod {
  const from = search.get("de");
  const to = search.get("ate");
  if (!isDay(from) && !isDay(to)) return { from: today, to: today };
  return { ...(isDay(from) ? { from } : {}), ...(isDay(to) ? { to } : {}) };
}

/**
 * The statement (extrato) of the mode: every movement of the balance in a period of Brasília days,
 * newest first, each with the balance after it; the balance at the period's start and end; the CSV.
 */
export function Statement() {
  const mode = useMode();
  const to = useModePath();
  const [search, setSearch] = useSearchParams();
  const today = brasiliaDay(new Date());
  const period = periodOf(search, today);
  const list = usePagedQuery((page) => statementQueries.page(mode, page, period));
  const rows = list.data?.data ?? [];
  const apply = (changes: Record<string, string | undefined>) =>
    setSearch(
      withFilters(
        new URLSearchParams({ ...(period.from ? { de: period.from } : {}), ...(period.to ? { ate: period.to } : {}) }),
        changes,
      ),
    );
  const columns: Column<StatementEntry>[] = [
    {
      header: "Data",
      cell: (m) => {
        const [day, time] = formatDateTime(m.createdAt).split(" ");
        return (
          <>
            {day}
            <br />
            {time}
          </>
        );
      },
    },
    {
      header: "Movimento",
      cell: (m) => (
        <>
          <strong>{movementLabel[m.type]}</strong>
          {m.transactionId ? (
            <>
              <br />
              <Link to={to(`transacoes/${m.transactionId}`)}>{m.description ?? m.transactionId}</Link>
            </>
          ) : m.sourceId ? (
            <>
              <br />
              <code className={ui.hint}>{m.sourceId}</code>
            </>
          ) : null}
        </>
      ),
    },
    {
      header: "Tarifa",
      numeric: true,
      cell: (m) =>
        m.feeCents ? (
          <>
            {formatMoney(m.feeCents)}
            <br />
            <span className={ui.hint}>{feeBase(m)}</span>
          </>
        ) : (
          "—"
        ),
    },
    {
      essential: true,
      header: "Valor",
      numeric: true,
      cell: (m) => (
        <>
          <span className={m.amountCents < 0 ? styles.debit : m.amountCents > 0 ? styles.credit : undefined}>
            {signed(m.amountCents)}
          </span>
          {partsMoved(m).map((part) => (
            <span key={part} className={`${ui.hint} ${styles.part}`}>
              {part}
            </span>
          ))}
        </>
      ),
    },
    {
      essential: true,
      header: "Saldo depois",
      numeric: true,
      cell: (m) => (
        <>
          {formatMoney(m.balanceAfter.totalCents)}
          <br />
          <span className={ui.hint}>{formatMoney(m.balanceAfter.availableCents)} disponível</span>
        </>
      ),
    },
  ];
  const range =
    period.from && period.to
      ? period.from === period.to
        ? `em ${formatDay(period.from)}`
        : `de ${formatDay(period.from)} a ${formatDay(period.to)}`
      : period.from
        ? `desde ${formatDay(period.from)}`
        : `até ${formatDay(period.to)}`;
  return (
    <Page
      title="Extrato"
      subtitle={`Cada movimento do saldo ${mode === "test" ? "do modo de teste" : "de produção"} ${range}, com o saldo depois dele.`}
      actions={
        <a className="button secondary" href={statementCsvHref(mode, period)} download>
          Exportar CSV
        </a>
      }
    >
      <form className={ui.filters} aria-label="Período" onSubmit={(event) => event.preventDefault()}>
        <DateRangeFilter
          from={period.from}
          to={period.to}
          onChange={(change) => apply("from" in change ? { de: change.from } : { ate: change.to })}
        />
      </form>
      <div className={ui.actions}>
        <button type="button" className="secondary" onClick={() => setSearch(new URLSearchParams())}>
          Hoje
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            const month = monthOf(today);
            setSearch(new URLSearchParams({ de: month.from, ate: month.to }));
          }}
        >
          Este mês
        </button>
      </div>
      {list.isPending ? (
        <Loading label="Carregando o extrato…" />
      ) : list.isError ? (
        <ErrorMessage error={list.error} retry={() => void list.refetch()} />
      ) : (
        <>
          <div className={ui.grid2}>
            <BalanceCard title="Saldo no início" id="saldo-inicio" balance={list.data.opening} />
            <BalanceCard title="Saldo no fim" id="saldo-fim" balance={list.data.closing} />
          </div>
          {rows.length === 0 ? (
            <EmptyState title="Nenhum movimento neste período">
              <p>
                Pagamentos, devoluções, saques, disputas e liberações aparecem aqui. Faça uma{" "}
                <Link to={to("balcao")}>nova cobrança</Link> ou mude o período.
              </p>
            </EmptyState>
          ) : (
            <>
              <DataTable caption="Movimentos do saldo" columns={columns} rows={rows} rowKey={(m) => m.id} />
              <CursorPager hasMore={list.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
            </>
          )}
        </>
      )}
    </Page>
  );
}

function BalanceCard(props: { title: string; id: string; balance: Balance }) {
  const b = props.balance;
  return (
    <Card title={props.title} id={props.id}>
      <p className={styles.total}>{formatMoney(b.totalCents)}</p>
      <Details
        items={[
          ["Disponível", formatMoney(b.availableCents)],
          ["A liberar", formatMoney(b.pendingCents)],
          ["Bloqueado", formatMoney(b.blockedCents)],
        ]}
      />
    </Card>
  );
}
