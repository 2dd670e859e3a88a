import { useState } from "react";
import { api, type paths } from "../../api/client";
import { fieldErrors } from "../../api/errors";
import { can, useCurrentSession } from "../../api/session";
import { CopyButton } from "../../components/CopyButton";
import { type Column, DataTable } from "../../components/DataTable";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { useStepUp } from "../../components/StepUp";
import { Alert, Badge, Card, EmptyState, ErrorMessage, Loading, ui } from "../../components/ui";
import { formatDateTime, formatMoney, parseMoneyInput } from "../../lib/format";
import { useMode } from "../../lib/useMode";

type Key =
  paths["/dashboard/v1/modes/{mode}/api-keys"]["get"]["responses"][200]["content"]["application/json"]["data"][number];
type Permission = Key["permissions"][number];

const permissions: { value: Permission; label: string }[] = [
  { value: "transactions:read", label: "Ler transações" },
  { value: "charges:write", label: "Criar cobranças" },
  { value: "payment_links:read", label: "Ler links de pagamento" },
  { value: "payment_links:write", label: "Criar links de pagamento" },
  { value: "customers:read", label: "Ler clientes" },
  { value: "customers:write", label: "Alterar clientes" },
  { value: "balance:read", label: "Ler saldo" },
  { value: "withdrawals:read", label: "Ler saques" },
  { value: "withdrawals:write", label: "Sacar" },
  { value: "refunds:write", label: "Reembolsar" },
  { value: "recurrences:read", label: "Ler recorrências" },
  { value: "recurrences:write", label: "Criar recorrências" },
];

/** The secret of a key or endpoint, shown once, with its warning and a copy button. */
export function SecretOnce(props: { secret: string; what: string; onDone: () => void }) {
  return (
    <Alert tone="warn" title={`Copie ${props.what} agora.`}>
      <p>Ele não será mostrado de novo. Guarde-o num cofre de senhas ou nas variáveis de ambiente do seu servidor.</p>
      <div className={ui.copyRow}>
        <code aria-label={props.what}>{props.secret}</code>
        <CopyButton text={props.secret} label="Copiar" className="" />
      </div>
      <p>
        <button type="button" className="secondary" onClick={props.onDone}>
          Já copiei
        </button>
      </p>
    </Alert>
  );
}

/** API keys of the mode: create (the secret once), roll, revoke. */
export function Keys() {
  const mode = useMode();
  const { user } = useCurrentSession();
  const manage = can.manageKeys(user.role);
  const guard = useStepUp();
  const list = api.useQuery("get", "/dashboard/v1/modes/{mode}/api-keys", {
    params: { path: { mode }, query: { limit: 100 } },
  });
  const roll = api.useMutation("post", "/dashboard/v1/modes/{mode}/api-keys/{id}/roll");
  const revoke = api.useMutation("post", "/dashboard/v1/modes/{mode}/api-keys/{id}/revoke");
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const columns: Column<Key>[] = [
    {
      header: "Chave",
      cell: (k) => (
        <>
          {k.name} {k.revokedAt ? <Badge tone="danger">revogada</Badge> : null}
          <br />
          <code className={ui.hint}>{k.prefix}…</code>
        </>
      ),
    },
    { header: "Permissões", cell: (k) => `${k.permissions.length} de ${permissions.length}` },
    { header: "IPs", cell: (k) => (k.allowedIps.length ? k.allowedIps.join(", ") : "qualquer") },
    {
      header: "Limite diário de saque",
      cell: (k) =>
        k.dailyWithdrawLimitCents === null || k.dailyWithdrawLimitCents === undefined
          ? "padrão"
          : formatMoney(k.dailyWithdrawLimitCents),
    },
    { header: "Último uso", cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "nunca") },
  ];
  if (manage) {
    columns.push({
      header: "Ações",
      cell: (k) =>
        k.revokedAt ? null : (
          <span className={ui.actions}>
            <button
              type="button"
              className="secondary"
              onClick={() =>
                guard(() =>
                  roll.mutateAsync({ params: { path: { mode, id: k.id } }, body: { gracePeriodSeconds: 3600 } }),
                ).then(
                  (rolled) => {
                    setSecret(rolled.secret);
                    void list.refetch();
                  },
                  () => undefined,
                )
              }
            >
              Trocar o segredo
            </button>
            {revoking === k.id ? (
              <button
                type="button"
                className="danger"
                onClick={() =>
                  revoke.mutate({ params: { path: { mode, id: k.id } } }, { onSuccess: () => void list.refetch() })
                }
              >
                Revogar {k.name} agora
              </button>
            ) : (
              <button type="button" className="secondary" onClick={() => setRevoking(k.id)}>
                Revogar
              </button>
            )}
          </span>
        ),
    });
  }
  const rows = list.data?.data ?? [];
  return (
    <div className="stack">
      {secret ? <SecretOnce secret={secret} what="o segredo da chave" onDone={() => setSecret(null)} /> : null}
      {manage && !secret ? (
        <CreateKey
          onCreated={(s) => {
            setSecret(s);
            void list.refetch();
          }}
        />
      ) : null}
      <Card title="Chaves de API" id="chaves">
        <p className={ui.hint}>
          {mode === "test"
            ? "Chaves de teste começam com svc_test_ e só veem o modo de teste."
            : "Chaves de produção movem dinheiro real."}{" "}
          Ao trocar o segredo, o antigo ainda vale por 1 hora.
        </p>
        <FormError error={roll.error ?? revoke.error} />
        {list.isPending ? (
          <Loading />
        ) : list.isError ? (
          <ErrorMessage error={list.error} retry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState title="Nenhuma chave neste modo">
            <p>
              {manage
                ? "Crie uma chave acima para chamar a API."
                : "Um desenvolvedor, administrador ou o proprietário cria as chaves."}
            </p>
          </EmptyState>
        ) : (
          <DataTable caption="Lista de chaves" columns={columns} rows={rows} rowKey={(k) => k.id} />
        )}
      </Card>
    </div>
  );
}

function CreateKey(props: { onCreated: (secret: string) => void }) {
  const mode = useMode();
  const guard = useStepUp();
  const create = api.useMutation("post", "/dashboard/v1/modes/{mode}/api-keys");
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<Set<Permission>>(new Set(permissions.map((p) => p.value)));
  const [ips, setIps] = useState("");
  const [limit, setLimit] = useState("");
  const { byField, rest } = fieldErrors(create.error, ["name", "permissions", "allowedIps", "dailyWithdrawLimitCents"]);
  return (
    <Card title="Criar chave de API" id="criar-chave">
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const allowedIps = ips.split(/[\s,]+/).filter(Boolean);
          const cents = limit.trim() ? parseMoneyInput(limit) : null;
          guard(() =>
            create.mutateAsync({
              params: { path: { mode } },
              body: {
                name: name.trim(),
                permissions: [...chosen],
                allowedIps,
                ...(cents !== null ? { dailyWithdrawLimitCents: cents } : {}),
              },
            }),
          ).then(
            (created) => {
              setName("");
              props.onCreated(created.secret);
            },
            () => undefined,
          );
        }}
      >
        <TextField
          label="Nome"
          name="name"
          required
          placeholder="Loja virtual"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={byField.name}
        />
        <fieldset className={ui.fieldset}>
          <legend>Permissões</legend>
          {permissions.map((p) => (
            <label key={p.value} className={ui.check}>
              <input
                type="checkbox"
                checked={chosen.has(p.value)}
                onChange={(event) => {
                  const next = new Set(chosen);
                  if (event.target.checked) next.add(p.value);
                  else next.delete(p.value);
                  setChosen(next);
                }}
              />
              {p.label}
            </label>
          ))}
          {byField.permissions ? <p className={ui.fieldError}>{byField.permissions}</p> : null}
        </fieldset>
        <Field
          label="IPs permitidos (opcional)"
          hint="Um por linha ou separados por vírgula; vazio: qualquer IP."
          error={byField.allowedIps}
        >
          <textarea rows={2} value={ips} onChange={(event) => setIps(event.target.value)} />
        </Field>
        <TextField
          label="Limite diário de saque (R$, opcional)"
          name="limit"
          inputMode="decimal"
          value={limit}
          onChange={(event) => setLimit(event.target.value)}
          error={byField.dailyWithdrawLimitCents}
        />
        <FormError error={create.error} rest={rest} />
        <div className={ui.formActions}>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Criando…" : "Criar chave"}
          </button>
        </div>
      </form>
    </Card>
  );
}
