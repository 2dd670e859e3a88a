import { fieldError } from "./errors.js";
import type { Metadata } from "./model.js";
import { metadataLimits } from "./policy.js";

/**
 * Enforces the metadata limits (docs/decisions/0004-api-conventions-the-seed-leaves-open.md): the spec declares the key count, OpenAPI 3.0
 * cannot declare the key length or the size, so all three are checked here.
 */
export function checkMetadata(metadata: Metadata | undefined, path = "metadata"): void {
  if (metadata === undefined) return;
  const keys = Object.keys(metadata);
  if (keys.length > metadataLimits.maxKeys) {
    throw fieldError(path, `deve ter no máximo ${metadataLimits.maxKeys} chaves`);
  }
  const longKey = keys.find((k) => k.length > metadataLimits.maxKeyLength);
  if (longKey !== undefined) {
    throw fieldError(
      path,
      `a chave "${longKey.slice(0, metadataLimits.maxKeyLength + 10)}" passa de ${metadataLimits.maxKeyLength} caracteres`,
    );
  }
  if (Buffer.byteLength(JSON.stringify(metadata), "utf8") > metadataLimits.maxBytes) {
    throw fieldError(path, `deve ter no máximo ${metadataLimits.maxBytes / 1024} KiB em JSON`);
  }
}
