import { useParams } from "react-router";
import { type Mode, modeFromSlug, modePath } from "./mode";

/** The mode of the address (/painel/teste/… or /painel/producao/…). */
export function useMode(): Mode {
  return modeFromSlug(useParams().modo) ?? "test";
}

/** `to("transacoes")` → `/teste/transacoes` in the current mode. */
export function useModePath(): (path?: string) => string {
  const mode = useMode();
  return (path = "") => modePath(mode, path);
}
