import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { recurringAttemptFailureCodes } from "../../../../generated/rules";
import { canCall } from "../../../../generated/dashboard-operations";
import { api } from "../../api/client";
import { useCurrentSession } from "../../api/session";
import type { Recurrence, Transaction } from "../../api/types";
import { CopyButton } from "../../components/CopyButton";
import { type Column, DataTable } from "../../components/DataTable";
import { parseDay } from "../../components/DateRangeFilter";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { QrCode } from "../../components/QrCode";
import { StatusBadge } from "../../components/StatusBadge";
import { Card, Details, EmptyState, ErrorMessage, Loading, Page, ui } from "../../components/ui";
import { formatDateTime, formatDay, formatDocument, formatMoney, formatPhone, parseMoneyInput } from "../../lib/format";
import { useMode, useModePath } from "../../lib/useMode";
import {
  attemptStatusLabel,
  attemptTypeLabel,
  cancelledByLabel,
  type FailureCode,
  failureCodeText,
  journeyLabel,
  periodicityLabel,
  recurrenceStatusLabel,
  retryPolicyLabel,
} from "./labels";
import { recurrenceQueries, useRecurrenceChanged } from "./queries";
import { cycleAmount, RecurrenceStatusBadge } from "./Recurrences";

/** One recurrence: what to send the payer, the payer, the terms, its history, its cycles' charges, cancel, and test mode's moves. */
export function RecurrencePage() {
  const { id = "" } = useParams();
  const mode = useMode();
  const to = useModePath();
  const query = useQuery(recurrenceQueries.one(mode, id));
  if (query.isPending) return <Loading label="Carregando a recorrência…" />;
  if (query.isError) {
    return (
      <Page title="Recorrência">
        <ErrorMessage error={query.error} retry={() => void query.refetch()} />
        <p>
          <Link to={to("recorrencias")}>Voltar às recorrências</Link>
        </p>
      </Page>
    );
  }
  const r = query.data;
  return (
    <Page title={r.description} subtitle={`Recorrência ${r.id} · contrato ${r.contractReference}`}>
      <p>
        <Link to={to("recorrencias")}>← Recorrências</Link>
      </p>
      <p className={ui.actions}>
        <RecurrenceStatusBadge status={r.status} /> <strong>{cycleAmount(r)}</strong>{" "}
        <span>{periodicityLabel[r.periodicity].toLowerCase()}</span>
      </p>
      {r.status === "CREATED" ? <ForThePayer recurrence={r} /> : null}
      {mode === "test" ? <SandboxMoves recurrence={r} /> : null}
      <div className={ui.grid2}>
        <Card title="Pagador" id="pagador">
          <Details
            items={[
              ["Nome", r.payer.name],
              ["E-mail", r.payer.email],
              ["Celular", formatPhone(r.payer.phone)],
              [r.payer.documentType, formatDocument(r.payer.document)],
              [
                "Cliente",
                <Link key="c" to={to(`clientes/${r.payer.id}`)}>
                  {r.payer.id}
                </Link>,
              ],
            ]}
          />
        </Card>
        <Card title="Condições" id="condicoes">
          <Details
            items={[
              ["Periodicidade", periodicityLabel[r.periodicity]],
              ["Primeiro ciclo", formatDay(r.firstDate)],
              ["Último ciclo", r.lastDate ? formatDay(r.lastDate) : "sem data para terminar"],
              ["Valor", r.amountType === "FIXED" ? `fixo, ${cycleAmount(r)}` : cycleAmount(r)],
              ...(r.minimumAmountCents !== null
                ? [["Limite mínimo do pagador", formatMoney(r.minimumAmountCents)] as [string, string]]
                : []),
              ["Se falhar", retryPolicyLabel[r.retryPolicy]],
              ["Cobranças", r.automaticCharges ? "automáticas, 10 dias antes de cada ciclo" : "enviadas por você"],
              ["Autorização", journeyLabel[r.journey]],
              ["Aprovar até", formatDateTime(r.expiresAt)],
              ["Aprovada em", formatDateTime(r.approvedAt)],
              ...(r.simulatedDate ? [["Calendário do teste em", formatDay(r.simulatedDate)] as [string, string]] : []),
            ]}
          />
        </Card>
      </div>
      <History recurrence={r} />
      <CycleCharges recurrence={r} />
      <ChargeCycle recurrence={r} />
      <Cancel recurrence={r} />
    </Page>
  );
}

/** While it waits for the payer: the QR code, the Pix copy-and-paste code and the hosted page to send. */
function ForThePayer(props: { recurrence: Recurrence }) {
  const r = props.recurrence;
  return (
    <Card title="Enviar ao pagador" id="enviar">
      <p>
        {r.journey === "JOURNEY_3"
          ? "O pagador lê este QR code no app do banco e paga a cobrança de agora: o pagamento autoriza a recorrência."
          : "O pagador lê este QR code no app do banco e autoriza a recorrência."}{" "}
        Até {formatDateTime(r.expiresAt)}.
      </p>
      <div className={ui.grid2}>
        <QrCode text={r.pix.qrCode} label={`QR code da recorrência ${r.description}`} />
        <div>
          <p>Pix copia e cola:</p>
          <div className={ui.copyRow}>
            <code>{r.pix.copyPaste}</code>
            <CopyButton text={r.pix.copyPaste} label="Copiar código Pix" />
          </div>
          <p>Página com o QR code e as condições, para enviar por e-mail ou mensagem:</p>
          <div className={ui.copyRow}>
            <code>{r.url}</code>
            <CopyButton text={r.url} label="Copiar endereço" />
          </div>
          <p>
            <a href={r.url} target="_blank" rel="noopener">
              Abrir a página do pagador
            </a>
          </p>
        </div>
      </div>
    </Card>
  );
}

/** Every change of status, oldest first, and why it was refused or cancelled. */
function History(props: { recurrence: Recurrence }) {
  const r = props.recurrence;
  return (
    <Card title="Histórico" id="historico">
      <ol aria-label="Mudanças de situação">
        {r.history.map((entry, index) => (
          <li key={index}>
            {formatDateTime(entry.at)} — {recurrenceStatusLabel[entry.status]}
          </li>
        ))}
      </ol>
      {r.rejection ? (
        <p>
          Recusada ({r.rejection.code}): {r.rejection.reason}
        </p>
      ) : null}
      {r.cancellation ? (
        <p>
          Cancelada por {cancelledByLabel[r.cancellation.requestedBy]} ({r.cancellation.code}): {r.cancellation.reason}
        </p>
      ) : null}
    </Card>
  );
}

/** The attempts of a cycle charge: when, which, how it went, and the payer's bank's reason. */
export function Attempts(props: { charge: Transaction }) {
  const attempts = props.charge.attempts ?? [];
  if (attempts.length === 0) return <>—</>;
  return (
    <ul className={ui.plainList}>
      {attempts.map((a, index) => (
        <li key={index}>
          {formatDay(a.settlementDate)}: {attemptTypeLabel[a.type]}, {attemptStatusLabel[a.status]}
          {a.reasonCode ? (
            <>
              <br />
              <span className={ui.hint}>
                {a.reasonCode}: {a.reason}
              </span>
            </>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** The recurrence's charges: each cycle's (its date, its attempts), and a journey 3 immediate one. */
function CycleCharges(props: { recurrence: Recurrence }) {
  const mode = useMode();
  const to = useModePath();
  const r = props.recurrence;
  const charges = useQuery(recurrenceQueries.charges(mode, r.id));
  const columns: Column<Transaction>[] = [
    {
      header: "Cobrança",
      cell: (t) => (
        <>
          <Link to={to(`transacoes/${t.id}`)}>
            <code>{t.id}</code>
          </Link>
          <br />
          <span className={ui.hint}>
            {t.dueDate ? `Ciclo de ${formatDay(t.dueDate)}` : "Cobrança de agora (jornada 3)"}
          </span>
        </>
      ),
    },
    { header: "Tentativas", cell: (t) => <Attempts charge={t} /> },
    { essential: true, header: "Situação", cell: (t) => <StatusBadge status={t.status} /> },
    { essential: true, header: "Valor", numeric: true, cell: (t) => formatMoney(t.amountCents) },
  ];
  return (
    <Card title="Cobranças dos ciclos" id="cobrancas">
      {charges.isPending ? (
        <Loading label="Carregando cobranças…" />
      ) : charges.isError ? (
        <ErrorMessage error={charges.error} retry={() => void charges.refetch()} />
      ) : charges.data.data.length === 0 ? (
        <EmptyState title="Nenhuma cobrança ainda">
          <p>
            {r.automaticCharges
              ? "Depois da aprovação, a cobrança de cada ciclo é enviada 10 dias antes da data."
              : "Depois da aprovação, envie a cobrança de cada ciclo de 2 a 10 dias antes da data."}
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable
            caption="Cobranças da recorrência"
            columns={columns}
            rows={charges.data.data}
            rowKey={(t) => t.id}
          />
          {mode === "test"
            ? charges.data.data.map((t) => <SettleAttempt key={t.id} charge={t} recurrenceId={r.id} />)
            : null}
        </>
      )}
    </Card>
  );
}

/** Test mode: the payer's bank plays a cycle charge's scheduled attempt, paid or refused for a reason code. */
function SettleAttempt(props: { charge: Transaction; recurrenceId: string }) {
  const mode = useMode();
  const { user } = useCurrentSession();
  const settle = api.useMutation(
    "post",
    "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/settle-attempt",
    useRecurrenceChanged(mode, props.recurrenceId),
  );
  const [code, setCode] = useState<FailureCode>("AM04");
  const t = props.charge;
  const scheduled = (t.attempts ?? []).find((a) => a.status === "SCHEDULED");
  if (t.status !== "WAITING_PAYMENT" || !scheduled || !canCall("dashboardSandboxSettleRecurringAttempt", user.role)) {
    return null;
  }
  const path = { mode, id: t.id };
  return (
    <fieldset className={ui.fieldset}>
      <legend>Simular a tentativa de {formatDay(scheduled.settlementDate)} (modo de teste)</legend>
      <button
        type="button"
        disabled={settle.isPending}
        onClick={() => settle.mutate({ params: { path }, body: { outcome: "PAID" } })}
      >
        Debitar
      </button>
      <Field label="Motivo da recusa">
        <select value={code} onChange={(event) => setCode(event.target.value as FailureCode)}>
          {recurringAttemptFailureCodes.map((c) => (
            <option key={c} value={c}>
              {failureCodeText(c)}
            </option>
          ))}
        </select>
      </Field>
      <button
        type="button"
        className="secondary"
        disabled={settle.isPending}
        onClick={() => settle.mutate({ params: { path }, body: { outcome: "FAILED", reasonCode: code } })}
      >
        Recusar a tentativa
      </button>
      <FormError error={settle.error} />
    </fieldset>
  );
}

/** A cycle's charge sent by hand (recurrences without automatic charges): its date, and its amount when variable. */
function ChargeCycle(props: { recurrence: Recurrence }) {
  const mode = useMode();
  const { user } = useCurrentSession();
  const r = props.recurrence;
  const send = api.useMutation(
    "post",
    "/dashboard/v1/modes/{mode}/recurrences/{id}/charges",
    useRecurrenceChanged(mode, r.id),
  );
  const [dueDate, setDueDate] = useState("");
  const [amount, setAmount] = useState("");
  const [wrong, setWrong] = useState<{ dueDate?: string; amount?: string }>({});
  if (r.status !== "APPROVED" || r.automaticCharges || !canCall("createDashboardRecurringCharge", user.role)) {
    return null;
  }
  const variable = r.amountType === "VARIABLE";
  return (
    <Card title="Cobrar um ciclo" id="cobrar-ciclo">
      <p className={ui.hint}>De 2 a 10 dias antes da data do ciclo, como o Banco Central exige.</p>
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const day = parseDay(dueDate);
          const cents = variable ? parseMoneyInput(amount) : null;
          const problems = {
            ...(day === null ? { dueDate: "digite uma data como 04/11/2030" } : {}),
            ...(variable && cents === null ? { amount: "digite um valor em reais, como 49,90" } : {}),
          };
          setWrong(problems);
          if (day === null || Object.keys(problems).length > 0) return;
          send.mutate(
            {
              params: { path: { mode, id: r.id }, header: { "idempotency-key": crypto.randomUUID() } },
              body: { dueDate: day, ...(cents !== null ? { amountCents: cents } : {}) },
            },
            { onSuccess: () => setDueDate("") },
          );
        }}
      >
        <TextField
          label="Data do ciclo"
          name="dueDate"
          inputMode="numeric"
          autoComplete="off"
          placeholder="dd/mm/aaaa"
          maxLength={10}
          value={dueDate}
          onChange={(event) => setDueDate(event.target.value)}
          error={wrong.dueDate}
        />
        {variable ? (
          <TextField
            label="Valor (R$)"
            name="amount"
            inputMode="decimal"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            error={wrong.amount}
          />
        ) : null}
        <FormError error={send.error} />
        <div className={ui.formActions}>
          <button type="submit" disabled={send.isPending}>
            Enviar a cobrança
          </button>
        </div>
      </form>
    </Card>
  );
}

/** The merchant cancels it (SLCR), after saying yes: the charges still waiting are cancelled with it. */
function Cancel(props: { recurrence: Recurrence }) {
  const mode = useMode();
  const { user } = useCurrentSession();
  const r = props.recurrence;
  const cancel = api.useMutation(
    "post",
    "/dashboard/v1/modes/{mode}/recurrences/{id}/cancel",
    useRecurrenceChanged(mode, r.id),
  );
  const [confirming, setConfirming] = useState(false);
  if ((r.status !== "CREATED" && r.status !== "APPROVED") || !canCall("cancelDashboardRecurrence", user.role)) {
    return null;
  }
  return (
    <Card title="Cancelar a recorrência" id="cancelar">
      <FormError error={cancel.error} />
      {confirming ? (
        <div className={ui.confirm} role="group" aria-label="Confirmar o cancelamento">
          <p>
            Cancelar a recorrência de {r.payer.name}? Nenhum ciclo será mais cobrado, as cobranças ainda não pagas são
            canceladas, e não há como desfazer: para voltar a cobrar, crie outra e peça uma nova autorização.
          </p>
          <div className={ui.actions}>
            <button
              type="button"
              className="danger"
              disabled={cancel.isPending}
              onClick={() =>
                cancel.mutate(
                  { params: { path: { mode, id: r.id }, header: { "idempotency-key": crypto.randomUUID() } } },
                  { onSettled: () => setConfirming(false) },
                )
              }
            >
              {cancel.isPending ? "Cancelando…" : "Cancelar de vez"}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Manter
            </button>
          </div>
        </div>
      ) : (
        <div className={ui.actions}>
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Cancelar a recorrência
          </button>
        </div>
      )}
    </Card>
  );
}

/** Test mode only: what the payer, their bank and the calendar would do, at once. */
function SandboxMoves(props: { recurrence: Recurrence }) {
  const mode = useMode();
  const { user } = useCurrentSession();
  const r = props.recurrence;
  const changed = useRecurrenceChanged(mode, r.id);
  const base = "/dashboard/v1/modes/{mode}/sandbox/recurrences/{id}" as const;
  const approve = api.useMutation("post", `${base}/approve`, changed);
  const reject = api.useMutation("post", `${base}/reject`, changed);
  const cancelByPayer = api.useMutation("post", `${base}/cancel-by-payer`, changed);
  const expire = api.useMutation("post", `${base}/expire`, changed);
  const advance = api.useMutation("post", `${base}/advance`, changed);
  const pay = api.useMutation("post", "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay", changed);
  if (!canCall("dashboardSandboxApproveRecurrence", user.role)) return null;
  if (r.status !== "CREATED" && r.status !== "APPROVED") return null;
  const path = { mode, id: r.id };
  const error = approve.error ?? reject.error ?? cancelByPayer.error ?? expire.error ?? advance.error ?? pay.error;
  const busy = [approve, reject, cancelByPayer, expire, advance, pay].some((m) => m.isPending);
  return (
    <Card title="Simular (modo de teste)" id="sandbox">
      <p className={ui.hint}>Só no modo de teste: faz na hora o que o pagador, o banco dele ou o calendário fariam.</p>
      <FormError error={error} />
      <div className={ui.actions}>
        {r.status === "CREATED" && r.journey === "JOURNEY_2" ? (
          <button type="button" disabled={busy} onClick={() => approve.mutate({ params: { path }, body: {} })}>
            Aprovar como o pagador
          </button>
        ) : null}
        {r.status === "CREATED" && r.initialTransactionId ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => pay.mutate({ params: { path: { mode, id: r.initialTransactionId ?? "" } } })}
          >
            Pagar a cobrança de agora
          </button>
        ) : null}
        {r.status === "CREATED" ? (
          <>
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => reject.mutate({ params: { path }, body: {} })}
            >
              Recusar como o pagador
            </button>
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => expire.mutate({ params: { path } })}
            >
              Expirar
            </button>
          </>
        ) : null}
        {r.status === "APPROVED" ? (
          <button type="button" disabled={busy} onClick={() => advance.mutate({ params: { path } })}>
            Avançar ao próximo ciclo
          </button>
        ) : null}
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() => cancelByPayer.mutate({ params: { path }, body: {} })}
        >
          Cancelar como o pagador
        </button>
      </div>
    </Card>
  );
}
