import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api } from "../../api/client";
import { fieldErrors } from "../../api/errors";
import { canCall } from "../../../../generated/dashboard-operations";
import { withdrawalStatusLabels } from "../../../../generated/rules";
import { useCurrentSession } from "../../api/session";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { useStepUp } from "../../components/StepUp";
import { Alert, Badge, Card, Details, EmptyState, ErrorMessage, Loading, Page, ui } from "../../components/ui";
import { formatDateTime, formatDocument, formatMoney, parseMoneyInput } from "../../lib/format";
import { useMode, useModePath } from "../../lib/useMode";
import type { ApiKey, Withdrawal } from "../../api/types";
import { usePagedQuery } from "../../api/queries";
import { balanceQueries, useCreateWithdrawal, useReleaseBalance } from "./queries";

type KeyType = Withdrawal["pixKeyType"];

const keyTypes: { value: KeyType; label: string }[] = [
  { value: "CPF", label: "CPF" },
  { value: "CNPJ", label: "CNPJ" },
  { value: "EMAIL", label: "E-mail" },
  { value: "PHONE", label: "Celular" },
  { value: "EVP", label: "Chave aleatória" },
];

const keyTypeLabel: Record<string, string> = Object.fromEntries(keyTypes.map((t) => [t.value, t.label]));

/** A Pix key with its kind, as a person reads it: a CPF or CNPJ punctuated (`CPF 529.982.247-25`). */
const shownPixKey = (type: string, key: string) =>
  `${keyTypeLabel[type] ?? type} ${type === "CPF" || type === "CNPJ" ? formatDocument(key) : key}`;

/** A withdrawal's status: its words are the document's (`x-labels`, the CSV export's too), its tone the app's. */
const withdrawalTone: Record<Withdrawal["status"], "ok" | "warn" | "danger"> = {
  PENDING: "warn",
  PAID: "ok",
  PARTIALLY_PAID: "warn",
  FAILED: "danger",
};

/**
 * The daily withdrawal limits of the mode's keys that may withdraw through the API, with what each
 * leaves today. A withdrawal made here has no key, so none of them binds it.
 */
function KeyLimits() {
  const mode = useMode();
  const to = useModePath();
  const keys = api.useQuery("get", "/dashboard/v1/modes/{mode}/api-keys", {
    params: { path: { mode }, query: { limit: 100 } },
  });
  const columns: Column<ApiKey>[] = [
    { header: "Chave", cell: (k) => `${k.name} (${k.prefix}…)` },
    {
      header: "Limite diário",
      numeric: true,
      cell: (k) => (k.dailyWithdrawLimitCents === null ? "sem limite" : formatMoney(k.dailyWithdrawLimitCents)),
    },
    {
      header: "Resta hoje",
      numeric: true,
      cell: (k) => (k.dailyWithdrawLeftCents === null ? "—" : formatMoney(k.dailyWithdrawLeftCents)),
    },
  ];
  const withdrawing = (keys.data?.data ?? []).filter(
    (k) => k.revokedAt === null && k.permissions.includes("withdrawals:write"),
  );
  return (
    <Card title="Limites diários das chaves de API" id="limites">
      <p className={ui.hint}>
        Saques pela API contam no limite da chave usada, por dia no horário de Brasília. Saques feitos aqui no painel
        não usam chave, e não contam em nenhum limite.
      </p>
      {keys.isPending ? (
        <Loading />
      ) : keys.isError ? (
        <ErrorMessage error={keys.error} retry={() => void keys.refetch()} />
      ) : withdrawing.length === 0 ? (
        <p>
          Nenhuma chave deste modo pode sacar pela API. A permissão de saque e o limite se definem ao criar a chave, em{" "}
          <Link to={to("desenvolvedores")}>Desenvolvedores</Link>.
        </p>
      ) : (
        <DataTable caption="Limites das chaves" columns={columns} rows={withdrawing} rowKey={(k) => k.id} />
      )}
    </Card>
  );
}

const transferStatus: Record<Withdrawal["transfers"][number]["status"], string> = {
  PENDING: "em andamento",
  PAID: "paga",
  FAILED: "falhou",
};

/** Balance and withdrawals of the mode: figures, a withdrawal with its fee and step-up, the list. */
export function Balance() {
  const mode = useMode();
  const to = useModePath();
  const { user } = useCurrentSession();
  const balance = useQuery(balanceQueries.balance(mode));
  const withdrawals = usePagedQuery((page) => balanceQueries.withdrawals(mode, page));
  const release = useReleaseBalance(mode);
  const columns: Column<Withdrawal>[] = [
    { header: "Saque", cell: (w) => <code>{w.id}</code> },
    { header: "Pedido em", cell: (w) => formatDateTime(w.createdAt) },
    { header: "Chave Pix", cell: (w) => shownPixKey(w.pixKeyType, w.pixKey) },
    {
      essential: true,
      header: "Situação",
      cell: (w) => {
        return <Badge tone={withdrawalTone[w.status]}>{withdrawalStatusLabels[w.status]}</Badge>;
      },
    },
    {
      header: "Transferências",
      cell: (w) =>
        w.transfers.map((t) => `${formatMoney(t.amountCents)} ${transferStatus[t.status]}`).join(", ") || "—",
    },
    { essential: true, header: "Valor", numeric: true, cell: (w) => formatMoney(w.amountCents) },
  ];
  const rows = withdrawals.data?.data ?? [];
  return (
    <Page title="Saldo e saques">
      {balance.isPending ? (
        <Loading />
      ) : balance.isError ? (
        <ErrorMessage error={balance.error} retry={() => void balance.refetch()} />
      ) : (
        <Card title="Saldo" id="saldo">
          <Details
            items={[
              ["Disponível", formatMoney(balance.data.availableCents)],
              ["A liberar", formatMoney(balance.data.pendingCents)],
              ["Bloqueado por disputas", formatMoney(balance.data.blockedCents)],
              ["Pode sacar agora", formatMoney(balance.data.withdrawableNowCents)],
              ["Tarifa de saque", formatMoney(balance.data.withdrawFeeCents)],
            ]}
          />
          <p>
            <Link to={to("extrato")}>Ver o extrato</Link>: cada pagamento, devolução, saque e liberação, com o saldo
            depois dele.
          </p>
          {mode === "test" && canCall("dashboardSandboxReleaseBalance", user.role) ? (
            <div className={ui.formActions}>
              <button
                type="button"
                className="secondary"
                disabled={release.isPending}
                onClick={() =>
                  release.mutate({ params: { path: { mode }, header: { "idempotency-key": crypto.randomUUID() } } })
                }
              >
                Liberar o saldo pendente (teste)
              </button>
              {release.isSuccess ? <span role="status">Saldo liberado.</span> : null}
            </div>
          ) : null}
          <FormError error={release.error} />
        </Card>
      )}
      {canCall("createDashboardWithdrawal", user.role) && balance.data ? (
        <WithdrawalForm fee={balance.data.withdrawFeeCents} max={balance.data.withdrawableNowCents} />
      ) : null}
      <KeyLimits />
      <Card title="Saques" id="saques">
        {withdrawals.isPending ? (
          <Loading />
        ) : withdrawals.isError ? (
          <ErrorMessage error={withdrawals.error} retry={() => void withdrawals.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState title="Nenhum saque ainda">
            <p>
              {(balance.data?.availableCents ?? 0) > 0
                ? "Saque o saldo disponível para uma chave Pix pelo formulário acima."
                : "Quando houver saldo disponível, saque para uma chave Pix pelo formulário acima."}
            </p>
          </EmptyState>
        ) : (
          <>
            <DataTable caption="Lista de saques" columns={columns} rows={rows} rowKey={(w) => w.id} />
            <CursorPager hasMore={withdrawals.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
          </>
        )}
        <p>
          <a href={`/dashboard/v1/modes/${mode}/withdrawals.csv`} download>
            Exportar saques (CSV)
          </a>
        </p>
      </Card>
    </Page>
  );
}

function WithdrawalForm(props: { fee: number; max: number }) {
  const mode = useMode();
  const guard = useStepUp();
  const create = useCreateWithdrawal(mode);
  const [amount, setAmount] = useState("");
  const [pixKey, setPixKey] = useState("");
  const [pixKeyType, setPixKeyType] = useState<KeyType>("CPF");
  const [invalid, setInvalid] = useState(false);
  // Asked before the money leaves: the amount, the key and what arrives.
  const [confirming, setConfirming] = useState(false);
  const cents = parseMoneyInput(amount);
  const { byField, rest } = fieldErrors(create.error, ["amountCents", "pixKey", "pixKeyType"]);
  return (
    <Card title="Sacar" id="sacar">
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (cents === null) return setInvalid(true);
          setInvalid(false);
          if (!confirming) return setConfirming(true);
          setConfirming(false);
          const key = crypto.randomUUID();
          guard(() =>
            create.mutateAsync({
              params: { path: { mode }, header: { "idempotency-key": key } },
              body: { amountCents: cents, pixKey: pixKey.trim(), pixKeyType },
            }),
          ).then(
            () => setAmount(""),
            () => undefined,
          );
        }}
      >
        <Field label="Tipo da chave Pix" error={byField.pixKeyType}>
          <select value={pixKeyType} onChange={(event) => setPixKeyType(event.target.value as KeyType)}>
            {keyTypes.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        </Field>
        <TextField
          label="Chave Pix"
          name="pixKey"
          required
          value={pixKey}
          onChange={(event) => setPixKey(event.target.value)}
          error={byField.pixKey}
        />
        <TextField
          label="Valor (R$)"
          name="amount"
          inputMode="decimal"
          required
          hint={`Até ${formatMoney(props.max)}. A tarifa de ${formatMoney(props.fee)} sai do valor${cents !== null && cents > props.fee ? `: chegam ${formatMoney(cents - props.fee)}` : ""}.`}
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
          error={invalid ? "digite um valor em reais, como 100,00" : byField.amountCents}
        />
        <FormError error={create.error} rest={rest} />
        {create.isSuccess ? <Alert tone="ok">Saque de {formatMoney(create.data.amountCents)} pedido.</Alert> : null}
        {confirming && cents !== null ? (
          <div className={ui.confirm} role="group" aria-label="Confirmar o saque">
            <p>
              Sacar {formatMoney(cents)} para a chave {shownPixKey(pixKeyType, pixKey.trim())}? Chegam{" "}
              {formatMoney(Math.max(cents - props.fee, 0))}; um saque pedido não pode ser cancelado.
            </p>
            <div className={ui.actions}>
              <button type="submit">Confirmar o saque</button>
              <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                Voltar
              </button>
            </div>
          </div>
        ) : (
          <div className={ui.formActions}>
            <button type="submit" disabled={create.isPending}>
              {create.isPending ? "Sacando…" : "Sacar"}
            </button>
          </div>
        )}
      </form>
    </Card>
  );
}
