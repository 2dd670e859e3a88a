/** Markup that is already safe: built by `html`, never from raw input. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What `html` accepts between its parts; `false`, null and undefined render nothing. */
export type HtmlPart = Html | string | number | null | undefined | false | readonly HtmlPart[];

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for an HTML text node or a quoted attribute value (outside `html`: the home page). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

function render(part: HtmlPart): string {
  if (part === null || part === undefined || part === false) return "";
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join("");
  return escapeHtml(String(part));
}

/**
 * A template tag that escapes every interpolated value unless it is itself `Html`, so a page can
 * only contain markup written in this module's templates: `html`<p>${payerName}</p>``.
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlPart[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}
