import { brazilianStates, type CheckoutState } from "../domain/checkout.js";
import { formatBRL } from "../domain/deps.js";
import type { FieldError } from "../domain/errors.js";
import type { PaymentLinkRecord, TransactionRecord } from "../domain/model.js";
import { maskPixKey } from "../pix/documents.js";
import { Html, type HtmlPart, html } from "./html.js";

// Server-rendered pages of the hosted checkout, in Brazilian Portuguese. Mobile first; every value
// goes through `html`, which escapes it. No inline script or style: behaviour lives in
// assets/checkout.js (loaded with the request's CSP nonce), looks in assets/checkout.css.

/** What every page needs from the request. */
export interface PageFrame {
  nonce: string;
  /** Versioned addresses of our own stylesheet, script and icon. */
  assets: { css: string; js: string; icon: string };
}

/** Who is being paid, and in which mode: shown on every page of a link. */
export interface Payee {
  merchantName: string;
  testMode: boolean;
}

export const checkoutPath = (linkId: string) => `/checkout/${linkId}`;
export const chargePath = (linkId: string, transactionId: string) => `/checkout/${linkId}/t/${transactionId}`;

const brasilia = new Intl.DateTimeFormat("pt-BR", {
  timeZone: "America/Sao_Paulo",
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

/** "04/10/2026 às 12:30:00" in Brasília time. */
export function formatBrasiliaDateTime(iso: string): string {
  const parts = Object.fromEntries(brasilia.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${parts.day}/${parts.month}/${parts.year} às ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** "23:59:59" (hours may exceed 24). */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

function layout(frame: PageFrame, payee: Payee | null, title: string, body: Html): string {
  const page = html`<!doctype html>
    <html lang="pt-BR">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <meta name="color-scheme" content="light" />
        <title>${title}${payee ? ` · ${payee.merchantName}` : ""}</title>
        <link rel="icon" href="${frame.assets.icon}" type="image/svg+xml" />
        <link rel="stylesheet" href="${frame.assets.css}" />
        <script src="${frame.assets.js}" nonce="${frame.nonce}" defer></script>
      </head>
      <body>
        <a class="skip-link" href="#conteudo">Pular para o conteúdo</a>
        ${
          payee?.testMode
            ? html`<p class="test-banner"><strong>Modo de teste</strong> — nenhum dinheiro real é cobrado.</p>`
            : ""
        }
        <header class="top">
          <p class="payee">
            ${payee ? html`Pagamento para <strong>${payee.merchantName}</strong>` : "Pagamento via Pix"}
          </p>
        </header>
        <main id="conteudo" tabindex="-1">${body}</main>
        <footer class="bottom"><p>Pagamento via Pix processado com segurança.</p></footer>
      </body>
    </html> `;
  return page.value;
}

function summary(link: Pick<PaymentLinkRecord, "description" | "amountCents">): Html {
  return html`<section class="summary" aria-label="Resumo do pedido">
    <h1>${link.description}</h1>
    <p class="amount"><span class="visually-hidden">Valor: </span>${formatBRL(link.amountCents)}</p>
  </section>`;
}

/** The form's values as typed, by field name, to put back after an error. */
export type FormValues = Partial<Record<string, string>>;

interface FieldSpec {
  name: string;
  label: string;
  type?: "text" | "email" | "tel";
  autocomplete: string;
  inputmode?: "text" | "numeric" | "tel" | "email";
  maxlength: number;
  hint?: string;
  mask?: "document" | "phone" | "cep";
  required?: boolean;
  extra?: "uppercase";
}

/** Error paths of the domain (`address.zipCode`) to form field names (`zipCode`). */
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
      maxlength="${spec.maxlength}"
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
  { name: "name", label: "Nome completo", autocomplete: "name", maxlength: 120 },
  { name: "email", label: "E-mail", type: "email", autocomplete: "email", inputmode: "email", maxlength: 160 },
  {
    name: "phone",
    label: "Celular com DDD",
    type: "tel",
    autocomplete: "tel-national",
    inputmode: "tel",
    maxlength: 20,
    hint: "Exemplo: (11) 98765-4321",
    mask: "phone",
  },
  {
    name: "document",
    label: "CPF ou CNPJ",
    autocomplete: "off",
    maxlength: 18,
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
    maxlength: 9,
    hint: "Exemplo: 01310-100",
    mask: "cep",
  },
  { name: "street", label: "Rua", autocomplete: "address-line1", maxlength: 160 },
  { name: "number", label: "Número", autocomplete: "off", maxlength: 20 },
  { name: "complement", label: "Complemento", autocomplete: "address-line2", maxlength: 80, required: false },
  { name: "district", label: "Bairro", autocomplete: "address-level3", maxlength: 80 },
  { name: "city", label: "Cidade", autocomplete: "address-level2", maxlength: 80 },
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
  const labels = new Map([...payerFields, ...addressInputs].map((f) => [f.name, f.label]));
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
  const body = html`${summary(page.link)}
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

export interface PaymentPage {
  link: PaymentLinkRecord;
  transaction: TransactionRecord;
  payee: Payee;
  remainingSeconds: number;
  pollIntervalMs: number;
  /** Test mode only: the token of the "Simular pagamento" form. */
  simulateCsrfToken: string | null;
}

/** The Pix to pay: QR code, copy-and-paste code, amount, countdown; it watches for the payment. */
export function renderPaymentPage(frame: PageFrame, page: PaymentPage): string {
  const { link, transaction: t } = page;
  const path = chargePath(link.id, t.id);
  const amount = formatBRL(t.amountCents);
  const body = html`${summary(t)}
    <section
      class="card pix"
      aria-labelledby="titulo-pix"
      data-payment
      data-status-url="${path}/status"
      data-poll-ms="${page.pollIntervalMs}"
    >
      <h2 id="titulo-pix">Pague com Pix</h2>
      <p class="status" role="status" data-status-text>Aguardando pagamento…</p>
      <p class="countdown">
        Este código expira em
        <strong data-countdown data-remaining="${Math.floor(page.remainingSeconds)}"
          >${formatCountdown(page.remainingSeconds)}</strong
        >
      </p>
      <img
        class="qr"
        src="${path}/qr.png"
        width="240"
        height="240"
        alt="QR code do Pix de ${amount} para ${page.payee.merchantName}"
      />
      <ol class="steps">
        <li>Abra o app do seu banco e escolha pagar com Pix.</li>
        <li>Leia o QR code ou use o código Pix copia e cola.</li>
        <li>Confira os dados e confirme. Esta página se atualiza sozinha.</li>
      </ol>
      <label class="copy-label" for="pix-code">Pix copia e cola</label>
      <textarea id="pix-code" class="pix-code" readonly rows="5" spellcheck="false" data-copy-source>
${t.brCode}</textarea>
      <button type="button" class="button primary" data-copy hidden>Copiar código Pix</button>
      <p class="copy-status" role="status" data-copy-status></p>
      <p class="refresh"><a href="${path}">Já paguei: atualizar a página</a></p>
    </section>
    ${
      page.simulateCsrfToken !== null
        ? html`<section class="card sandbox" aria-labelledby="titulo-teste">
            <h2 id="titulo-teste">Modo de teste</h2>
            <p>Este link é de teste: nenhum Pix real será pago. Use o botão para simular o pagamento.</p>
            <form method="post" action="${path}/simulate">
              <input type="hidden" name="_csrf" value="${page.simulateCsrfToken}" />
              <button type="submit" class="button sandbox-button">Simular pagamento</button>
            </form>
          </section>`
        : ""
    }`;
  return layout(frame, page.payee, "Pague com Pix", body);
}

/** `returnUrl` with `svc_transaction_id` added; the query it already has is kept as it is. */
export function returnAddress(returnUrl: string, transactionId: string): string | null {
  let url: URL;
  try {
    url = new URL(returnUrl);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.searchParams.has("svc_transaction_id")) url.searchParams.set("svc_transaction_id", transactionId);
  else url.search = `${url.search ? `${url.search}&` : "?"}svc_transaction_id=${encodeURIComponent(transactionId)}`;
  return url.toString();
}

/** The receipt of a paid charge. */
export function renderReceiptPage(
  frame: PageFrame,
  page: { link: PaymentLinkRecord; transaction: TransactionRecord; payee: Payee },
): string {
  const { link, transaction: t } = page;
  const back = link.returnUrl ? returnAddress(link.returnUrl, t.id) : null;
  const firstName = (t.customer.name ?? "").split(" ")[0] ?? "";
  const row = (term: string, detail: HtmlPart) =>
    html`<div>
      <dt>${term}</dt>
      <dd>${detail}</dd>
    </div>`;
  const body = html`<section class="card receipt" aria-labelledby="titulo-recibo">
    <p class="receipt-mark" aria-hidden="true">✓</p>
    <h1 id="titulo-recibo">Pagamento confirmado</h1>
    <p class="lead">${firstName ? `Obrigado, ${firstName}! ` : ""}Seu Pix foi recebido.</p>
    <dl class="details">
      ${row("Valor", html`<span data-receipt-amount>${formatBRL(t.amountCents)}</span>`)}
      ${row("Data e hora", html`${t.paidAt ? formatBrasiliaDateTime(t.paidAt) : ""}<br /><span class="muted">(horário de Brasília)</span>`)}
      ${row("Descrição", t.description)} ${row("Recebedor", page.payee.merchantName)}
      ${row("Pagador", html`${t.customer.name}<br /><span class="muted">${t.customer.documentType} ${maskPixKey(t.customer.document, t.customer.documentType)}</span>`)}
      ${row("ID da transação", html`<code data-transaction-id>${t.id}</code>`)}
    </dl>
    ${back ? html`<a class="button primary" href="${back}" data-return>Voltar para a loja</a>` : ""}
    <p class="fine">Guarde este comprovante. O ID da transação identifica o pagamento junto ao vendedor.</p>
  </section>`;
  return layout(frame, page.payee, "Pagamento confirmado", body);
}

/** A charge that can no longer be paid: expired, cancelled or failed. */
export function renderChargeEndedPage(
  frame: PageFrame,
  page: {
    link: PaymentLinkRecord;
    transaction: TransactionRecord;
    payee: Payee;
    expired: boolean;
    linkOpen: boolean;
  },
): string {
  const { link, transaction: t } = page;
  const body = html`${summary(t)}
    <section class="card notice" aria-labelledby="titulo-aviso">
      <h2 id="titulo-aviso">${page.expired ? "Este Pix expirou" : "Esta cobrança não pode mais ser paga"}</h2>
      <p>
        ${page.expired ? `O prazo para pagar terminou em ${formatBrasiliaDateTime(t.expiresAt)}.` : "Ela foi cancelada ou não pôde ser processada."}
        Nenhum valor foi cobrado.
      </p>
      ${page.linkOpen ? html`<a class="button primary" href="${checkoutPath(link.id)}">Gerar um novo Pix</a>` : ""}
    </section>`;
  return layout(frame, page.payee, page.expired ? "Pix expirado" : "Cobrança encerrada", body);
}

const closedTexts: Record<Exclude<CheckoutState, "open">, { title: string; text: string }> = {
  unavailable: {
    title: "Link de pagamento indisponível",
    text: "Este link foi desativado pelo vendedor e não aceita novos pagamentos. Fale com quem enviou o link.",
  },
  exhausted: {
    title: "Link de pagamento esgotado",
    text: "Este link já recebeu o número máximo de pagamentos e não aceita novos pagamentos.",
  },
  expired: {
    title: "Link de pagamento expirado",
    text: "O prazo deste link terminou e ele não aceita mais pagamentos. Fale com quem enviou o link.",
  },
};

/** A link that takes no new payer: deactivated ("indisponível"), exhausted ("esgotado") or expired. */
export function renderClosedPage(
  frame: PageFrame,
  page: { link: PaymentLinkRecord; payee: Payee; state: Exclude<CheckoutState, "open"> },
): string {
  const { title, text } = closedTexts[page.state];
  const when =
    page.state === "expired" && page.link.expiresAt
      ? ` Expirou em ${formatBrasiliaDateTime(page.link.expiresAt)}.`
      : "";
  const body = html`<section class="card notice" aria-labelledby="titulo-aviso" data-link-state="${page.state}">
    <h1 id="titulo-aviso">${title}</h1>
    <p>${text}${when}</p>
    <p class="muted">${page.link.description} · ${formatBRL(page.link.amountCents)}</p>
  </section>`;
  return layout(frame, page.payee, title, body);
}

/** A short message page: not found, refused, too many requests, failure. */
export function renderMessagePage(
  frame: PageFrame,
  page: { title: string; text: string; payee?: Payee | null; action?: { href: string; label: string } },
): string {
  const body = html`<section class="card notice" aria-labelledby="titulo-aviso">
    <h1 id="titulo-aviso">${page.title}</h1>
    <p>${page.text}</p>
    ${page.action ? html`<a class="button primary" href="${page.action.href}">${page.action.label}</a>` : ""}
  </section>`;
  return layout(frame, page.payee ?? null, page.title, body);
}
