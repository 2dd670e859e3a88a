import { formatBRL } from "../../domain/core/money.js";
import type { PaymentLinkRecord, TransactionRecord } from "../../domain/core/model.js";
import { html } from "../html.js";
import { chargePath } from "../paths.js";
import { formatCountdown } from "../../domain/core/time.js";
import { layout, merchantLine, type PageFrame, type Payee, summary } from "./layout.js";

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
  const body = html`${summary(t)} ${merchantLine(page.payee)}
    <section
      class="card pix"
      aria-labelledby="titulo-pix"
      data-payment
      data-status-url="${path}/status"
      data-status="${t.status}"
      data-poll-ms="${page.pollIntervalMs}"
    >
      <h2 id="titulo-pix">Pague com Pix</h2>
      <p class="status" role="status" data-status-text>
        ${t.status === "PENDING" ? "Gerando o código Pix no banco… esta página se atualiza sozinha." : "Aguardando pagamento…"}
      </p>
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
