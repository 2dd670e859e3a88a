import { useQuery } from "@tanstack/react-query";
import { refundLimits } from "../../../../generated/rules";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { api } from "../../api/client";
import { fieldErrors } from "../../api/errors";
import { canCall } from "../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../api/session";
import { EventName } from "../../components/EventName";
import { CopyButton } from "../../components/CopyButton";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { QrCode } from "../../components/QrCode";
import { StatusBadge } from "../../components/StatusBadge";
import {
  AddressLines,
  Alert,
  Badge,
  Card,
  Details,
  ErrorMessage,
  Loading,
  Page,
  TitleId,
  ui,
} from "../../components/ui";
import {
  formatAddress,
  formatDateTime,
  formatDay,
  formatDocument,
  formatMoney,
  formatPhone,
  parseMoneyInput,
} from "../../lib/format";
import { customerQueries } from "../customers/queries";
import { DueDateDetails } from "../due-date-charges/DueDateDetails";
import { overdueBadge } from "../due-date-charges/terms";
import { Attempts } from "../recurrences/Recurrence";
import { useMode, useModePath } from "../../lib/useMode";
import styles from "./Transaction.module.css";
import type { TransactionTimeline } from "../../api/types";
import { transactionQueries, useTransactionChanged } from "./queries";

type Timeline = TransactionTimeline;
type Entry = Timeline["timeline"][number];

const eventLabel: Record<string, string> = {
  "transaction.created": "Cobrança criada",
  "transaction.paid": "Pagamento recebido",
  "transaction.expired": "Cobrança expirada",
  "transaction.cancelled": "Cobrança cancelada",
  "transaction.refunded": "Reembolso concluído",
  "transaction.disputed": "Disputa (MED) aberta",
  "refund.created": "Reembolso pedido",
  "refund.completed": "Reembolso concluído",
  "recurring_charge.created": "Cobrança do ciclo enviada",
  "recurring_charge.retrying": "Tentativa recusada; outra agendada",
  "recurring_charge.failed": "Cobrança do ciclo falhou",
  "recurring_charge.cancelled": "Cobrança do ciclo cancelada",
};

/** One transaction: amounts, payer, Pix code, metadata, timeline, refunds, and test mode's moves. */
export function TransactionPage() {
  const { id = "" } = useParams();
  const mode = useMode();
  const to = useModePath();
  const query = useQuery(transactionQueries.one(mode, id));
  if (query.isPending) return <Loading label="Carregando a transação…" />;
  if (query.isError) {
    return (
      <Page title="Transação">
        <ErrorMessage error={query.error} retry={() => void query.refetch()} />
        <p>
          <Link to={to("transacoes")}>Voltar às transações</Link>
        </p>
      </Page>
    );
  }
  const { transaction: t, timeline, refundSources } = query.data;
  return (
    <Page
      title={
        <>
          Transação <TitleId id={t.id} />
        </>
      }
      subtitle={t.description}
    >
      <p>
        <Link to={to("transacoes")}>← Transações</Link>
      </p>
      <div className={styles.head}>
        <span className={styles.amount}>{formatMoney(t.amountCents)}</span>
        <StatusBadge status={t.status} />
        {overdueBadge(t) ? <Badge tone="danger">{overdueBadge(t)}</Badge> : null}
        {t.dispute ? (
          <Badge tone="danger">disputa {t.dispute.status === "OPEN" ? "aberta" : t.dispute.status}</Badge>
        ) : null}
      </div>
      <div className={ui.grid2}>
        <Card title="Valores" id="valores">
          <Details
            items={[
              ["Valor", formatMoney(t.amountCents)],
              ["Tarifa", formatMoney(t.feeCents)],
              ["Líquido", formatMoney(t.netAmountCents)],
              ["Reembolsado", formatMoney(t.refundedAmountCents)],
              ["Criada em", formatDateTime(t.createdAt)],
              ["Paga em", formatDateTime(t.paidAt)],
              ["Expira em", formatDateTime(t.expiresAt)],
              ...(t.recurrenceId
                ? [
                    [
                      "Recorrência",
                      <Link key="r" to={to(`recorrencias/${t.recurrenceId}`)}>
                        {t.recurrenceId}
                      </Link>,
                    ] as [string, React.ReactNode],
                  ]
                : []),
              ...(t.dueDate ? [["Ciclo de", formatDay(t.dueDate)] as [string, React.ReactNode]] : []),
              ...(t.paymentLinkId
                ? [
                    [
                      "Link de pagamento",
                      <Link key="l" to={to(`links/${t.paymentLinkId}`)}>
                        {t.paymentLinkId}
                      </Link>,
                    ] as [string, React.ReactNode],
                  ]
                : []),
            ]}
          />
        </Card>
        <Card title="Pagador" id="pagador">
          <Details
            items={[
              ["Nome", t.customer.name],
              ["E-mail", t.customer.email],
              ["Celular", formatPhone(t.customer.phone)],
              [t.customer.documentType, formatDocument(t.customer.document)],
              ["Endereço", <PayerAddress key="a" customerId={t.customer.id} />],
              [
                "Cliente",
                <Link key="c" to={to(`clientes/${t.customer.id}`)}>
                  {t.customer.id}
                </Link>,
              ],
            ]}
          />
        </Card>
      </div>
      {t.dueDateCharge ? <DueDateDetails id={t.id} status={t.status} charge={t.dueDateCharge} /> : null}
      {t.attempts?.length ? (
        <Card title="Tentativas de débito" id="tentativas">
          <p className={ui.hint}>O banco do pagador debita na data de cada tentativa (Pix Automático).</p>
          <Attempts charge={t} />
        </Card>
      ) : null}
      {t.status === "WAITING_PAYMENT" && !t.attempts ? (
        <Card title="Pix para pagar" id="pix">
          <div className={styles.pix}>
            <QrCode text={t.pix.copyPaste} label={`QR code do Pix de ${formatMoney(t.amountCents)}`} />
            <div>
              <p>Pix copia e cola:</p>
              <div className={ui.copyRow}>
                <code>{t.pix.copyPaste}</code>
                <CopyButton text={t.pix.copyPaste} label="Copiar código Pix" />
              </div>
            </div>
          </div>
        </Card>
      ) : null}
      {mode === "test" ? <SandboxActions transaction={t} /> : null}
      <Refund transaction={t} sources={refundSources} />
      <Card title="Linha do tempo" id="linha-do-tempo">
        {timeline.length === 0 ? (
          <p>Nada aconteceu ainda com esta cobrança.</p>
        ) : (
          <ol className={styles.timeline} aria-label="Eventos, entregas e reembolsos">
            {timeline.map((entry, index) => (
              <li key={index}>
                <TimelineItem entry={entry} />
              </li>
            ))}
          </ol>
        )}
      </Card>
      <Card title="Metadados" id="metadados">
        {Object.keys(t.metadata ?? {}).length === 0 ? (
          <p>Nenhum metadado.</p>
        ) : (
          <pre className={styles.json} tabIndex={0} aria-label="Metadados em JSON">
            {JSON.stringify(t.metadata, null, 2)}
          </pre>
        )}
      </Card>
    </Page>
  );
}

function TimelineItem({ entry }: { entry: Entry }) {
  const when = <span className={styles.when}>{formatDateTime(entry.at)}</span>;
  if (entry.kind === "event" && entry.event) {
    return (
      <>
        {when}
        <strong>{eventLabel[entry.event.type] ?? entry.event.type}</strong> <EventName kind={entry.event.type} />
      </>
    );
  }
  if (entry.kind === "delivery" && entry.delivery) {
    const d = entry.delivery;
    return (
      <>
        {when}
        <strong>
          Webhook {d.status === "SUCCEEDED" ? "entregue" : d.status === "FAILED" ? "falhou" : "em tentativas"}
        </strong>{" "}
        para <code>{d.endpointId}</code>
        <ul className={styles.attempts}>
          {d.attempts.map((attempt, index) => (
            <li key={index}>
              Tentativa {index + 1}: {formatDateTime(attempt.at)} — {attempt.status ?? "sem resposta"}
              {attempt.durationMs !== null && attempt.durationMs !== undefined ? ` em ${attempt.durationMs} ms` : ""}
              {attempt.error ? ` (${attempt.error})` : ""}
            </li>
          ))}
        </ul>
      </>
    );
  }
  if (entry.kind === "refund" && entry.refund) {
    const r = entry.refund;
    return (
      <>
        {when}
        <strong>Reembolso de {formatMoney(r.amountCents)}</strong> ({r.status === "COMPLETED" ? "concluído" : r.status})
        {r.reason ? ` — ${r.reason}` : ""}
      </>
    );
  }
  return when;
}

/**
 * Where `cents` of a refund come from, as the server takes them (docs/decisions/0055): this sale's
 * money not yet released first, then the available balance.
 */
function refundSourceText(cents: number, sources: Timeline["refundSources"]): string {
  const fromPending = Math.min(cents, sources?.chargePendingCents ?? 0);
  const rest = cents - fromPending;
  if (fromPending === 0) return "O dinheiro sai do saldo disponível.";
  if (rest === 0) return "O dinheiro sai do que esta venda ainda tem a liberar.";
  return `Saem ${formatMoney(fromPending)} desta venda ainda a liberar e ${formatMoney(rest)} do saldo disponível.`;
}

/** Part or all of a paid charge back to its payer (owner, admin, finance). */
function Refund(props: { transaction: Timeline["transaction"]; sources: Timeline["refundSources"] }) {
  const { user } = useCurrentSession();
  const mode = useMode();
  const t = props.transaction;
  const left = t.amountCents - t.refundedAmountCents;
  const refund = api.useMutation(
    "post",
    "/dashboard/v1/modes/{mode}/transactions/{id}/refunds",
    useTransactionChanged(mode, t.id),
  );
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [invalid, setInvalid] = useState(false);
  // The amount asked, waiting for the person's "yes": money leaves the balance, and it cannot be undone.
  const [confirming, setConfirming] = useState<number | null>(null);
  if (!canCall("createDashboardRefund", user.role) || t.status !== "PAID" || left <= 0) return null;
  const { byField, rest } = fieldErrors(refund.error, ["amountCents", "reason"]);
  return (
    <Card title="Reembolsar" id="reembolso">
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const cents = amount.trim() === "" ? left : parseMoneyInput(amount);
          if (cents === null) return setInvalid(true);
          setInvalid(false);
          if (confirming === null) return setConfirming(cents);
          refund.mutate(
            {
              params: { path: { mode, id: t.id }, header: { "idempotency-key": crypto.randomUUID() } },
              body: { amountCents: confirming, ...(reason.trim() ? { reason: reason.trim() } : {}) },
            },
            {
              onSuccess: () => {
                setAmount("");
                setReason("");
              },
              onSettled: () => setConfirming(null),
            },
          );
        }}
      >
        <TextField
          label="Valor a devolver (R$)"
          name="amount"
          inputMode="decimal"
          placeholder={formatMoney(left)}
          hint={`Até ${formatMoney(left)}. Vazio: devolve tudo o que resta.`}
          value={amount}
          readOnly={confirming !== null}
          onChange={(event) => setAmount(event.target.value)}
          error={invalid ? "digite um valor em reais, como 29,90" : byField.amountCents}
        />
        <TextField
          label="Motivo (opcional)"
          name="reason"
          maxLength={refundLimits.reasonMax}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          error={byField.reason}
        />
        <FormError error={refund.error} rest={rest} />
        {refund.isSuccess ? <Alert tone="ok">Reembolso de {formatMoney(refund.data.amountCents)} feito.</Alert> : null}
        {confirming !== null ? (
          <div className={ui.confirm} role="group" aria-label="Confirmar o reembolso">
            <p>
              Devolver {formatMoney(confirming)} a {t.customer.name}? {refundSourceText(confirming, props.sources)} A
              tarifa não volta, e não há como desfazer.
            </p>
            <div className={ui.actions}>
              <button type="submit" disabled={refund.isPending}>
                {refund.isPending ? "Reembolsando…" : "Confirmar o reembolso"}
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                Voltar
              </button>
            </div>
          </div>
        ) : (
          <div className={ui.formActions}>
            <button type="submit">Reembolsar</button>
          </div>
        )}
      </form>
    </Card>
  );
}

/** Test mode only: what a payer, the bank or the MED would do, at once. */
function SandboxActions(props: { transaction: Timeline["transaction"] }) {
  const { user } = useCurrentSession();
  const mode = useMode();
  const t = props.transaction;
  const changed = useTransactionChanged(mode, t.id);
  const pay = api.useMutation("post", "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay", changed);
  const expire = api.useMutation("post", "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/expire", changed);
  const dispute = api.useMutation("post", "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/dispute", changed);
  const resolve = api.useMutation("post", "/dashboard/v1/modes/{mode}/sandbox/disputes/{id}/resolve", changed);
  if (!canCall("dashboardSandboxPay", user.role)) return null;
  const path = { mode, id: t.id };
  const error = pay.error ?? expire.error ?? dispute.error ?? resolve.error;
  const openDispute = t.dispute?.status === "OPEN" ? t.dispute : null;
  if (t.status !== "WAITING_PAYMENT" && t.status !== "PAID") return null;
  return (
    <Card title="Simular (modo de teste)" id="sandbox">
      <p className={ui.hint}>Só no modo de teste: faz na hora o que o pagador, o banco ou o MED fariam.</p>
      <FormError error={error} />
      <div className={ui.actions}>
        {t.status === "WAITING_PAYMENT" ? (
          <>
            <button type="button" disabled={pay.isPending} onClick={() => pay.mutate({ params: { path } })}>
              Simular pagamento
            </button>
            <button
              type="button"
              className="secondary"
              disabled={expire.isPending}
              onClick={() => expire.mutate({ params: { path } })}
            >
              Expirar
            </button>
          </>
        ) : null}
        {t.status === "PAID" && !t.dispute ? (
          <button
            type="button"
            className="secondary"
            disabled={dispute.isPending}
            onClick={() => dispute.mutate({ params: { path }, body: {} })}
          >
            Abrir disputa (MED)
          </button>
        ) : null}
        {openDispute ? (
          <>
            <button
              type="button"
              className="secondary"
              onClick={() =>
                resolve.mutate({ params: { path: { mode, id: openDispute.id } }, body: { outcome: "WON" } })
              }
            >
              Disputa ganha
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() =>
                resolve.mutate({ params: { path: { mode, id: openDispute.id } }, body: { outcome: "LOST" } })
              }
            >
              Disputa perdida
            </button>
          </>
        ) : null}
      </div>
    </Card>
  );
}

/** The address kept on the payer's customer record (from a checkout that asks for it), for delivery. */
function PayerAddress(props: { customerId: string }) {
  const mode = useMode();
  const customer = useQuery(customerQueries.one(mode, props.customerId));
  if (customer.isPending) return <>…</>;
  if (customer.isError) return <>não foi possível carregar</>;
  const lines = formatAddress(customer.data.address);
  return lines ? <AddressLines lines={lines} /> : <>não informado</>;
}
