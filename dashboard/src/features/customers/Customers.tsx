import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { useQuery } from "@tanstack/react-query";
import { canCall } from "../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../api/session";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import {
  AddressLines,
  Alert,
  Badge,
  Card,
  Details,
  EmptyState,
  ErrorMessage,
  Loading,
  Page,
  ui,
} from "../../components/ui";
import { formatAddress, formatDateTime, formatDocument, formatPhone } from "../../lib/format";
import { withFilters } from "../../lib/filters";
import { addressFromFilters } from "../../lib/transactions";
import { TransactionTable } from "../transactions/Transactions";
import { useMode, useModePath } from "../../lib/useMode";
import type { Customer } from "../../api/types";
import { usePagedQuery } from "../../api/queries";
import { useApiForm } from "../../lib/useApiForm";
import { customerQueries, useUpdateCustomerNotes } from "./queries";
import { recurrenceQueries } from "../recurrences/queries";
import { RecurrenceTable } from "../recurrences/Recurrences";

/** Customers of the mode: search by CPF/CNPJ (in the address), cursor pages. */
export function Customers() {
  const mode = useMode();
  const to = useModePath();
  const [search, setSearch] = useSearchParams();
  const document = (search.get("documento") ?? "").replace(/\D/g, "");
  const [typed, setTyped] = useState(document);
  const list = usePagedQuery((page) => customerQueries.list(mode, page, document));
  const columns: Column<Customer>[] = [
    {
      header: "Cliente",
      cell: (c) => (
        <>
          <Link to={to(`clientes/${c.id}`)}>{c.name ?? c.id}</Link>
          <br />
          <span className={ui.hint}>{c.email}</span>
        </>
      ),
    },
    { header: "Documento", cell: (c) => `${c.documentType} ${formatDocument(c.document)}` },
    { header: "Etiquetas", cell: (c) => (c.tags.length ? c.tags.map((t) => <Badge key={t}>{t}</Badge>) : "—") },
    { header: "Desde", cell: (c) => formatDateTime(c.createdAt) },
  ];
  const rows = list.data?.data ?? [];
  return (
    <Page title="Clientes" subtitle="Quem pagou ou preencheu um checkout neste modo.">
      <form
        className={ui.filters}
        aria-label="Buscar cliente"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(withFilters(search, { documento: typed.replace(/\D/g, "") }));
        }}
      >
        <Field label="CPF ou CNPJ">
          <input type="search" inputMode="numeric" value={typed} onChange={(event) => setTyped(event.target.value)} />
        </Field>
        <div className={ui.formActions}>
          <button type="submit" className="secondary">
            Buscar
          </button>
        </div>
      </form>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorMessage error={list.error} retry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={document ? "Nenhum cliente com este documento" : "Nenhum cliente ainda"}>
          <p>
            {document
              ? "Confira os números, ou limpe a busca."
              : "Clientes aparecem quando alguém paga uma cobrança ou um link."}
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable caption="Lista de clientes" columns={columns} rows={rows} rowKey={(c) => c.id} />
          <CursorPager hasMore={list.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
        </>
      )}
    </Page>
  );
}

/** One customer: details, and the internal notes and tags (owners and admins edit them). */
export function CustomerPage() {
  const { id = "" } = useParams();
  const mode = useMode();
  const to = useModePath();
  const customer = useQuery(customerQueries.one(mode, id));
  if (customer.isPending) return <Loading />;
  if (customer.isError) return <ErrorMessage error={customer.error} retry={() => void customer.refetch()} />;
  const c = customer.data;
  const address = formatAddress(c.address);
  return (
    <Page title={c.name ?? c.id} subtitle={`Cliente ${c.id}`}>
      <p>
        <Link to={to("clientes")}>← Clientes</Link>
      </p>
      <Card title="Dados" id="dados">
        <Details
          items={[
            ["E-mail", c.email],
            ["Celular", formatPhone(c.phone)],
            [c.documentType, formatDocument(c.document)],
            ["Endereço", address ? <AddressLines lines={address} /> : "não informado"],
            ["Desde", formatDateTime(c.createdAt)],
          ]}
        />
      </Card>
      <CustomerCharges customerId={c.id} />
      <CustomerRecurrences customerId={c.id} />
      <Notes key={c.id} customer={c} />
    </Page>
  );
}

/** How many of a customer's charges its page shows; the rest are one link away, in Transações. */
const customerChargesShown = 10;

/** The customer's newest charges, and the transaction list filtered to them. */
function CustomerCharges(props: { customerId: string }) {
  const mode = useMode();
  const to = useModePath();
  const { user } = useCurrentSession();
  const charges = useQuery(customerQueries.charges(mode, props.customerId, customerChargesShown));
  const all = to(`transacoes?${addressFromFilters({ customerId: props.customerId }).toString()}`);
  return (
    <Card title="Cobranças" id="cobrancas">
      {charges.isPending ? (
        <Loading label="Carregando cobranças…" />
      ) : charges.isError ? (
        <ErrorMessage error={charges.error} retry={() => void charges.refetch()} />
      ) : charges.data.data.length === 0 ? (
        <p>Nenhuma cobrança deste cliente neste modo.</p>
      ) : (
        <>
          <TransactionTable rows={charges.data.data} caption="Cobranças do cliente" />
          {charges.data.hasMore ? (
            <p>
              <Link to={all}>Ver todas as cobranças deste cliente</Link>
            </p>
          ) : null}
        </>
      )}
      <p className={ui.actions}>
        {canCall("createDashboardCharge", user.role) ? (
          <Link className="button secondary" to={to(`balcao?cliente=${props.customerId}`)}>
            Cobrar no balcão
          </Link>
        ) : null}
        {canCall("createDashboardDueDateCharge", user.role) ? (
          <Link className="button secondary" to={to(`transacoes/vencimento/nova?cliente=${props.customerId}`)}>
            Nova cobrança com vencimento
          </Link>
        ) : null}
      </p>
    </Card>
  );
}

/** The customer's recurrences (Pix Automático), and a new one with its data filled in. */
function CustomerRecurrences(props: { customerId: string }) {
  const mode = useMode();
  const to = useModePath();
  const { user } = useCurrentSession();
  const recurrences = useQuery(recurrenceQueries.ofCustomer(mode, props.customerId));
  return (
    <Card title="Recorrências" id="recorrencias">
      {recurrences.isPending ? (
        <Loading label="Carregando recorrências…" />
      ) : recurrences.isError ? (
        <ErrorMessage error={recurrences.error} retry={() => void recurrences.refetch()} />
      ) : recurrences.data.data.length === 0 ? (
        <p>Nenhuma recorrência deste cliente neste modo.</p>
      ) : (
        <RecurrenceTable rows={recurrences.data.data} caption="Recorrências do cliente" />
      )}
      {canCall("createDashboardRecurrence", user.role) ? (
        <p>
          <Link className="button secondary" to={to(`recorrencias/nova?cliente=${props.customerId}`)}>
            Nova recorrência
          </Link>
        </p>
      ) : null}
    </Card>
  );
}

function Notes(props: { customer: Customer }) {
  const mode = useMode();
  const { user } = useCurrentSession();
  const update = useUpdateCustomerNotes(mode, props.customer.id);
  const { values, set, errors, rest } = useApiForm(
    { notes: props.customer.notes ?? "", tags: props.customer.tags.join(", ") },
    update,
  );
  const editable = canCall("updateDashboardCustomerNotes", user.role);
  return (
    <Card title="Notas internas e etiquetas" id="notas">
      <p className={ui.hint}>Só a sua equipe vê: nunca aparecem na API pública nem para o cliente.</p>
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          update.mutate({
            params: { path: { mode, id: props.customer.id } },
            body: {
              notes: values.notes.trim(),
              tags: values.tags
                .split(",")
                .map((t) => t.trim())
                .filter(Boolean),
            },
          });
        }}
      >
        <Field label="Notas" error={errors.notes}>
          <textarea rows={4} value={values.notes} readOnly={!editable} onChange={set("notes")} />
        </Field>
        <TextField
          label="Etiquetas"
          name="tags"
          hint="Separadas por vírgula, como: vip, atacado"
          readOnly={!editable}
          value={values.tags}
          onChange={set("tags")}
          error={errors.tags}
        />
        <FormError error={update.error} rest={rest} />
        {update.isSuccess ? <Alert tone="ok">Notas salvas.</Alert> : null}
        {editable ? (
          <div className={ui.formActions}>
            <button type="submit" disabled={update.isPending}>
              Salvar
            </button>
          </div>
        ) : null}
      </form>
    </Card>
  );
}
