/**
 * The Central Bank's wire format as the fake bank writes it: every type comes from the vendored
 * document (generated/bank/pix-api.d.ts), none is hand-typed; plus the few conversions the
 * standard prescribes (amounts as "123.45", end-to-end ids, problem details).
 */
import { randomBytes } from "node:crypto";
import type { components } from "../../generated/bank/pix-api.js";

type Schemas = components["schemas"];
export type CobGerada = Schemas["CobGerada"];
export type CobCompleta = Schemas["CobCompleta"];
export type CobSolicitada = Schemas["CobSolicitada"];
export type CobRevisada = Schemas["CobRevisada"];
export type CobsConsultadas = Schemas["CobsConsultadas"];
export type Pix = Schemas["Pix"];
export type PixConsultados = Schemas["PixConsultados"];
export type Devolucao = Schemas["Devolucao"];
export type DevolucaoSolicitada = Schemas["DevolucaoSolicitada"];
export type DevolucaoNatureza = Schemas["DevolucaoNatureza"];
export type Problema = Schemas["Problema"];
export type WebhookCompleto = Schemas["WebhookCompleto"];
export type WebhookSolicitado = Schemas["WebhookSolicitado"];
export type CobrancaStatus = Schemas["CobrancaStatus"];
export type Devedor = NonNullable<CobGerada["devedor"]>;
/** The body the bank POSTs to `{webhookUrl}/pix` (standard and efi dialects). */
export type WebhookPixBody = components["requestBodies"]["WebhookPixBody"]["content"]["application/json"];

/** "123.45" for 12345 cents. */
export function valor(cents: number): string {
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

/** 12345 for "123.45" (the standard's `\d{1,10}\.\d{2}`); NaN when it is not one. */
export function cents(text: string): number {
  const match = /^(\d{1,10})\.(\d{2})$/.exec(text);
  return match === null ? Number.NaN : Number(match[1]) * 100 + Number(match[2]);
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `length` random letters and digits. */
export function alnum(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += ALNUM[byte % ALNUM.length];
  return out;
}

function minute(at: Date): string {
  return at.toISOString().replace(/\D/g, "").slice(0, 12); // yyyyMMddHHmm, UTC
}

/**
 * An end-to-end id as the Pix arrangement writes it: `E` + the payer PSP's ISPB (8) +
 * yyyyMMddHHmm + 11 letters and digits = 32 characters. A return (rtrId) starts with `D`.
 */
export function endToEndId(ispb: string, at = new Date(), prefix: "E" | "D" = "E"): string {
  return `${prefix}${ispb.padStart(8, "0").slice(0, 8)}${minute(at)}${alnum(11)}`;
}

/** The type URI of a problem of the standard (`https://pix.bcb.gov.br/api/v2/error/<TipoErro>`). */
export function problem(
  status: number,
  kind: string,
  title: string,
  detail?: string,
  violacoes?: Problema["violacoes"],
): Problema {
  return {
    type: `https://pix.bcb.gov.br/api/v2/error/${kind}`,
    title,
    status,
    ...(detail === undefined ? {} : { detail }),
    ...(violacoes === undefined || violacoes.length === 0 ? {} : { violacoes }),
  };
}
