/**
 * The Central Bank's API Pix writes money as a decimal string with two places ("123.45", schema
 * pattern `\d{1,10}\.\d{2}`); the service keeps integer cents. Both ways are exact string work:
 * no floating point ever touches an amount.
 */

/** The standard's pattern, anchored: at most ten digits of reais and always two of centavos. */
const valor = /^(\d{1,10})\.(\d{2})$/;

/** The largest amount the standard's string can carry (and BR Code field 54): 9 999 999 999.99. */
export const largestCents = 999_999_999_999;

/** "123.45" -> 12345. Throws on anything the standard's pattern does not allow. */
export function centsFromValor(text: string): number {
  const match = valor.exec(text);
  if (!match) throw new RangeError(`valor fora do padrão da API Pix: ${JSON.stringify(text)}`);
  const [, reais = "", centavos = ""] = match;
  return Number(reais) * 100 + Number(centavos);
}

/** 12345 -> "123.45". Throws on a negative, fractional or too large amount. */
export function valorFromCents(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0 || cents > largestCents) {
    throw new RangeError(`valor em centavos inválido para a API Pix: ${cents}`);
  }
  const reais = Math.floor(cents / 100);
  const centavos = cents % 100;
  return `${reais}.${String(centavos).padStart(2, "0")}`;
}
