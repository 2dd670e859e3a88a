import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { amountLimits, descriptionLength } from "../../../../generated/rules";
import type { components } from "../../../../generated/dashboard-api";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { Alert, Card, Page, ui } from "../../components/ui";
import { canCall } from "../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../api/session";
import { formatDocument, formatMoney, parseMoneyInput } from "../../lib/format";
import { useApiForm } from "../../lib/useApiForm";
import { useMode, useModePath } from "../../lib/useMode";
import { customerQueries } from "../customers/queries";
import { PayerFields, isCustomerId, payerBody, payerValues } from "../customers/payer";
import { counterQueries, useCreateCounterCharge } from "./queries";

type Body = components["schemas"]["PixService.CreatePixChargeRequest"];

/**
 * The counter: a Pix charge for a customer standing there, from the book or a new one; once made,
 * its QR code fills the screen (CounterCharge) until it is paid.
 */
export function NewCharge() {
  const mode = useMode();
  const to = useModePath();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const { user } = useCurrentSession();
  const book = useQuery(counterQueries.book(mode));
  const create = useCreateCounterCharge(mode);
  const customers = book.data?.data ?? [];
  const [picked, setPicked] = useState(search.get("cliente") ?? "");
  const { values, set, setValue, errors, rest } = useApiForm(
    { amount: "", description: "", ...payerValues(undefined) },
    create,
    ["amountCents", "description", "customer.name", "customer.email", "customer.phone", "customer.document"],
  );
  // A customer chosen in the address (`?cliente=cus_…`, from a customer's page), read by its id.
  const asked = search.get("cliente");
  const addressed = useQuery({
    ...customerQueries.one(mode, asked ?? ""),
    enabled: isCustomerId(asked),
  });
  const [filledFrom, setFilledFrom] = useState("");
  const fromAddress = addressed.data?.id === picked ? addressed.data : undefined;
  if (fromAddress && filledFrom !== picked) {
    setFilledFrom(picked);
    for (const [field, value] of Object.entries(payerValues(fromAddress))) {
      setValue(field as keyof ReturnType<typeof payerValues>, value);
    }
  }
  const [typed, setTyped] = useState<string | undefined>();
  const cents = parseMoneyInput(values.amount);
  if (!canCall("createDashboardCharge", user.role)) {
    return (
      <Page title="Nova cobrança">
        <Alert tone="info">
          Cobranças no balcão são feitas por proprietários, administradores e o financeiro. Seu papel pode ver as{" "}
          <Link to={to("transacoes")}>transações</Link>.
        </Alert>
      </Page>
    );
  }
  return (
    <Page
      title="Nova cobrança"
      subtitle="Cobre um cliente no balcão: o QR code ocupa a tela para ele pagar, e vira o comprovante quando o Pix chega."
    >
      <Card title="Cobrança" id="cobranca">
        <form
          className={ui.form}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            if (cents === null) return setTyped("digite um valor em reais, como 49,90");
            if (cents < amountLimits.minChargeCents) {
              return setTyped(`o valor mínimo é ${formatMoney(amountLimits.minChargeCents)}`);
            }
            setTyped(undefined);
            const body: Body = {
              amountCents: cents,
              description: values.description.trim(),
              customer: payerBody(values),
            };
            create.mutate(
              { params: { path: { mode }, header: { "idempotency-key": crypto.randomUUID() } }, body },
              { onSuccess: (made) => navigate(to(`balcao/${made.id}`)) },
            );
          }}
        >
          <TextField
            label="Valor (R$)"
            name="amount"
            inputMode="decimal"
            placeholder="49,90"
            autoComplete="off"
            hint={`A partir de ${formatMoney(amountLimits.minChargeCents)}.`}
            value={values.amount}
            onChange={set("amount")}
            error={typed ?? errors.amountCents}
          />
          <TextField
            label="Descrição"
            name="description"
            maxLength={descriptionLength.max}
            hint="O cliente vê esta descrição no app do banco."
            value={values.description}
            onChange={set("description")}
            error={errors.description}
          />
          <fieldset className={ui.fieldset}>
            <legend>Cliente</legend>
            <Field
              label="Cliente do cadastro"
              hint={
                book.isError
                  ? "Não foi possível carregar o cadastro: digite os dados."
                  : "Ou preencha os dados de um cliente novo."
              }
            >
              <select
                value={picked}
                onChange={(event) => {
                  const id = event.target.value;
                  setPicked(id);
                  setFilledFrom(id);
                  const chosen =
                    customers.find((c) => c.id === id) ?? (fromAddress?.id === id ? fromAddress : undefined);
                  for (const [field, value] of Object.entries(payerValues(chosen))) {
                    setValue(field as keyof ReturnType<typeof payerValues>, value);
                  }
                }}
              >
                <option value="">Cliente novo</option>
                {fromAddress && !customers.some((c) => c.id === fromAddress.id) ? (
                  <option value={fromAddress.id}>
                    {fromAddress.name ?? "Sem nome"} — {formatDocument(fromAddress.document)}
                  </option>
                ) : null}
                {customers.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name ?? "Sem nome"} — {formatDocument(c.document)}
                  </option>
                ))}
              </select>
            </Field>
            <PayerFields values={values} onChange={set} errorOf={(field) => errors[`customer.${field}`]} />
          </fieldset>
          <FormError error={create.error} rest={rest} />
          <div className={ui.formActions}>
            <button type="submit" disabled={create.isPending}>
              {create.isPending ? "Gerando o Pix…" : `Cobrar${cents !== null ? ` ${formatMoney(cents)}` : ""}`}
            </button>
            <Link className="button secondary" to={to("transacoes")}>
              Ver transações
            </Link>
          </div>
        </form>
      </Card>
    </Page>
  );
}
