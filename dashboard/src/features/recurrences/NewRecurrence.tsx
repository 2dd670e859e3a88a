import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { recurrenceTextLength } from "../../../../generated/rules";
import type { components } from "../../../../generated/dashboard-api";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { parseDay } from "../../components/DateRangeFilter";
import { Card, Page, ui } from "../../components/ui";
import { parseMoneyInput } from "../../lib/format";
import { useApiForm } from "../../lib/useApiForm";
import { useMode, useModePath } from "../../lib/useMode";
import type { Customer } from "../../api/types";
import { PayerFields, WithCustomerFromAddress, payerBody, payerValues } from "../customers/payer";
import { journeyLabel, periodicityLabel, retryPolicyLabel } from "./labels";
import { useCreateRecurrence } from "./queries";

type Body = components["schemas"]["PixService.CreateRecurrenceRequest"];
type Periodicity = Body["periodicity"];
type Journey = Body["journey"];
type RetryPolicy = NonNullable<Body["retryPolicy"]>;

/** A new recurrence: from a customer's page (`?cliente=cus_…`, its data filled in) or typed whole. */
export function NewRecurrence() {
  return (
    <WithCustomerFromAddress>
      {(customer) => <RecurrenceForm key={customer?.id ?? "novo"} customer={customer} />}
    </WithCustomerFromAddress>
  );
}

function RecurrenceForm(props: { customer: Customer | undefined }) {
  const mode = useMode();
  const to = useModePath();
  const navigate = useNavigate();
  const create = useCreateRecurrence(mode);
  const c = props.customer;
  const { values, set, setValue, errors, rest } = useApiForm(
    {
      ...payerValues(c),
      contractReference: "",
      description: "",
      periodicity: "MONTHLY",
      firstDate: "",
      lastDate: "",
      amountType: "FIXED",
      amount: "",
      minimumAmount: "",
      retryPolicy: "NO_RETRY",
      automaticCharges: true as boolean,
      journey: "JOURNEY_2",
      initialAmount: "",
    },
    create,
    [
      "payer.name",
      "payer.email",
      "payer.phone",
      "payer.document",
      "contractReference",
      "description",
      "firstDate",
      "lastDate",
      "amountCents",
      "minimumAmountCents",
      "automaticCharges",
      "initialPayment",
      "initialPayment.amountCents",
    ],
  );
  // What the form itself refuses before sending: money and dates as a person types them.
  const [typed, setTyped] = useState<Record<string, string>>({});
  const fixed = values.amountType === "FIXED";
  const journey3 = values.journey === "JOURNEY_3";
  const error = (field: string, server?: string) => typed[field] ?? errors[server ?? field];
  return (
    <Page
      title="Nova recorrência"
      subtitle="Pix Automático: o pagador autoriza uma vez, e cada ciclo é debitado na data."
    >
      <p>
        <Link to={to("recorrencias")}>← Recorrências</Link>
      </p>
      <Card title="Dados da recorrência" id="nova-recorrencia">
        <form
          className={ui.form}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const wrong: Record<string, string> = {};
            const money = "digite um valor em reais, como 49,90";
            const date = "digite uma data como 04/11/2030";
            const amountCents = fixed ? parseMoneyInput(values.amount) : null;
            if (fixed && amountCents === null) wrong.amount = money;
            const minimumAmountCents =
              !fixed && values.minimumAmount.trim() ? parseMoneyInput(values.minimumAmount) : null;
            if (!fixed && values.minimumAmount.trim() && minimumAmountCents === null) wrong.minimumAmount = money;
            const initialCents = journey3 ? parseMoneyInput(values.initialAmount) : null;
            if (journey3 && initialCents === null) wrong.initialAmount = money;
            const firstDate = parseDay(values.firstDate);
            if (firstDate === null) wrong.firstDate = date;
            const lastDate = values.lastDate.trim() ? parseDay(values.lastDate) : null;
            if (values.lastDate.trim() && lastDate === null) wrong.lastDate = date;
            setTyped(wrong);
            if (Object.keys(wrong).length > 0 || firstDate === null) return;
            const body: Body = {
              payer: payerBody(values),
              contractReference: values.contractReference.trim(),
              description: values.description.trim(),
              periodicity: values.periodicity as Periodicity,
              firstDate,
              ...(lastDate ? { lastDate } : {}),
              ...(amountCents !== null ? { amountCents, automaticCharges: values.automaticCharges } : {}),
              ...(minimumAmountCents !== null ? { minimumAmountCents } : {}),
              retryPolicy: values.retryPolicy as RetryPolicy,
              journey: values.journey as Journey,
              ...(initialCents !== null ? { initialPayment: { amountCents: initialCents } } : {}),
            };
            create.mutate(
              { params: { path: { mode }, header: { "idempotency-key": crypto.randomUUID() } }, body },
              { onSuccess: (made) => navigate(to(`recorrencias/${made.id}`)) },
            );
          }}
        >
          <fieldset className={ui.fieldset}>
            <legend>Pagador</legend>
            <PayerFields values={values} onChange={set} errorOf={(field) => errors[`payer.${field}`]} />
          </fieldset>
          <fieldset className={ui.fieldset}>
            <legend>Condições</legend>
            <TextField
              label="Descrição"
              name="description"
              maxLength={recurrenceTextLength.descriptionMax}
              hint={`O pagador vê esta descrição no app do banco (até ${recurrenceTextLength.descriptionMax} caracteres).`}
              value={values.description}
              onChange={set("description")}
              error={errors.description}
            />
            <TextField
              label="Contrato ou pedido"
              name="contractReference"
              maxLength={recurrenceTextLength.contractReferenceMax}
              hint="Seu número do contrato, da assinatura ou do pedido."
              value={values.contractReference}
              onChange={set("contractReference")}
              error={errors.contractReference}
            />
            <Field label="Periodicidade">
              <select value={values.periodicity} onChange={set("periodicity")}>
                {(Object.keys(periodicityLabel) as Periodicity[]).map((p) => (
                  <option key={p} value={p}>
                    {periodicityLabel[p]}
                  </option>
                ))}
              </select>
            </Field>
            <TextField
              label="Primeiro ciclo"
              name="firstDate"
              inputMode="numeric"
              autoComplete="off"
              placeholder="dd/mm/aaaa"
              maxLength={10}
              hint="dd/mm/aaaa: hoje ou depois."
              value={values.firstDate}
              onChange={set("firstDate")}
              error={error("firstDate")}
            />
            <TextField
              label="Último ciclo (opcional)"
              name="lastDate"
              inputMode="numeric"
              autoComplete="off"
              placeholder="dd/mm/aaaa"
              maxLength={10}
              hint="Vazio: sem data para terminar."
              value={values.lastDate}
              onChange={set("lastDate")}
              error={error("lastDate")}
            />
            <Field label="Valor de cada ciclo">
              <select value={values.amountType} onChange={set("amountType")}>
                <option value="FIXED">Fixo</option>
                <option value="VARIABLE">Variável</option>
              </select>
            </Field>
            {fixed ? (
              <TextField
                label="Valor (R$)"
                name="amount"
                inputMode="decimal"
                placeholder="49,90"
                value={values.amount}
                onChange={set("amount")}
                error={error("amount", "amountCents")}
              />
            ) : (
              <TextField
                label="Limite mínimo do pagador (R$, opcional)"
                name="minimumAmount"
                inputMode="decimal"
                hint="O menor teto que o pagador pode escolher ao autorizar."
                value={values.minimumAmount}
                onChange={set("minimumAmount")}
                error={error("minimumAmount", "minimumAmountCents")}
              />
            )}
            <Field label="Se uma cobrança falhar">
              <select value={values.retryPolicy} onChange={set("retryPolicy")}>
                {(Object.keys(retryPolicyLabel) as RetryPolicy[]).map((p) => (
                  <option key={p} value={p}>
                    {retryPolicyLabel[p]}
                  </option>
                ))}
              </select>
            </Field>
            {fixed ? (
              <Field
                label="Cobranças dos ciclos"
                hint={
                  values.automaticCharges
                    ? "Enviadas por nós 10 dias antes de cada ciclo."
                    : "Você envia cada uma, de 2 a 10 dias antes do ciclo."
                }
                error={errors.automaticCharges}
              >
                <select
                  value={values.automaticCharges ? "sim" : "nao"}
                  onChange={(event) => setValue("automaticCharges", event.target.value === "sim")}
                >
                  <option value="sim">Automáticas</option>
                  <option value="nao">Enviadas por mim</option>
                </select>
              </Field>
            ) : null}
          </fieldset>
          <fieldset className={ui.fieldset}>
            <legend>Autorização</legend>
            <Field
              label="Como o pagador autoriza"
              hint={journeyLabel[values.journey as Journey]}
              error={errors.initialPayment}
            >
              <select value={values.journey} onChange={set("journey")}>
                {(Object.keys(journeyLabel) as Journey[]).map((j) => (
                  <option key={j} value={j}>
                    {j === "JOURNEY_2" ? "Jornada 2: só autoriza" : "Jornada 3: paga agora e autoriza"}
                  </option>
                ))}
              </select>
            </Field>
            {journey3 ? (
              <TextField
                label="Valor da cobrança de agora (R$)"
                name="initialAmount"
                inputMode="decimal"
                placeholder={values.amount || "49,90"}
                hint="O pagador paga agora, e esse pagamento autoriza a recorrência."
                value={values.initialAmount}
                onChange={set("initialAmount")}
                error={error("initialAmount", "initialPayment.amountCents")}
              />
            ) : null}
          </fieldset>
          <FormError error={create.error} rest={rest} />
          <div className={ui.formActions}>
            <button type="submit" disabled={create.isPending}>
              {create.isPending ? "Criando…" : "Criar recorrência"}
            </button>
          </div>
        </form>
      </Card>
    </Page>
  );
}
