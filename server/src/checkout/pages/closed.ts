import type { CheckoutState } from "../../domain/payments/index.js";
import { formatBRL } from "../../domain/core/money.js";
import type { PaymentLinkRecord, TransactionRecord } from "../../domain/core/model.js";
import { html } from "../html.js";
import { checkoutPath } from "../paths.js";
import { formatBrasiliaDateTime } from "../../domain/core/time.js";
import { layout, type PageFrame, type Payee, summary } from "./layout.js";

// Pages of a link or a charge that takes no payment: the link unavailable (deactivated, or of an
// account not verified for production), exhausted or expired, and a charge expired, cancelled or
// failed.

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
  accountNotActive: {
    title: "Link de pagamento indisponível",
    text: "Este link não está aceitando pagamentos no momento. Nenhum valor foi cobrado. Fale com quem enviou o link.",
  },
};

/**
 * A link that takes no new payer: deactivated or of an account not verified for production
 * ("indisponível"), exhausted ("esgotado") or expired.
 */
export function renderClosedPage(
  frame: PageFrame,
  page: { link: PaymentLinkRecord; payee: Payee | null; state: Exclude<CheckoutState, "open"> },
): string {
  const { title, text } = closedTexts[page.state];
  const when =
    page.state === "expired" && page.link.expiresAt
      ? ` Expirou em ${formatBrasiliaDateTime(page.link.expiresAt)}.`
      : "";
  const body = html`<section class="card notice" aria-labelledby="titulo-aviso" data-link-state="${page.state}">
    <h1 id="titulo-aviso">${title}</h1>
    <p>${text}${when}</p>
    ${
      // The merchant's own words are not shown for an account nobody verified.
      page.state === "accountNotActive"
        ? ""
        : html`<p class="muted">${page.link.description} · ${formatBRL(page.link.amountCents)}</p>`
    }
  </section>`;
  return layout(frame, page.payee, title, body);
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
