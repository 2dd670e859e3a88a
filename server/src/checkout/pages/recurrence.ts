import { formatBRL } from "../../domain/core/money.js";
import type { RecurrencePage } from "../../domain/payments/index.js";
import { type HtmlPart, html } from "../html.js";
import { recurrencePath } from "../paths.js";
import { formatBrasiliaDateTime } from "../../domain/core/time.js";
import { layout, merchantDocumentLabel, type PageFrame, type Payee } from "./layout.js";

// The hosted page of a recurrence (Pix Automático): the terms the payer authorises, in Portuguese,
// and, while it waits for approval, the QR code to read in their bank app.

const periods = {
  WEEKLY: { name: "Semanal", each: "por semana" },
  MONTHLY: { name: "Mensal", each: "por mês" },
  QUARTERLY: { name: "Trimestral", each: "por trimestre" },
  SEMIANNUAL: { name: "Semestral", each: "por semestre" },
  ANNUAL: { name: "Anual", each: "por ano" },
} as const;

/** "04/11/2026" of a calendar date `2026-11-04`. */
const formatDate = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`;

const outcomes = {
  APPROVED: { title: "Autorização confirmada", text: "Os débitos seguirão os termos abaixo, no app do seu banco." },
  REJECTED: { title: "Autorização recusada", text: "Esta autorização foi recusada: nenhum débito será feito." },
  EXPIRED: {
    title: "Prazo de autorização encerrado",
    text: "Este QR code não vale mais. Peça um novo ao recebedor se ainda quiser autorizar.",
  },
  CANCELLED: { title: "Autorização cancelada", text: "Esta autorização foi cancelada: nenhum novo débito será feito." },
} as const;

export function renderRecurrencePage(frame: PageFrame, page: RecurrencePage & { payee: Payee }): string {
  const { recurrence: r, status, payee } = page;
  const period = periods[r.periodicity];
  const document = merchantDocumentLabel(payee);
  const row = (term: string, detail: HtmlPart) =>
    html`<div>
      <dt>${term}</dt>
      <dd>${detail}</dd>
    </div>`;
  const amount =
    r.amountCents !== null
      ? `${formatBRL(r.amountCents)} ${period.each}`
      : r.minimumAmountCents !== null
        ? `Variável a cada cobrança; você define um limite máximo de pelo menos ${formatBRL(r.minimumAmountCents)}`
        : "Variável a cada cobrança; você pode definir um limite máximo no app do seu banco";
  const retries =
    r.retryPolicy === "RETRY_3_IN_7_DAYS"
      ? "Se um débito não for feito (por saldo insuficiente, por exemplo), até 3 novas tentativas em dias seguintes, dentro de 7 dias."
      : "Sem novas tentativas: um débito que não for feito não é repetido.";
  const terms = html`<section class="card" aria-labelledby="titulo-termos">
    <h2 id="titulo-termos">O que você autoriza</h2>
    <dl class="details" data-terms>
      ${row("Recebedor", document ? html`${payee.merchantName}<br /><span class="muted">${document}</span>` : payee.merchantName)}
      ${row("Objeto", r.description)} ${row("Contrato", r.contractReference)} ${row("Periodicidade", period.name)}
      ${row("Valor", amount)} ${row("Primeira cobrança", formatDate(r.firstDate))}
      ${row("Última cobrança", r.lastDate ? formatDate(r.lastDate) : "Sem data final")}
      ${row("Novas tentativas", retries)}
      ${page.initialPayment ? row("Pagamento agora", `${formatBRL(page.initialPayment.amountCents)}: ao pagá-lo, você autoriza os débitos acima.`) : ""}
    </dl>
    <p class="fine">
      Cada cobrança aparece no app do seu banco antes do débito, e você pode cancelá-la até o dia anterior. A
      autorização pode ser cancelada a qualquer momento no app do seu banco.
    </p>
  </section>`;
  const path = recurrencePath(r.id);
  const body =
    status === "CREATED"
      ? html`<section class="summary" aria-label="Resumo da autorização">
            <h1>${r.description}</h1>
            <p class="amount">${amount}</p>
          </section>
          <section class="card pix" aria-labelledby="titulo-pix" data-recurrence>
            <h2 id="titulo-pix">Autorize no app do seu banco</h2>
            <img
              class="qr"
              src="${path}/qr.png"
              width="240"
              height="240"
              alt="QR code da autorização de Pix Automático para ${payee.merchantName}"
            />
            <ol class="steps">
              <li>Abra o app do seu banco e escolha ler um QR code Pix.</li>
              <li>Confira os termos abaixo e confirme a autorização${page.initialPayment ? " e o pagamento" : ""}.</li>
            </ol>
            <label class="copy-label" for="pix-code">Pix copia e cola</label>
            <textarea id="pix-code" class="pix-code" readonly rows="5" spellcheck="false" data-copy-source>
${r.brCode}</textarea>
            <button type="button" class="button primary" data-copy hidden>Copiar código Pix</button>
            <p class="copy-status" role="status" data-copy-status></p>
            <p class="fine">Válido até ${formatBrasiliaDateTime(r.expiresAt)} (horário de Brasília).</p>
          </section>
          ${terms}`
      : html`<section class="card" aria-labelledby="titulo-estado" data-recurrence-status="${status}">
            <h1 id="titulo-estado">${outcomes[status].title}</h1>
            <p class="lead">${outcomes[status].text}</p>
          </section>
          ${terms}`;
  return layout(frame, payee, "Autorizar Pix Automático", body);
}
