import { descriptionLength } from "../../../../generated/rules";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { useQuery } from "@tanstack/react-query";
import { usePagedQuery } from "../../api/queries";
import { canCall } from "../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../api/session";
import { CopyButton } from "../../components/CopyButton";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { QrCode } from "../../components/QrCode";
import { Alert, Badge, Card, Details, EmptyState, ErrorMessage, Loading, Page, ui } from "../../components/ui";
import { formatDateTime, formatMoney, parseMoneyInput } from "../../lib/format";
import { useApiForm } from "../../lib/useApiForm";
import { useMode, useModePath } from "../../lib/useMode";
import { paymentLinkQueries, useCreatePaymentLink, useDeactivatePaymentLink } from "./queries";
import { TransactionTable } from "../transactions/Transactions";
import type { PaymentLink } from "../../api/types";
import { parseDay } from "../../components/DateRangeFilter";

/** A link's situation in the checkout's words: sold out ("esgotado") once it reached its maximum. */
function LinkStatus(props: { link: PaymentLink }) {
  if (props.link.exhausted) return <Badge>esgotado</Badge>;
  return props.link.active ? <Badge tone="ok">ativo</Badge> : <Badge>desativado</Badge>;
}

/** Payment links of the mode: create, list; each opens its page. */
export function PaymentLinks() {
  const mode = useMode();
  const to = useModePath();
  const { user } = useCurrentSession();
  const list = usePagedQuery((page) => paymentLinkQueries.list(mode, page));
  const columns: Column<PaymentLink>[] = [
    {
      header: "Link",
      cell: (l) => (
        <>
          <Link to={to(`links/${l.id}`)}>{l.description}</Link>
          <br />
          <code className={ui.hint}>{l.id}</code>
        </>
      ),
    },
    {
      essential: true,
      header: "Situação",
      cell: (l) => <LinkStatus link={l} />,
    },
    { header: "Criado em", cell: (l) => formatDateTime(l.createdAt) },
    { essential: true, header: "Valor", numeric: true, cell: (l) => formatMoney(l.amountCents) },
  ];
  const rows = list.data?.data ?? [];
  return (
    <Page title="Links de pagamento" subtitle="Uma página de pagamento Pix para enviar a quem paga.">
      {canCall("createDashboardPaymentLink", user.role) ? <CreateLink /> : null}
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorMessage error={list.error} retry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="Nenhum link de pagamento ainda">
          <p>
            {canCall("createDashboardPaymentLink", user.role)
              ? "Crie o primeiro acima: valor, descrição, e envie o endereço a quem vai pagar."
              : "O proprietário ou um administrador cria os links."}
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable caption="Lista de links" columns={columns} rows={rows} rowKey={(l) => l.id} />
          <CursorPager hasMore={list.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
        </>
      )}
    </Page>
  );
}

function CreateLink() {
  const mode = useMode();
  const create = useCreatePaymentLink(mode);
  const {
    values: form,
    set,
    setValue,
    reset,
    errors: byField,
    rest,
  } = useApiForm(
    { amount: "", description: "", maxPayments: "", expiresOn: "", returnUrl: "", askAddress: false as boolean },
    create,
    ["amountCents", "description", "maxPayments", "expiresAt", "returnUrl"],
  );
  const [amountInvalid, setAmountInvalid] = useState(false);
  const [expiresInvalid, setExpiresInvalid] = useState(false);
  return (
    <Card title="Criar link de pagamento" id="criar-link">
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const amountCents = parseMoneyInput(form.amount);
          if (amountCents === null) return setAmountInvalid(true);
          setAmountInvalid(false);
          const expiresOn = form.expiresOn.trim() ? parseDay(form.expiresOn) : null;
          if (form.expiresOn.trim() && expiresOn === null) return setExpiresInvalid(true);
          setExpiresInvalid(false);
          create.mutate(
            {
              params: { path: { mode }, header: { "idempotency-key": crypto.randomUUID() } },
              body: {
                amountCents,
                description: form.description.trim(),
                askAddress: form.askAddress,
                ...(form.maxPayments ? { maxPayments: Number(form.maxPayments) } : {}),
                ...(expiresOn ? { expiresAt: new Date(`${expiresOn}T23:59:59-03:00`).toISOString() } : {}),
                ...(form.returnUrl.trim() ? { returnUrl: form.returnUrl.trim() } : {}),
              },
            },
            { onSuccess: reset },
          );
        }}
      >
        <TextField
          label="Valor (R$)"
          name="amount"
          inputMode="decimal"
          placeholder="49,90"
          required
          value={form.amount}
          onChange={set("amount")}
          error={amountInvalid ? "digite um valor em reais, como 49,90" : byField.amountCents}
        />
        <TextField
          label="Descrição"
          name="description"
          required
          maxLength={descriptionLength.max}
          hint="O pagador vê esta descrição."
          value={form.description}
          onChange={set("description")}
          error={byField.description}
        />
        <TextField
          label="Máximo de pagamentos (opcional)"
          name="maxPayments"
          type="number"
          min={1}
          value={form.maxPayments}
          onChange={set("maxPayments")}
          error={byField.maxPayments}
        />
        <TextField
          label="Válido até (opcional)"
          name="expiresOn"
          inputMode="numeric"
          autoComplete="off"
          placeholder="dd/mm/aaaa"
          maxLength={10}
          hint="dd/mm/aaaa: até as 23:59 deste dia, horário de Brasília. Sem data: 30 dias."
          value={form.expiresOn}
          onChange={set("expiresOn")}
          error={expiresInvalid ? "digite uma data como 01/11/2026" : byField.expiresAt}
        />
        <TextField
          label="Endereço de retorno (opcional)"
          name="returnUrl"
          type="url"
          placeholder="https://sualoja.com.br/obrigado"
          value={form.returnUrl}
          onChange={set("returnUrl")}
          error={byField.returnUrl}
        />
        <Field label="Endereço do pagador">
          <select
            value={form.askAddress ? "sim" : "nao"}
            onChange={(event) => setValue("askAddress", event.target.value === "sim")}
          >
            <option value="nao">Não pedir</option>
            <option value="sim">Pedir o endereço</option>
          </select>
        </Field>
        <FormError error={create.error} rest={rest} />
        {create.isSuccess ? (
          <Alert tone="ok">
            Link criado:{" "}
            <Link to={`../links/${create.data.id}`} relative="path">
              {create.data.description}
            </Link>
          </Alert>
        ) : null}
        <div className={ui.formActions}>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Criando…" : "Criar link"}
          </button>
        </div>
      </form>
    </Card>
  );
}

/** One payment link: its address to copy, its QR code, deactivate, and its charges. */
export function PaymentLinkPage() {
  const { id = "" } = useParams();
  const mode = useMode();
  const to = useModePath();
  const { user } = useCurrentSession();
  const link = useQuery(paymentLinkQueries.one(mode, id));
  const charges = useQuery(paymentLinkQueries.charges(mode, id));
  const deactivate = useDeactivatePaymentLink(mode, id);
  if (link.isPending) return <Loading />;
  if (link.isError) return <ErrorMessage error={link.error} retry={() => void link.refetch()} />;
  const l = link.data;
  return (
    <Page title={l.description} subtitle={`Link de pagamento ${l.id}`}>
      <p>
        <Link to={to("links")}>← Links de pagamento</Link>
      </p>
      <div className={ui.grid2}>
        <Card title="Endereço para o pagador" id="endereco">
          <div className={ui.copyRow}>
            <code>{l.url}</code>
            <CopyButton text={l.url} label="Copiar endereço" />
          </div>
          <p>
            <a href={l.url} target="_blank" rel="noopener">
              Abrir a página de pagamento
            </a>
          </p>
          <QrCode text={l.url} label={`QR code do link ${l.description}`} />
        </Card>
        <Card title="Detalhes" id="detalhes">
          <Details
            items={[
              ["Valor", formatMoney(l.amountCents)],
              ["Situação", <LinkStatus key="s" link={l} />],
              ["Máximo de pagamentos", l.maxPayments ? String(l.maxPayments) : "sem limite"],
              ["Válido até", formatDateTime(l.expiresAt)],
              ["Pede endereço", l.askAddress ? "sim" : "não"],
              ["Retorno", l.returnUrl ?? "—"],
              ["Criado em", formatDateTime(l.createdAt)],
            ]}
          />
          {l.active && canCall("deactivateDashboardPaymentLink", user.role) ? (
            <div className={ui.formActions}>
              <button
                type="button"
                className="danger"
                disabled={deactivate.isPending}
                onClick={() =>
                  deactivate.mutate({
                    params: { path: { mode, id: l.id }, header: { "idempotency-key": crypto.randomUUID() } },
                  })
                }
              >
                Desativar link
              </button>
            </div>
          ) : null}
          <FormError error={deactivate.error} />
        </Card>
      </div>
      <Card title="Cobranças deste link" id="cobrancas">
        {charges.isPending ? (
          <Loading />
        ) : charges.isError ? (
          <ErrorMessage error={charges.error} />
        ) : charges.data.data.length === 0 ? (
          <EmptyState title="Ninguém pagou ainda">
            <p>Envie o endereço acima; cada pagador gera uma cobrança que aparece aqui.</p>
          </EmptyState>
        ) : (
          <>
            <TransactionTable rows={charges.data.data} caption="Cobranças do link" />
            <p>
              <Link to={to(`transacoes?link=${l.id}`)}>Ver todas em Transações</Link>
            </p>
          </>
        )}
      </Card>
    </Page>
  );
}
