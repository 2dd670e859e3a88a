import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useSearchParams } from "react-router";
import { personLimits } from "../../../../generated/rules";
import type { Customer } from "../../api/types";
import { TextField } from "../../components/Field";
import { ErrorMessage, Loading } from "../../components/ui";
import { formatDocument, formatPhone } from "../../lib/format";
import { useMode } from "../../lib/useMode";
import { customerQueries } from "./queries";

// The payer of a charge, a charge with a due date or a recurrence, as the three forms ask for it:
// its fields, filled from the book's record, and the body's `customer`/`payer` built from them.

/** The payer's fields as typed. */
export interface PayerValues {
  name: string;
  email: string;
  phone: string;
  document: string;
}

/**
 * A payer's fields from the book's record, or empty for a new one: the document and the phone as
 * the rest of the app shows them (`529.982.247-25`, `(11) 98765-4321`); `payerBody` takes the
 * digits back.
 */
export const payerValues = (c: Customer | undefined): PayerValues => ({
  name: c?.name ?? "",
  email: c?.email ?? "",
  phone: c?.phone ? formatPhone(c.phone) : "",
  document: c?.document ? formatDocument(c.document) : "",
});

/** A CPF or CNPJ as the API takes it: digits (and a CNPJ's letters) only, upper case. */
export const documentDigits = (typed: string) => typed.replace(/[^0-9A-Za-z]/g, "").toUpperCase();

/** The request's payer from what was typed: trimmed, the phone's digits, the document's kind by its length. */
export function payerBody(values: PayerValues) {
  const document = documentDigits(values.document);
  return {
    name: values.name.trim(),
    email: values.email.trim(),
    phone: values.phone.replace(/\D/g, ""),
    documentType: document.length > 11 ? ("CNPJ" as const) : ("CPF" as const),
    document,
  };
}

/**
 * The payer's name, CPF or CNPJ (unless `withDocument` is false: the form asks for it elsewhere),
 * e-mail and mobile phone, each with its error under it.
 */
export function PayerFields(props: {
  values: PayerValues;
  onChange: (field: keyof PayerValues) => (event: { target: { value: string } }) => void;
  errorOf: (field: keyof PayerValues) => string | undefined;
  withDocument?: boolean;
}) {
  const { values, onChange, errorOf } = props;
  return (
    <>
      <TextField
        label="Nome completo"
        name="name"
        autoComplete="off"
        maxLength={personLimits.nameMax}
        value={values.name}
        onChange={onChange("name")}
        error={errorOf("name")}
      />
      {props.withDocument === false ? null : (
        <TextField
          label="CPF ou CNPJ"
          name="document"
          inputMode="numeric"
          autoComplete="off"
          value={values.document}
          onChange={onChange("document")}
          error={errorOf("document")}
        />
      )}
      <TextField
        label="E-mail"
        name="email"
        type="email"
        autoComplete="off"
        maxLength={personLimits.emailMax}
        value={values.email}
        onChange={onChange("email")}
        error={errorOf("email")}
      />
      <TextField
        label="Celular com DDD"
        name="phone"
        inputMode="tel"
        autoComplete="off"
        value={values.phone}
        onChange={onChange("phone")}
        error={errorOf("phone")}
      />
    </>
  );
}

/** Whether `id` reads as a customer's id (anything else in the address is not looked up). */
export const isCustomerId = (id: string | null): id is string => id !== null && /^cus_[A-Za-z0-9]{1,60}$/.test(id);

/**
 * A form opened from a customer's page (`?cliente=cus_…`): waits for that customer and renders the
 * form with it (keyed by it, so its fields start from the record); without one, the form empty.
 */
export function WithCustomerFromAddress(props: { children: (customer: Customer | undefined) => ReactNode }) {
  const mode = useMode();
  const [search] = useSearchParams();
  const customerId = search.get("cliente");
  const customer = useQuery({ ...customerQueries.one(mode, customerId ?? ""), enabled: isCustomerId(customerId) });
  if (customerId && customer.isPending) return <Loading label="Carregando o cliente…" />;
  if (customerId && customer.isError) return <ErrorMessage error={customer.error} />;
  return props.children(customer.data);
}
