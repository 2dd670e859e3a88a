// The account's two worlds, kept in the address: /painel/teste/… and /painel/producao/….

export type Mode = "test" | "production";

const slugs: Record<Mode, string> = { test: "teste", production: "producao" };

/** The address segment of a mode. */
const modeSlug = (mode: Mode): string => slugs[mode];

/** The mode of an address segment, or null. */
export function modeFromSlug(slug: string | undefined): Mode | null {
  if (slug === "teste") return "test";
  if (slug === "producao") return "production";
  return null;
}

/** `/teste/transacoes` from a mode and a path inside it (router paths, under the /painel basename). */
export function modePath(mode: Mode, path = ""): string {
  const rest = path.replace(/^\/+/, "");
  return `/${modeSlug(mode)}${rest ? `/${rest}` : ""}`;
}

/** The same screen in the other mode: the first segment swapped, the rest kept (but an object's id). */
export function switchModePath(pathname: string, to: Mode): string {
  const segments = pathname.split("/").filter(Boolean);
  if (modeFromSlug(segments[0]) === null) return modePath(to);
  // An object of one mode does not exist in the other: go to its list (a section's own tab kept).
  const sectioned = segments[1] === "configuracoes" || segments[1] === "desenvolvedores";
  return modePath(to, segments.slice(1, sectioned ? 3 : 2).join("/"));
}

/** Where to go after the log-in: the address the person came from, inside the panel only. */
export function safeReturnPath(value: string | null): string {
  if (value && /^\/(?![/\\])/.test(value) && !value.startsWith("/entrar")) return value;
  return modePath("test");
}
