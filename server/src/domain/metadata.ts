import { fieldError } from "./errors.js";
import type { Metadata } from "./model.js";

export const metadataLimits = { maxKeys: 50, maxKeyLength: 40, maxBytes: 8 * 1024 } as const;

/** Enforces the metadata limits the schema cannot express (DESIGN §3). */
export function checkMetadata(metadata: Metadata | undefined, path = "metadata"): void {
  if (metadata === undefined) return;
  const keys = Object.keys(metadata);
  if (keys.length > metadataLimits.maxKeys) {
    throw fieldError(path, `deve ter no máximo ${metadataLimits.maxKeys} chaves`);
  }
  const longKey = keys.find((k) => k.length > metadataLimits.maxKeyLength);
  if (longKey !== undefined) {
    throw fieldError(path, `a chave "${longKey.slice(0, 50)}" passa de ${metadataLimits.maxKeyLength} caracteres`);
  }
  if (Buffer.byteLength(JSON.stringify(metadata), "utf8") > metadataLimits.maxBytes) {
    throw fieldError(path, "deve ter no máximo 8 KiB em JSON");
  }
}
