import { formatBRL } from "../../domain/core/money.js";
import type { PaymentLinkRecord, TransactionRecord } from "../../domain/core/model.js";
import { maskPixKey } from "../../pix/documents.js";
import { type HtmlPart, html } from "../html.js";
import { formatBrasiliaDateTime } from "../../domain/core/time.js";
import { layout, merchantDocumentLabel, type PageFrame, type Payee } from "./layout.js";

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
  const merchantDocument = merchantDocumentLabel(page.payee);
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
      ${row("Descrição", t.description)}
      ${row("Recebedor", merchantDocument ? html`${page.payee.merchantName}<br /><span class="muted" data-merchant-document>${merchantDocument}</span>` : page.payee.merchantName)}
      ${row("Pagador", html`${t.customer.name}<br /><span class="muted">${t.customer.documentType} ${maskPixKey(t.customer.document, t.customer.documentType)}</span>`)}
      ${row("ID da transação", html`<code data-transaction-id>${t.id}</code>`)}
    </dl>
    ${back ? html`<a class="button primary" href="${back}" data-return>Voltar para a loja</a>` : ""}
    <p class="fine">Guarde este comprovante. O ID da transação identifica o pagamento junto ao vendedor.</p>
  </section>`;
  return layout(frame, page.payee, "Pagamento confirmado", body);
}
