import { formatBRL } from "../../domain/core/money.js";
import type { Schemas } from "../../domain/core/model.js";
import { formatBrasiliaDateTime } from "../../domain/core/time.js";
import { type HtmlPart, html } from "../html.js";
import { dueDateChargePath } from "../paths.js";
import { layout, merchantDocumentLabel, type PageFrame, type Payee } from "./layout.js";

// The hosted page of a charge with a due date (issue 38): the due date, the amount due today and
// its breakdown in Portuguese ("multa", "juros", "desconto até 10/12"), and while it waits for
// payment the QR code of today's amount; once paid, the receipt with the breakdown paid.

/** "13/12/2030" of a calendar date `2030-12-13`. */
const formatDate = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`;
/** "10/12" of a calendar date `2030-12-10`. */
const dayMonth = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}`;

const closed = {
  EXPIRED: {
    title: "Prazo de pagamento encerrado",
    text: "Esta cobrança não pode mais ser paga. Fale com o recebedor se ainda quiser pagar.",
  },
  CANCELLED: { title: "Cobrança cancelada", text: "Esta cobrança foi cancelada pelo recebedor: nada a pagar." },
  FAILED: { title: "Cobrança indisponível", text: "Esta cobrança não pôde ser gerada. Fale com o recebedor." },
} as const;

/** The breakdown's lines: only the components that are not zero, then the total. */
function breakdownRows(due: Schemas["AmountDue"], row: (term: string, detail: HtmlPart) => HtmlPart, total: string) {
  const days = (n: number) => (n === 1 ? "1 dia" : `${n} dias`);
  return html`${row("Valor original", formatBRL(due.originalCents))}
  ${due.rebateCents > 0 ? row("Abatimento", `− ${formatBRL(due.rebateCents)}`) : ""}
  ${due.discountCents > 0 ? row(due.discountUntil ? `Desconto até ${dayMonth(due.discountUntil)}` : "Desconto", `− ${formatBRL(due.discountCents)}`) : ""}
  ${due.fineCents > 0 ? row("Multa", `+ ${formatBRL(due.fineCents)}`) : ""}
  ${due.interestCents > 0 ? row(`Juros (${days(due.interestDays)})`, `+ ${formatBRL(due.interestCents)}`) : ""}
  ${row(total, html`<strong data-amount-due>${formatBRL(due.finalCents)}</strong>`)}`;
}

export function renderDueDateChargePage(
  frame: PageFrame,
  page: {
    transaction: Schemas["Transaction"] & { dueDateCharge: Schemas["DueDateCharge"] };
    payee: Payee;
    /** Test mode, while it waits for payment: the token of "Simular pagamento"; null otherwise. */
    simulateCsrfToken: string | null;
  },
): string {
  const { transaction: t, payee } = page;
  const { dueDateCharge: d } = t;
  const document = merchantDocumentLabel(payee);
  const row = (term: string, detail: HtmlPart) =>
    html`<div>
      <dt>${term}</dt>
      <dd>${detail}</dd>
    </div>`;
  const moved = d.adjustedDueDate !== d.terms.dueDate;
  const terms = html`<dl class="details" data-due-date-terms>
    ${row("Recebedor", document ? html`${payee.merchantName}<br /><span class="muted">${document}</span>` : payee.merchantName)}
    ${row("Descrição", t.description)}
    ${row("Vencimento", moved ? `${formatDate(d.terms.dueDate)} (dia não útil: vale ${formatDate(d.adjustedDueDate)})` : formatDate(d.adjustedDueDate))}
    ${row("Pagável até", formatDate(d.lastPayableDate))}
  </dl>`;
  const due = d.amountDue;
  let body: HtmlPart;
  if (t.status === "PAID" && due) {
    body = html`<section class="card receipt" aria-labelledby="titulo-recibo" data-due-date-status="PAID">
      <p class="receipt-mark" aria-hidden="true">✓</p>
      <h1 id="titulo-recibo">Pagamento confirmado</h1>
      <p class="lead">
        Pago em
        ${formatDate(due.paymentDate)}${t.paidAt ? ` (${formatBrasiliaDateTime(t.paidAt)}, horário de Brasília)` : ""}.
      </p>
      <dl class="details" data-breakdown>${breakdownRows(due, row, "Valor pago")}</dl>
      ${terms}
      <p class="fine">Guarde este comprovante. ID da transação: <code data-transaction-id>${t.id}</code></p>
    </section>`;
  } else if (t.status === "WAITING_PAYMENT" && due) {
    const late = due.daysLate > 0;
    body = html`<section class="summary" aria-label="Resumo da cobrança">
        <h1>${t.description}</h1>
        <p class="amount">${formatBRL(due.finalCents)}</p>
        <p class="lead">
          ${late ? `Vencida há ${due.daysLate === 1 ? "1 dia" : `${due.daysLate} dias`}: valor de hoje com multa e juros.` : "Valor para pagamento hoje."}
        </p>
      </section>
      <section class="card" aria-labelledby="titulo-valor">
        <h2 id="titulo-valor">Valor de hoje (${formatDate(due.paymentDate)})</h2>
        <dl class="details" data-breakdown>${breakdownRows(due, row, "Total hoje")}</dl>
        ${terms}
      </section>
      <section class="card pix" aria-labelledby="titulo-pix" data-due-date-charge>
        <h2 id="titulo-pix">Pague com Pix</h2>
        <img
          class="qr"
          src="${dueDateChargePath(t.id)}/qr.png"
          width="240"
          height="240"
          alt="QR code Pix de ${formatBRL(due.finalCents)} para ${payee.merchantName}"
        />
        <label class="copy-label" for="pix-code">Pix copia e cola</label>
        <textarea id="pix-code" class="pix-code" readonly rows="5" spellcheck="false" data-copy-source>
${t.pix.copyPaste}</textarea>
        <button type="button" class="button primary" data-copy hidden>Copiar código Pix</button>
        <p class="copy-status" role="status" data-copy-status></p>
        <p class="fine">Este código vale para o valor de hoje; amanhã o valor pode mudar.</p>
      </section>
      ${
        page.simulateCsrfToken !== null
          ? html`<section class="card sandbox" aria-labelledby="titulo-teste">
              <h2 id="titulo-teste">Modo de teste</h2>
              <p>
                Esta cobrança é de teste: nenhum Pix real será pago. Escolha a data do pagamento para ver o desconto, a
                multa e os juros daquele dia.
              </p>
              <form method="post" action="${dueDateChargePath(t.id)}/simulate">
                <input type="hidden" name="_csrf" value="${page.simulateCsrfToken}" />
                <label for="data-pagamento">Data do pagamento</label>
                <input
                  id="data-pagamento"
                  type="date"
                  name="paymentDate"
                  value="${due.paymentDate}"
                  min="${due.paymentDate}"
                  max="${d.lastPayableDate}"
                />
                <button type="submit" class="button sandbox-button">Simular pagamento</button>
              </form>
            </section>`
          : ""
      }`;
  } else {
    const outcome = closed[t.status as keyof typeof closed] ?? closed.FAILED;
    body = html`<section class="card" aria-labelledby="titulo-estado" data-due-date-status="${t.status}">
      <h1 id="titulo-estado">${outcome.title}</h1>
      <p class="lead">${outcome.text}</p>
      ${terms}
    </section>`;
  }
  return layout(frame, payee, t.status === "PAID" ? "Pagamento confirmado" : "Cobrança com vencimento", body);
}
