import { formatBRL } from "../../domain/core/money.js";
import type { PaymentLinkRecord } from "../../domain/core/model.js";
import { formatDocument } from "../../pix/documents.js";
import { type Html, html } from "../html.js";

// The frame of every server-rendered page of the hosted checkout, in Brazilian Portuguese. Mobile
// first; every value goes through `html`, which escapes it. No inline script or style: behaviour
// lives in assets/checkout.js (loaded with the request's CSP nonce), looks in assets/checkout.css.

/** What every page needs from the request. */
export interface PageFrame {
  nonce: string;
  /** Versioned addresses of our own stylesheet, script and icon. */
  assets: { css: string; js: string; icon: string };
}

/** Who is being paid, and in which mode: shown on every page of a link. */
export interface Payee {
  merchantName: string;
  /** The merchant's CNPJ (or CPF), digits; null when the account has none on record. */
  merchantDocument: string | null;
  testMode: boolean;
}

/**
 * "CNPJ 11.222.333/0001-81", "CPF ***.456.789-**", or "" when there is no document (or it is not
 * one). As the payer's bank shows the receiver of a Pix: a company's CNPJ in full, a person's CPF
 * with only its middle six digits (docs/decisions/0010-br-code-and-merchant-identity.md).
 */
export function merchantDocumentLabel(payee: Payee): string {
  const document = payee.merchantDocument;
  if (!document) return "";
  const type = document.length === 11 ? "CPF" : "CNPJ";
  try {
    const shown = formatDocument(document, type);
    return `${type} ${type === "CPF" ? `***${shown.slice(3, -2)}**` : shown}`;
  } catch {
    return "";
  }
}

/** "Recebedor: <name>" and, below it, the document when there is one. */
export function merchantLine(payee: Payee): Html {
  const document = merchantDocumentLabel(payee);
  return html`<p class="merchant" data-merchant>
    Recebedor:
    <strong>${payee.merchantName}</strong
    >${document ? html`<br /><span class="muted" data-merchant-document>${document}</span>` : ""}
  </p>`;
}

/** The page around `body`: head, test-mode banner, who is being paid, footer. */
export function layout(frame: PageFrame, payee: Payee | null, title: string, body: Html): string {
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

/** The order: what is paid and how much. */
export function summary(link: Pick<PaymentLinkRecord, "description" | "amountCents">): Html {
  return html`<section class="summary" aria-label="Resumo do pedido">
    <h1>${link.description}</h1>
    <p class="amount"><span class="visually-hidden">Valor: </span>${formatBRL(link.amountCents)}</p>
  </section>`;
}
