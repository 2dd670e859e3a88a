import { Suspense, lazy } from "react";
import { Link, useLocation } from "react-router";
import { canCall } from "../../../../generated/dashboard-operations";
import { api } from "../../api/client";
import { useCurrentSession } from "../../api/session";
import { Alert, Card, ErrorMessage, Loading, Page } from "../../components/ui";
import { formatCount, formatDate, formatDateTime, formatMoney, formatPlural } from "../../lib/format";
import { statusLabel } from "../../lib/labels";
import { useMode, useModePath } from "../../lib/useMode";
import styles from "./Home.module.css";
import type { HomeFigures } from "../../api/types";

// uPlot comes with the chart only: the first load of the app carries no chart library.
const DayChart = lazy(() => import("../../components/DayChart"));

/** Início: balances, today, the last 30 Brasília days with the chart, open disputes, ticket médio. */
export function Home() {
  const { user } = useCurrentSession();
  const mode = useMode();
  const welcome = (useLocation().state as { welcome?: boolean } | null)?.welcome === true;
  const home = api.useQuery("get", "/dashboard/v1/modes/{mode}/home", { params: { path: { mode } } });
  return (
    <Page title={`Olá, ${user.name.split(" ")[0]}`} subtitle={mode === "test" ? "Modo de teste" : "Produção"}>
      {welcome ? (
        <Alert tone="ok">Conta criada. O modo de teste já funciona: nada aqui move dinheiro real.</Alert>
      ) : null}
      {home.isPending ? (
        <Loading label="Carregando os números…" />
      ) : home.isError ? (
        <ErrorMessage error={home.error} retry={() => void home.refetch()} />
      ) : (
        <Figures figures={home.data} />
      )}
      <FirstSteps />
    </Page>
  );
}

type Figures = HomeFigures;

/** A status's word for several charges ("Pagas: 3"); the status label reads for one ("Paga: 1"). */
const statusPlural: Record<string, string> = {
  PAID: "Pagas",
  EXPIRED: "Expiradas",
  CANCELLED: "Canceladas",
  PENDING: "Pendentes",
};

function Tile(props: { title: string; value: string; sub?: React.ReactNode }) {
  return (
    <section className={styles.tile} aria-label={props.title}>
      <h2>{props.title}</h2>
      <p className={styles.value}>{props.value}</p>
      {props.sub ? <p className={styles.sub}>{props.sub}</p> : null}
    </section>
  );
}

function Figures({ figures }: { figures: Figures }) {
  const { balance, today, last30Days: last30, openDisputes } = figures;
  const statuses = Object.entries(last30.byStatus).filter(([, count]) => count > 0);
  return (
    <>
      <div className={styles.tiles}>
        <Tile title="Disponível" value={formatMoney(balance.availableCents)} sub="pode ser sacado" />
        <Tile title="A liberar" value={formatMoney(balance.pendingCents)} sub="vendas no prazo de liberação" />
        <Tile title="Bloqueado" value={formatMoney(balance.blockedCents)} sub="retido por disputas" />
        <Tile
          title="Recebido hoje"
          value={formatMoney(today.amountCents)}
          sub={formatPlural(today.count, "pagamento", "pagamentos")}
        />
        <Tile
          title="Ticket médio (30 dias)"
          value={formatMoney(last30.averageTicketCents)}
          sub={`${formatPlural(last30.count, "pagamento", "pagamentos")}, ${formatMoney(last30.amountCents)}`}
        />
        <Tile
          title="Disputas abertas"
          value={formatCount(openDisputes.count)}
          sub={
            openDisputes.count > 0 ? `${formatMoney(openDisputes.amountCents)} em disputa` : "nenhuma disputa aberta"
          }
        />
      </div>
      <Card title="Recebido nos últimos 30 dias" id="grafico">
        <p className={styles.sub}>
          De {formatDate(`${last30.from}T15:00:00Z`)} a {formatDate(`${last30.to}T15:00:00Z`)}, por dia (horário de
          Brasília). Atualizado em {formatDateTime(figures.asOf)}.
        </p>
        {last30.count === 0 ? (
          <p>Nenhum pagamento nestes 30 dias. Quando uma cobrança for paga, ela aparece aqui.</p>
        ) : (
          <Suspense fallback={<div className={styles.chartFallback} />}>
            <DayChart days={last30.days} />
          </Suspense>
        )}
        <details>
          <summary>Ver os valores de cada dia</summary>
          <div className={styles.dayTable} tabIndex={0} role="region" aria-label="Valores de cada dia">
            <table>
              <caption className="visually-hidden">Recebido por dia</caption>
              <thead>
                <tr>
                  <th scope="col">Dia</th>
                  <th scope="col" className="number">
                    <abbr title="Pagamentos">Qtde.</abbr>
                  </th>
                  <th scope="col" className="number">
                    Valor
                  </th>
                </tr>
              </thead>
              <tbody>
                {last30.days.map((day) => (
                  <tr key={day.date}>
                    <td>{`${day.date.slice(8, 10)}/${day.date.slice(5, 7)}`}</td>
                    <td className="number">{formatCount(day.count)}</td>
                    <td className="number">{formatMoney(day.amountCents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
        {statuses.length > 0 ? (
          <ul className={styles.statuses} aria-label="Cobranças dos 30 dias por situação">
            {statuses.map(([status, count]) => (
              <li key={status}>
                {(count === 1 ? undefined : statusPlural[status]) ?? statusLabel[status] ?? status}:{" "}
                <strong>{formatCount(count)}</strong>
              </li>
            ))}
          </ul>
        ) : null}
      </Card>
    </>
  );
}

/** What a new account still has to do, until it is done. */
function FirstSteps() {
  const { user, account } = useCurrentSession();
  const to = useModePath();
  const steps: { done: boolean; text: React.ReactNode }[] = [
    { done: user.emailConfirmed, text: <>Confirme seu e-mail pelo link que enviamos para {user.email}.</> },
    {
      done: user.twoFactorEnabled,
      text: (
        <>
          Ative a <Link to={to("configuracoes/seguranca")}>verificação em duas etapas</Link>: ela é pedida antes de
          saques e de mudanças sensíveis.
        </>
      ),
    },
    // Only who may ask for it is told to (a viewer's Home does not ask it to).
    ...(canCall("requestVerification", user.role)
      ? [
          {
            done: account.verified,
            text: (
              <>
                <Link to={to("configuracoes/conta")}>Peça a verificação da conta</Link> para operar em produção, com
                dinheiro real.
              </>
            ),
          },
        ]
      : []),
  ];
  if (steps.every((step) => step.done)) return null;
  return (
    <Card title="Primeiros passos" id="passos">
      <ol>
        {steps.map((step, index) => (
          <li key={index}>
            {step.done ? <s>{step.text}</s> : step.text} {step.done ? <span>(feito)</span> : null}
          </li>
        ))}
      </ol>
    </Card>
  );
}
