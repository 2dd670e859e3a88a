import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useNavigate } from "react-router";
import { descriptionLength } from "../../../../generated/rules";
import type { components } from "../../../../generated/dashboard-api";
import { fieldErrors } from "../../api/errors";
import type { Customer } from "../../api/types";
import { type Column, DataTable } from "../../components/DataTable";
import { DateField, parseDay } from "../../components/DateRangeFilter";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { Badge, Card, Loading, Page, ui } from "../../components/ui";
import { formatDay, formatMoney } from "../../lib/format";
import { useMode, useModePath } from "../../lib/useMode";
import { customerQueries } from "../customers/queries";
import { PayerFields, WithCustomerFromAddress, documentDigits, payerBody, payerValues } from "../customers/payer";
import { useCreateDueDateCharge, usePreviewDueDateCharge } from "./queries";
import {
  type DiscountMode,
  type InterestMode,
  type TermsField,
  type TermsForm,
  discountModeLabel,
  dueDateLimits,
  emptyTermsForm,
  flatModeLabel,
  hasDates,
  interestModeLabel,
  takesAmount,
  termsFieldOf,
  termsFromForm,
} from "./terms";
import styles from "./NewDueDateCharge.module.css";

type Preview = components["schemas"]["DueDateChargePreview"];
type PreviewAmount = Preview["amounts"][number];

/** The server's field paths the form shows under a field (the payer's and the description; the terms' through `termsFieldOf`). */
const payerPaths = ["customer.name", "customer.email", "customer.phone", "customer.document", "description"];

const kindLabel: Record<PreviewAmount["kind"], string> = {
  TODAY: "Hoje",
  DUE_DATE: "No vencimento",
  WEEK_AFTER_DUE_DATE: "7 dias após o vencimento",
  CHOSEN: "Data escolhida",
};

/** A new charge with a due date: from Transações or a customer's page (`?cliente=cus_…`, its data filled in). */
export function NewDueDateCharge() {
  return (
    <WithCustomerFromAddress>
      {(customer) => <DueDateChargeForm key={customer?.id ?? "novo"} customer={customer} />}
    </WithCustomerFromAddress>
  );
}

function DueDateChargeForm(props: { customer: Customer | undefined }) {
  const mode = useMode();
  const to = useModePath();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useCreateDueDateCharge(mode);
  const preview = usePreviewDueDateCharge();
  const c = props.customer;
  const [payer, setPayer] = useState({ ...payerValues(c), description: "" });
  const [form, setForm] = useState<TermsForm>(emptyTermsForm);
  const [chosenDate, setChosenDate] = useState("");
  const [typedPayer, setTypedPayer] = useState<Record<string, string>>({});
  const [lookup, setLookup] = useState<string | null>(null);
  const setTerm = (field: TermsField) => (event: { target: { value: string } }) =>
    setForm((current) => ({ ...current, [field]: event.target.value }));
  const setDay = (field: TermsField) => (text: string) => setForm((current) => ({ ...current, [field]: text }));
  const setPayerField = (field: keyof typeof payer) => (event: { target: { value: string } }) =>
    setPayer((current) => ({ ...current, [field]: event.target.value }));

  const { terms, wrong } = termsFromForm(form);
  const chosen = chosenDate.trim() ? parseDay(chosenDate) : null;
  const chosenWrong = chosenDate.trim() && chosen === null ? "digite uma data como 13/12/2030" : undefined;
  const body = terms ? { ...terms, ...(chosen ? { paymentDates: [chosen] } : {}) } : null;
  const asked = body ? JSON.stringify(body) : null;

  // The preview follows what is typed: asked once the terms read whole, 500 ms after the last key.
  const { mutate: ask, reset: forget } = preview;
  useEffect(() => {
    if (asked === null) return forget();
    const timer = setTimeout(() => ask({ params: { path: { mode } }, body: JSON.parse(asked) }), 500);
    return () => clearTimeout(timer);
  }, [asked, mode, ask, forget]);

  // The server's refusals under their fields: the creation's once sent, else the preview's.
  const error = create.error ?? preview.error;
  const byTerm: Partial<Record<TermsField | "chosenDate", string>> = {};
  const { byField, rest } = fieldErrors(error, [
    ...payerPaths,
    "amountCents",
    "dueDate",
    "daysPayableAfterDue",
    "fine",
    "interest",
    "rebate",
    "discount",
    "paymentDates",
  ]);
  for (const [path, message] of Object.entries(byField)) {
    if (payerPaths.includes(path)) continue;
    // `fieldErrors` keeps the root of a nested path; the whole path is in the error's list.
    const problem = (error as { errors?: { path: string }[] } | null)?.errors?.find(
      (p) => p.path === path || p.path.startsWith(`${path}.`),
    );
    const field = termsFieldOf(problem?.path ?? path);
    if (field && byTerm[field] === undefined) byTerm[field] = message;
  }
  const termError = (field: TermsField) => wrong[field] ?? byTerm[field];
  const payerError = (field: string) =>
    typedPayer[field] ?? byField[field === "description" ? field : `customer.${field}`];
  const shownPreview = preview.data && asked !== null ? preview.data : null;

  return (
    <Page
      title="Nova cobrança com vencimento"
      subtitle="Pix Cobrança, o substituto do boleto: o valor muda com o dia do pagamento."
    >
      <p>
        <Link to={to("transacoes")}>← Transações</Link>
      </p>
      <form
        className={styles.form}
        noValidate
        aria-label="Nova cobrança com vencimento"
        onSubmit={(event) => {
          event.preventDefault();
          const missing: Record<string, string> = {};
          if (!form.amount.trim()) missing.amount = "informe o valor";
          if (!form.dueDate.trim()) missing.dueDate = "informe o vencimento";
          setTypedPayer(missing);
          if (!terms || Object.keys(missing).length > 0) return;
          create.mutate(
            {
              params: { path: { mode }, header: { "idempotency-key": crypto.randomUUID() } },
              body: {
                ...terms,
                description: payer.description.trim(),
                customer: payerBody(payer),
              },
            },
            { onSuccess: (made) => navigate(to(`transacoes/${made.id}`)) },
          );
        }}
      >
        <Card title="Pagador" id="pagador">
          <div className={styles.pair}>
            <TextField
              label="CPF ou CNPJ"
              name="document"
              inputMode="numeric"
              autoComplete="off"
              value={payer.document}
              onChange={setPayerField("document")}
              hint="Com ou sem pontuação; os dígitos verificadores são conferidos."
              error={payerError("document") ?? lookup ?? undefined}
            />
            <div className={styles.lookup}>
              <button
                type="button"
                className="secondary"
                onClick={async () => {
                  const document = documentDigits(payer.document);
                  if (document.length < 11) return setLookup("digite o CPF ou CNPJ inteiro para buscar");
                  try {
                    const found = await queryClient.fetchQuery(customerQueries.list(mode, { limit: 1 }, document));
                    const match = found.data[0];
                    if (!match) return setLookup("nenhum cliente com este documento: preencha os dados abaixo");
                    setLookup(null);
                    setPayer((current) => ({
                      ...current,
                      name: match.name ?? current.name,
                      email: match.email ?? current.email,
                      phone: match.phone ?? current.phone,
                    }));
                  } catch {
                    setLookup("não foi possível buscar no cadastro agora");
                  }
                }}
              >
                Buscar no cadastro de clientes
              </button>
            </div>
          </div>
          <div className={styles.fields}>
            <PayerFields values={payer} onChange={setPayerField} errorOf={payerError} withDocument={false} />
          </div>
        </Card>

        <Card title="Cobrança" id="cobranca">
          <div className={styles.fields}>
            <TextField
              label="Descrição"
              name="description"
              maxLength={descriptionLength.max}
              hint="O pagador vê esta descrição."
              value={payer.description}
              onChange={setPayerField("description")}
              error={payerError("description")}
            />
            <TextField
              label="Valor (R$)"
              name="amount"
              inputMode="decimal"
              placeholder="500,00"
              value={form.amount}
              onChange={setTerm("amount")}
              error={typedPayer.amount ?? termError("amount")}
            />
            <DateField
              label="Vencimento"
              value={form.dueDate}
              onChange={setDay("dueDate")}
              hint="dd/mm/aaaa. Num sábado, domingo ou feriado, vale o próximo dia útil."
              error={typedPayer.dueDate ?? termError("dueDate")}
            />
            <TextField
              label="Dias para pagar após o vencimento"
              name="daysPayableAfterDue"
              inputMode="numeric"
              hint={`De 0 a ${dueDateLimits.maxDaysPayableAfterDue} dias corridos; depois, a cobrança expira.`}
              value={form.daysPayableAfterDue}
              onChange={setTerm("daysPayableAfterDue")}
              error={termError("daysPayableAfterDue")}
            />
          </div>
        </Card>

        <Card title="Multa e juros por atraso" id="atraso">
          <div className={styles.pair}>
            <Field label="Multa" error={termError("fineMode")}>
              <select value={form.fineMode} onChange={setTerm("fineMode")}>
                <option value="">Sem multa</option>
                <option value="PERCENTAGE">{flatModeLabel.PERCENTAGE}</option>
                <option value="FIXED">{flatModeLabel.FIXED}</option>
              </select>
            </Field>
            {form.fineMode ? (
              <TextField
                label={form.fineMode === "FIXED" ? "Multa (R$)" : "Multa (%)"}
                name="fineValue"
                inputMode="decimal"
                placeholder={form.fineMode === "FIXED" ? "10,00" : "2"}
                hint="Cobrada uma vez, se pago depois do vencimento."
                value={form.fineValue}
                onChange={setTerm("fineValue")}
                error={termError("fineValue")}
              />
            ) : null}
          </div>
          <div className={styles.pair}>
            <Field label="Juros" error={termError("interestMode")}>
              <select value={form.interestMode} onChange={setTerm("interestMode")}>
                <option value="">Sem juros</option>
                {(Object.keys(interestModeLabel) as InterestMode[]).map((m) => (
                  <option key={m} value={m}>
                    {interestModeLabel[m]}
                  </option>
                ))}
              </select>
            </Field>
            {form.interestMode ? (
              <TextField
                label={takesAmount(form.interestMode) ? "Juros (R$ por dia)" : "Juros (%)"}
                name="interestValue"
                inputMode="decimal"
                placeholder={takesAmount(form.interestMode) ? "0,50" : "1"}
                value={form.interestValue}
                onChange={setTerm("interestValue")}
                error={termError("interestValue")}
              />
            ) : null}
          </div>
        </Card>

        <Card title="Desconto e abatimento" id="desconto">
          <div className={styles.pair}>
            <Field label="Desconto por pagar antes" error={termError("discountMode")}>
              <select value={form.discountMode} onChange={setTerm("discountMode")}>
                <option value="">Sem desconto</option>
                {(Object.keys(discountModeLabel) as DiscountMode[]).map((m) => (
                  <option key={m} value={m}>
                    {discountModeLabel[m]}
                  </option>
                ))}
              </select>
            </Field>
            {form.discountMode && !hasDates(form.discountMode) ? (
              <TextField
                label={takesAmount(form.discountMode) ? "Desconto por dia (R$)" : "Desconto por dia (%)"}
                name="discountValue"
                inputMode="decimal"
                value={form.discountValue}
                onChange={setTerm("discountValue")}
                error={termError("discountValue")}
              />
            ) : null}
          </div>
          <div className={styles.pair}>
            <Field label="Abatimento" error={termError("rebateMode")}>
              <select value={form.rebateMode} onChange={setTerm("rebateMode")}>
                <option value="">Sem abatimento</option>
                <option value="FIXED">{flatModeLabel.FIXED}</option>
                <option value="PERCENTAGE">{flatModeLabel.PERCENTAGE}</option>
              </select>
            </Field>
            {form.rebateMode ? (
              <TextField
                label={form.rebateMode === "FIXED" ? "Abatimento (R$)" : "Abatimento (%)"}
                name="rebateValue"
                inputMode="decimal"
                hint="Sempre descontado, em qualquer data."
                value={form.rebateValue}
                onChange={setTerm("rebateValue")}
                error={termError("rebateValue")}
              />
            ) : null}
          </div>
          {form.discountMode && hasDates(form.discountMode) ? (
            <fieldset className={styles.dates}>
              <legend>Datas do desconto: até o vencimento; numa data mais tarde, desconto igual ou menor</legend>
              <div>
                {([0, 1, 2] as const).map((i) => (
                  <div key={i} className={styles.pair}>
                    <DateField
                      label={`Até (${i + 1}ª data)`}
                      value={form[`discountDate${i}`]}
                      onChange={setDay(`discountDate${i}`)}
                      error={termError(`discountDate${i}`)}
                    />
                    <TextField
                      label={
                        takesAmount(form.discountMode)
                          ? `Desconto da ${i + 1}ª data (R$)`
                          : `Desconto da ${i + 1}ª data (%)`
                      }
                      inputMode="decimal"
                      value={form[`discountValue${i}`]}
                      onChange={setTerm(`discountValue${i}`)}
                      error={termError(`discountValue${i}`)}
                    />
                  </div>
                ))}
              </div>
            </fieldset>
          ) : null}
        </Card>

        <Card title="Prévia do valor devido" id="previa">
          <p className={ui.hint}>
            Calculada pelo servidor, como a cobrança será calculada no dia do pagamento. Nada é criado até você
            confirmar.
          </p>
          <div className={styles.fields}>
            <DateField
              label="Ver também em"
              value={chosenDate}
              onChange={setChosenDate}
              hint="dd/mm/aaaa: uma data de pagamento à sua escolha."
              error={chosenWrong ?? byTerm.chosenDate}
            />
          </div>
          {asked === null ? (
            <p>Preencha o valor e o vencimento para ver quanto o pagador pagará em cada data.</p>
          ) : preview.isPending && !shownPreview ? (
            <Loading label="Calculando…" />
          ) : shownPreview ? (
            <PreviewTable preview={shownPreview} stale={preview.isPending} />
          ) : null}
        </Card>

        <FormError
          error={error}
          rest={rest.filter((p) => termsFieldOf(p.path) === null && !payerPaths.includes(p.path))}
        />
        <div className={ui.formActions}>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Criando…" : "Criar cobrança"}
          </button>
        </div>
      </form>
    </Page>
  );
}

/** The amount due on each date of the preview, with what makes it up. */
function PreviewTable(props: { preview: Preview; stale: boolean }) {
  const { preview } = props;
  const columns: Column<PreviewAmount>[] = [
    {
      header: "Pago em",
      cell: (a) => (
        <span>
          <strong>{kindLabel[a.kind]}</strong> {formatDay(a.paymentDate)}
        </span>
      ),
    },
    { header: "Desconto", numeric: true, cell: (a) => (a.discountCents ? `− ${formatMoney(a.discountCents)}` : "—") },
    { header: "Multa", numeric: true, cell: (a) => (a.fineCents ? `+ ${formatMoney(a.fineCents)}` : "—") },
    { header: "Juros", numeric: true, cell: (a) => (a.interestCents ? `+ ${formatMoney(a.interestCents)}` : "—") },
    {
      essential: true,
      header: "Valor devido",
      numeric: true,
      cell: (a) => (a.payable ? <strong>{formatMoney(a.finalCents)}</strong> : <Badge tone="neutral">Expirada</Badge>),
    },
    { header: "Você recebe", numeric: true, cell: (a) => (a.payable ? formatMoney(a.netAmountCents) : "—") },
  ];
  return (
    <div aria-busy={props.stale}>
      <p>
        Vence em <strong>{formatDay(preview.adjustedDueDate)}</strong>; pagável até{" "}
        <strong>{formatDay(preview.lastPayableDate)}</strong>.
        {preview.amounts.some((a) => a.rebateCents > 0)
          ? ` Abatimento de ${formatMoney(preview.amounts[0]?.rebateCents ?? 0)} em todas as datas.`
          : ""}
      </p>
      <DataTable
        caption="Valor devido por data"
        columns={columns}
        rows={preview.amounts}
        rowKey={(a) => `${a.kind}-${a.paymentDate}`}
      />
    </div>
  );
}
