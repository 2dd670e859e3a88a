import { brCodeMerchantCity, brCodeMerchantName } from "../../pix/brcode.js";
import { fieldError } from "../core/errors.js";
import type { Account } from "../core/model.js";

// The merchant's name and city as every BR Code of the account prints them (docs/decisions/
// 0010-br-code-and-merchant-identity.md). One rule for every path that sets them: the operator API (and the
// CLI, which calls it) today, a merchant's own sign-up later.

/** Whether the text the BR Code carries says something: at least one letter or digit. */
const carriesLetterOrDigit = (brCodeText: string) => /[A-Z0-9]/.test(brCodeText);

/** City printed when a stored account's city has nothing the BR Code can carry. */
const fallbackCity = "BRASIL";

const refusal = (what: string, maxLength: number) =>
  `deve conter uma letra do alfabeto latino (com ou sem acento) ou um dígito: o BR Code leva ${what} em ` +
  `ASCII, até ${maxLength} caracteres, e outros alfabetos, emojis e símbolos não são impressos nele`;

/** A control character (C0, DEL, C1): a line break or tab of a name would reach the e-mails' text. */
const controlCharacter = /\p{Cc}/u;

/** Why a name with a control character is refused (the dashboard's spec says it as `noControlCharacters`). */
const controlCharacterRefusal = "não pode conter caracteres de controle (quebras de linha, tabulações)";

/**
 * Refuses (`400 VALIDATION_ERROR` naming the field) a merchant name or city of which the BR Code
 * would carry no letter or digit: `東京商店`, `🙂🙂`, `—–`, a city `北京`; and a name or city with a
 * control character (on every path: the operator's too, whose document does not say it in a
 * pattern). Fields left out are not checked (an update that does not change them).
 */
export function checkMerchantIdentity(fields: { name?: string | undefined; merchantCity?: string | undefined }): void {
  for (const field of ["name", "merchantCity"] as const) {
    const text = fields[field];
    if (text !== undefined && controlCharacter.test(text)) throw fieldError(field, controlCharacterRefusal);
  }
  if (fields.name !== undefined && !carriesLetterOrDigit(brCodeMerchantName(fields.name))) {
    throw fieldError("name", refusal("o nome", 25));
  }
  if (fields.merchantCity !== undefined && !carriesLetterOrDigit(brCodeMerchantCity(fields.merchantCity))) {
    throw fieldError("merchantCity", refusal("a cidade", 15));
  }
}

/**
 * The name and city a charge's BR Code prints for `account`. An account stored before the rule
 * above may hold a name or city the BR Code cannot carry: its name is then its CNPJ (public data
 * of a company) or, without one, its id; its city `BRASIL`. So no charge of such an account fails.
 */
export function brCodeMerchant(account: Pick<Account, "id" | "name" | "merchantCity" | "documentType" | "document">): {
  merchantName: string;
  merchantCity: string;
} {
  const nameCarried = carriesLetterOrDigit(brCodeMerchantName(account.name));
  const cityCarried = carriesLetterOrDigit(brCodeMerchantCity(account.merchantCity));
  return {
    merchantName: nameCarried
      ? account.name
      : account.documentType === "CNPJ" && account.document
        ? `CNPJ ${account.document}`
        : account.id,
    merchantCity: cityCarried ? account.merchantCity : fallbackCity,
  };
}
