import { useSearchParams } from "react-router";
import { api, type paths } from "../../api/client";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { DateRangeFilter } from "../../components/DateRangeFilter";
import { Field } from "../../components/Field";
import { Card, EmptyState, ErrorMessage, Loading, ui } from "../../components/ui";
import { dayRangeQuery, isDay, oneOf, withFilters } from "../../lib/filters";
import { formatDateTime, formatMoney } from "../../lib/format";
import { auditActionLabel, label, statusLabel } from "../../lib/labels";
import { usePagedQuery } from "../../api/queries";

type Query = NonNullable<paths["/dashboard/v1/audit-log"]["get"]["parameters"]["query"]>;
type Entry = NonNullable<ReturnType<typeof useAudit>["data"]>["data"][number];
type Action = NonNullable<Query["action"]>;

const useAudit = (query: Omit<Query, "limit" | "startingAfter">) =>
  usePagedQuery((page) =>
    api.queryOptions("get", "/dashboard/v1/audit-log", { params: { query: { ...query, ...page } } }),
  );

const actions = Object.keys(auditActionLabel) as Action[];

/** The names of the fields an audit entry's changes carry, as the screens call them. */
const fieldLabel: Record<string, string> = {
  name: "Nome",
  email: "E-mail",
  role: "Papel",
  status: "Situação",
  url: "Endereço",
  events: "Eventos",
  enabled: "Ativo",
  permissions: "Permissões",
  allowedIps: "IPs permitidos",
  dailyWithdrawLimitCents: "Limite diário de saque",
  revokedAt: "Revogada em",
  amountCents: "Valor",
  description: "Descrição",
  transactionId: "Transação",
  reason: "Motivo",
  paidAmountCents: "Valor pago",
  returnedAmountCents: "Valor devolvido",
  paidAt: "Paga em",
  failureReason: "Motivo da falha",
  notes: "Notas",
  tags: "Etiquetas",
  legalName: "Razão social",
  document: "CPF ou CNPJ",
  documentType: "Tipo de documento",
  verified: "Verificada",
  releasePeriodDays: "Prazo de liberação (dias)",
  requireTwoFactor: "Exigir verificação em duas etapas",
  dispute: "Disputa",
  cycle: "Ciclo",
  zipCode: "CEP",
  street: "Rua",
  number: "Número",
  complement: "Complemento",
  district: "Bairro",
  city: "Cidade",
  state: "Estado",
  payments: "E-mails de pagamentos",
  withdrawals: "E-mails de saques",
  disputes: "E-mails de contestações",
  newDevice: "E-mail de entrada de um dispositivo novo",
};

/** Status values of the records an audit entry names, in words. */
const valueLabel: Record<string, string> = {
  ...statusLabel,
  CREATED: "Aguardando aprovação",
  APPROVED: "Aprovada",
  REJECTED: "Recusada",
  requested: "pedida",
  verified: "verificada",
  rejected: "recusada",
  unverified: "não verificada",
  owner: "proprietário",
  admin: "administrador",
  developer: "desenvolvedor",
  finance: "financeiro",
  viewer: "leitura",
};

/** Values that are words only in one field: the payments' e-mail notice (Notificações). */
const fieldValueLabel: Record<string, Record<string, string>> = {
  payments: { each: "a cada pagamento", daily: "resumo diário", off: "não receber" },
};

function describeChange(field: string, value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "sim" : "não";
  if (typeof value === "number" && field.endsWith("Cents")) return formatMoney(value);
  if (typeof value === "string" && field.endsWith("At")) return formatDateTime(value);
  if (typeof value === "string") return fieldValueLabel[field]?.[value] ?? valueLabel[value] ?? value;
  if (Array.isArray(value))
    return value.length === 0 ? "nenhum" : value.map((v) => describeChange(field, v)).join(", ");
  return JSON.stringify(value);
}

/** The audit log (owners and admins): who did what, when and from where; filters in the address. */
export function AuditLog() {
  const [search, setSearch] = useSearchParams();
  const action = oneOf(search, "acao", actions);
  const from = search.get("de") ?? undefined;
  const to = search.get("ate") ?? undefined;
  const audit = useAudit({
    ...(action ? { action } : {}),
    ...dayRangeQuery(from, to),
  });
  const columns: Column<Entry>[] = [
    { header: "Quando", cell: (e) => formatDateTime(e.createdAt) },
    { header: "Quem", cell: (e) => (e.actor.type === "operator" ? "Plataforma (operador)" : (e.actor.email ?? "—")) },
    { header: "Ação", cell: (e) => label(auditActionLabel, e.action) },
    {
      header: "Objeto",
      cell: (e) => (
        <>
          <code>{e.target.id}</code>
          {e.mode ? <span className={ui.hint}> ({e.mode === "test" ? "teste" : "produção"})</span> : null}
        </>
      ),
    },
    {
      header: "O que mudou",
      cell: (e) => {
        const changes = Object.entries(e.changes ?? {});
        if (changes.length === 0) return "—";
        return (
          <ul className={ui.changes}>
            {changes.map(([field, change]) => (
              <li key={field}>
                {fieldLabel[field] ?? field}: {describeChange(field, (change as { from?: unknown }).from)} →{" "}
                {describeChange(field, (change as { to?: unknown }).to)}
              </li>
            ))}
          </ul>
        );
      },
    },
    { essential: true, header: "IP", cell: (e) => <span className={ui.nowrap}>{e.ip ?? "—"}</span> },
  ];
  const rows = audit.data?.data ?? [];
  return (
    <Card title="Registro de auditoria" id="auditoria">
      <p>Toda mudança feita pelo painel ou pela plataforma, com quem, quando e de onde. Nada aqui pode ser apagado.</p>
      <form className={ui.filters} onSubmit={(event) => event.preventDefault()} aria-label="Filtros">
        <Field label="Ação">
          <select
            value={action ?? ""}
            onChange={(event) => setSearch(withFilters(search, { acao: event.target.value }))}
          >
            <option value="">Todas</option>
            {actions.map((a) => (
              <option key={a} value={a}>
                {auditActionLabel[a]}
              </option>
            ))}
          </select>
        </Field>
        <DateRangeFilter
          from={isDay(from) ? from : undefined}
          to={isDay(to) ? to : undefined}
          onChange={(change) =>
            setSearch(withFilters(search, "from" in change ? { de: change.from } : { ate: change.to }))
          }
        />
      </form>
      {audit.isPending ? (
        <Loading />
      ) : audit.isError ? (
        <ErrorMessage error={audit.error} retry={() => void audit.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="Nada registrado com estes filtros">
          <p>Mude os filtros, ou faça uma mudança (como ativar a verificação em duas etapas) para vê-la aqui.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable caption="Entradas do registro" columns={columns} rows={rows} rowKey={(e) => e.id} />
          <CursorPager hasMore={audit.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
        </>
      )}
    </Card>
  );
}
