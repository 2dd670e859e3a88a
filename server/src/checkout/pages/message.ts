import { html } from "../html.js";
import { layout, type PageFrame, type Payee } from "./layout.js";

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
