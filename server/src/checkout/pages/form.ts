import { formatBRL } from "../../domain/core/money.js";
import type { FieldError } from "../../domain/core/errors.js";
import type { PaymentLinkRecord } from "../../domain/core/model.js";
import { brazilianStates, checkoutFieldLengths } from "../../domain/core/policy.js";
import { checkoutPath } from "../paths.js";
import { type Html, html } from "../html.js";
import { layout, merchantLine, type PageFrame, type Payee, summary } from "./layout.js";

/** The form's values as typed, by field name, to put back after an error. */
export type FormValues = Partial<Record<string, string>>;

interface FieldSpec {
  /** The field's name, which also names its `maxlength`: what the API takes for it (generated from the spec). */
  name: keyof typeof checkoutFieldLengths;
  label: string;
  type?: "text" | "email" | "tel";
  autocomplete: string;
  inputmode?: "text" | "numeric" | "tel" | "email";
  hint?: string;
  mask?: "document" | "phone" | "cep";
  required?: boolean;
  extra?: "uppercase";
}

/** Error paths of the payer (`address.zipCode`) to form field names (`zipCode`). */
const fieldOf = (path: string) => path.replace(/^address\./, "");

function inputField(spec: FieldSpec, values: FormValues, errors: Map<string, string>): Html {
  const id = `f-${spec.name}`;
  const error = errors.get(spec.name);
  const describedBy = [spec.hint ? `${id}-hint` : "", `${id}-error`].filter(Boolean).join(" ");
  const required = spec.required ?? true;
  return html`<div class="field${error ? " has-error" : ""}">
    <label for="${id}">${spec.label}${required ? "" : html` <span class="optional">(opcional)</span>`}</label>
    ${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ""}
    <p class="field-error" id="${id}-error" ${error ? "" : html` hidden`}>${error ?? ""}</p>
    <input
      id="${id}"
      name="${spec.name}"
      type="${spec.type ?? "text"}"
      value="${values[spec.name] ?? ""}"
      autocomplete="${spec.autocomplete}"
      ${spec.inputmode ? html` inputmode="${spec.inputmode}"` : ""}
      maxlength="${checkoutFieldLengths[spec.name]}"
      aria-describedby="${describedBy}"
      ${required ? html` required` : ""}${error ? html` aria-invalid="true"` : ""}${spec.mask ? html` data-mask="${spec.mask}"` : ""}${spec.extra === "uppercase" ? html` autocapitalize="characters" spellcheck="false"` : ""}
    />
  </div>`;
}

function stateField(values: FormValues, errors: Map<string, string>): Html {
  const error = errors.get("state");
  const current = (values.state ?? "").toUpperCase();
  return html`<div class="field${error ? " has-error" : ""}">
    <label for="f-state">Estado</label>
    <p class="field-error" id="f-state-error" ${error ? "" : html` hidden`}>${error ?? ""}</p>
    <select
      id="f-state"
      name="state"
      autocomplete="address-level1"
      aria-describedby="f-state-error"
      required${error ? html` aria-invalid="true"` : ""}
    >
      <option value="">Selecione</option>
      ${brazilianStates.map((uf) => html`<option value="${uf}" ${uf === current ? html` selected` : ""}>${uf}</option>`)}
    </select>
  </div>`;
}

const payerFields: FieldSpec[] = [
  { name: "name", label: "Nome completo", autocomplete: "name" },
  { name: "email", label: "E-mail", type: "email", autocomplete: "email", inputmode: "email" },
  {
    name: "phone",
    label: "Celular com DDD",
    type: "tel",
    autocomplete: "tel-national",
    inputmode: "tel",
    hint: "Exemplo: (11) 98765-4321",
    mask: "phone",
  },
  {
    name: "document",
    label: "CPF ou CNPJ",
    autocomplete: "off",
    hint: "CPF com 11 dígitos ou CNPJ com 14 caracteres.",
    mask: "document",
    extra: "uppercase",
  },
];

const addressInputs: FieldSpec[] = [
  {
    name: "zipCode",
    label: "CEP",
    autocomplete: "postal-code",
    inputmode: "numeric",
    hint: "Exemplo: 01310-100",
    mask: "cep",
  },
  { name: "street", label: "Rua", autocomplete: "address-line1" },
  { name: "number", label: "Número", autocomplete: "off" },
  { name: "complement", label: "Complemento", autocomplete: "address-line2", required: false },
  { name: "district", label: "Bairro", autocomplete: "address-level3" },
  { name: "city", label: "Cidade", autocomplete: "address-level2" },
];

export interface FormPage {
  link: PaymentLinkRecord;
  payee: Payee;
  csrfToken: string;
  submissionToken: string;
  values?: FormValues;
  errors?: FieldError[];
}

/** The payer's form: their data, and the address when the link asks for it. */
export function renderFormPage(frame: PageFrame, page: FormPage): string {
  const values = page.values ?? {};
  const errors = new Map<string, string>();
  for (const e of page.errors ?? []) if (!errors.has(fieldOf(e.path))) errors.set(fieldOf(e.path), e.message);
  const labels = new Map<string, string>([...payerFields, ...addressInputs].map((f) => [f.name, f.label]));
  labels.set("state", "Estado");
  const errorSummary = html`<div
    class="error-summary"
    id="resumo-erros"
    tabindex="-1"
    role="alert"
    ${errors.size > 0 ? "" : html` hidden`}
  >
    <h2>Confira os dados abaixo</h2>
    <ul>
      ${[...errors].map(([name, message]) => html`<li><a href="#f-${name}">${labels.get(name) ?? name}: ${message}</a></li>`)}
    </ul>
  </div>`;
  const body = html`${summary(page.link)} ${merchantLine(page.payee)}
    <form class="card" method="post" action="${checkoutPath(page.link.id)}" novalidate data-checkout-form>
      ${errorSummary}
      <input type="hidden" name="_csrf" value="${page.csrfToken}" />
      <input type="hidden" name="submission" value="${page.submissionToken}" />
      <h2>Seus dados</h2>
      ${payerFields.map((f) => inputField(f, values, errors))}
      ${
        page.link.askAddress
          ? html`<fieldset class="address">
              <legend>Endereço</legend>
              ${addressInputs.map((f) => inputField(f, values, errors))} ${stateField(values, errors)}
            </fieldset>`
          : ""
      }
      <button type="submit" class="button primary" data-submit>Gerar Pix de ${formatBRL(page.link.amountCents)}</button>
      <p class="fine">Na próxima tela você verá o QR code e o código Pix copia e cola.</p>
    </form>`;
  return layout(frame, page.payee, "Pagamento", body);
}
