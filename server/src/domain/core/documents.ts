import { parseDocument } from "../../pix/documents.js";
import { DomainError } from "./errors.js";
import type { DocumentType } from "./model.js";

/** A CPF or CNPJ, normalised to digits, or a `REQUEST_ERROR` naming what is wrong. */
export function requireDocument(
  input: string,
  expected?: DocumentType,
): { documentType: DocumentType; document: string } {
  const parsed = parseDocument(input);
  const kind = expected ?? (input.replace(/[^0-9A-Za-z]/g, "").length > 11 ? "CNPJ" : "CPF");
  if (!parsed.ok) throw new DomainError("REQUEST_ERROR", `${kind} inválido: dígitos verificadores não conferem.`);
  if (expected && parsed.documentType !== expected) {
    throw new DomainError("REQUEST_ERROR", `O documento informado não é um ${expected} válido.`);
  }
  return { documentType: parsed.documentType, document: parsed.document };
}
