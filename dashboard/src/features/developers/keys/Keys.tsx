import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { fieldErrors } from "../../../api/errors";
import { canCall } from "../../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../../api/session";
import { CopyButton } from "../../../components/CopyButton";
import { type Column, DataTable } from "../../../components/DataTable";
import { Field, TextField } from "../../../components/Field";
import { FormError } from "../../../components/FormError";
import { useStepUp } from "../../../components/StepUp";
import { Alert, Badge, Card, EmptyState, ErrorMessage, Loading, ui } from "../../../components/ui";
import { formatDateTime, formatMoney, parseMoneyInput } from "../../../lib/format";
import { useMode } from "../../../lib/useMode";
import type { ApiKey } from "../../../api/types";
import { keyQueries, useCreateKey, useRevokeKey, useRollKey, useUpdateKey } from "./queries";

type Key = ApiKey;
type Permission = Key["permissions"][number];

/** Every permission of the spec, named: a new one fails the build until it has its label here. */
const permissionLabels: Record<Permission, string> = {
  "transactions:read": "Ler transações",
  "charges:write": "Criar cobranças",
  "payment_links:read": "Ler links de pagamento",
  "payment_links:write": "Criar links de pagamento",
  "customers:read": "Ler clientes",
  "customers:write": "Alterar clientes",
  "balance:read": "Ler saldo",
  "withdrawals:read": "Ler saques",
  "withdrawals:write": "Sacar",
  "refunds:write": "Reembolsar",
  "recurrences:read": "Ler recorrências",
  "recurrences:write": "Criar recorrências",
};
const permissions = Object.entries(permissionLabels).map(([value, label]) => ({ value: value as Permission, label }));

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
  const manage = canCall("createDashboardApiKey", user.role);
  const guard = useStepUp();
  const list = useQuery(keyQueries.list(mode));
  const roll = useRollKey(mode);
  const revoke = useRevokeKey(mode);
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [editing, setEditing] = useState<Key | null>(null);
  const columns: Column<Key>[] = [
    {
      header: "Chave",
      cell: (k) => (
        <>
          {k.name} {k.revokedAt ? <Badge tone="danger">revogada</Badge> : null}
          <br />
          <code className={`${ui.hint} ${ui.nowrap}`}>{k.prefix}…</code>
        </>
      ),
    },
    { header: "Permissões", cell: (k) => `${k.permissions.length} de ${permissions.length}` },
    { header: "IPs", cell: (k) => (k.allowedIps.length ? k.allowedIps.join(", ") : "qualquer") },
    {
      header: "Limite diário de saque",
      cell: (k) =>
        k.dailyWithdrawLimitCents === null ? (
          "sem limite"
        ) : (
          <>
            {formatMoney(k.dailyWithdrawLimitCents)}
            <br />
            <span className={ui.hint}>restam hoje {formatMoney(k.dailyWithdrawLeftCents ?? 0)}</span>
          </>
        ),
    },
    { header: "Último uso", cell: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "nunca") },
  ];
  if (manage) {
    columns.push({
      header: "Ações",
      cell: (k) =>
        k.revokedAt ? null : (
          <span className={ui.actions}>
            <button type="button" className="secondary" onClick={() => setEditing(k)}>
              Alterar
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() =>
                guard(() =>
                  roll.mutateAsync({ params: { path: { mode, id: k.id } }, body: { gracePeriodSeconds: 3600 } }),
                ).then(
                  (rolled) => setSecret(rolled.secret),
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
                onClick={() => revoke.mutate({ params: { path: { mode, id: k.id } } })}
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
      {manage && editing ? <EditKey key={editing.id} apiKey={editing} onDone={() => setEditing(null)} /> : null}
      {manage && !secret && !editing ? <CreateKey onCreated={setSecret} /> : null}
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

/** What a key may do, from where, and how much it may withdraw a day: as typed in a form. */
interface KeyRules {
  chosen: Set<Permission>;
  ips: string;
  limit: string;
}

const rulesOf = (key: Key): KeyRules => ({
  chosen: new Set(key.permissions),
  ips: key.allowedIps.join("\n"),
  limit: key.dailyWithdrawLimitCents === null ? "" : formatMoney(key.dailyWithdrawLimitCents).replace(/^R\$\s*/, ""),
});

/**
 * The rules as the API's body: the IP list split, the limit in cents (null when left empty), or the
 * message for a limit that is not an amount.
 */
function bodyOf(rules: KeyRules) {
  const allowedIps = rules.ips.split(/[\s,]+/).filter(Boolean);
  const typed = rules.limit.trim();
  const cents = typed ? parseMoneyInput(typed) : null;
  const limitError = typed && cents === null ? "Informe um valor em reais, como 5.000,00, ou deixe vazio." : undefined;
  return { body: { permissions: [...rules.chosen], allowedIps, dailyWithdrawLimitCents: cents }, limitError };
}

/** The permission boxes, the IP list and the daily limit, shared by creating and changing a key. */
function KeyRulesFields(props: {
  rules: KeyRules;
  onChange: (rules: KeyRules) => void;
  errors: Partial<Record<"permissions" | "allowedIps" | "dailyWithdrawLimitCents", string>>;
}) {
  const { rules, onChange, errors } = props;
  return (
    <>
      <fieldset className={ui.fieldset}>
        <legend>Permissões</legend>
        {permissions.map((p) => (
          <label key={p.value} className={ui.check}>
            <input
              type="checkbox"
              checked={rules.chosen.has(p.value)}
              onChange={(event) => {
                const next = new Set(rules.chosen);
                if (event.target.checked) next.add(p.value);
                else next.delete(p.value);
                onChange({ ...rules, chosen: next });
              }}
            />
            {p.label}
          </label>
        ))}
        {errors.permissions ? <p className={ui.fieldError}>{errors.permissions}</p> : null}
      </fieldset>
      <Field
        label="IPs permitidos (opcional)"
        hint="Um por linha ou separados por vírgula; vazio: qualquer IP."
        error={errors.allowedIps}
      >
        <textarea rows={2} value={rules.ips} onChange={(event) => onChange({ ...rules, ips: event.target.value })} />
      </Field>
      <TextField
        label="Limite diário de saque (R$, opcional)"
        name="limit"
        inputMode="decimal"
        hint="Vazio: sem limite."
        value={rules.limit}
        onChange={(event) => onChange({ ...rules, limit: event.target.value })}
        error={errors.dailyWithdrawLimitCents}
      />
    </>
  );
}

/** Changes a key's permissions, IP list and daily limit; its next request obeys them. */
function EditKey(props: { apiKey: Key; onDone: () => void }) {
  const mode = useMode();
  const guard = useStepUp();
  const update = useUpdateKey(mode);
  const [rules, setRules] = useState<KeyRules>(() => rulesOf(props.apiKey));
  const [limitError, setLimitError] = useState<string | undefined>();
  const { byField, rest } = fieldErrors(update.error, ["permissions", "allowedIps", "dailyWithdrawLimitCents"]);
  // The form opens above the list: it takes the focus, so the keyboard and the eye go there.
  const place = useRef<HTMLDivElement>(null);
  useEffect(() => {
    place.current?.scrollIntoView({ block: "start" });
    place.current?.focus();
  }, []);
  return (
    <div ref={place} tabIndex={-1}>
      <Card title={`Alterar a chave ${props.apiKey.name}`} id="alterar-chave">
        <p className={ui.hint}>A próxima chamada da chave já segue as novas regras.</p>
        <form
          className={ui.form}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const { body, limitError } = bodyOf(rules);
            setLimitError(limitError);
            if (limitError) return;
            // A production key's change asks for the authenticator's code (step-up), as creating one does.
            guard(() => update.mutateAsync({ params: { path: { mode, id: props.apiKey.id } }, body })).then(
              props.onDone,
              () => undefined,
            );
          }}
        >
          <KeyRulesFields
            rules={rules}
            onChange={setRules}
            errors={{ ...byField, dailyWithdrawLimitCents: limitError ?? byField.dailyWithdrawLimitCents }}
          />
          <FormError error={update.error} rest={rest} />
          <div className={ui.formActions}>
            <button type="submit" disabled={update.isPending}>
              {update.isPending ? "Salvando…" : "Salvar alterações"}
            </button>
            <button type="button" className="secondary" onClick={props.onDone}>
              Cancelar
            </button>
          </div>
        </form>
      </Card>
    </div>
  );
}

function CreateKey(props: { onCreated: (secret: string) => void }) {
  const mode = useMode();
  const guard = useStepUp();
  const create = useCreateKey(mode);
  const [name, setName] = useState("");
  const [rules, setRules] = useState<KeyRules>({
    // The API's default: every permission but withdrawing (spec/dashboard/api-keys.tsp).
    chosen: new Set(permissions.map((p) => p.value).filter((p) => p !== "withdrawals:write")),
    ips: "",
    limit: "",
  });
  const [limitError, setLimitError] = useState<string | undefined>();
  const { byField, rest } = fieldErrors(create.error, ["name", "permissions", "allowedIps", "dailyWithdrawLimitCents"]);
  return (
    <Card title="Criar chave de API" id="criar-chave">
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const { body, limitError } = bodyOf(rules);
          setLimitError(limitError);
          if (limitError) return;
          guard(() =>
            create.mutateAsync({
              params: { path: { mode } },
              body: {
                name: name.trim(),
                permissions: body.permissions,
                allowedIps: body.allowedIps,
                ...(body.dailyWithdrawLimitCents !== null
                  ? { dailyWithdrawLimitCents: body.dailyWithdrawLimitCents }
                  : {}),
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
        <KeyRulesFields
          rules={rules}
          onChange={setRules}
          errors={{ ...byField, dailyWithdrawLimitCents: limitError ?? byField.dailyWithdrawLimitCents }}
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
