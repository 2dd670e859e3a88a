/**
 * The payout adapter of the connection's dialect (issue 36 §1): sending Pix is not in the Central
 * Bank's standard, so each bank's own API (Efí, Inter) sits behind the domain's `PixPayouts`.
 * A connection in the `standard` dialect has none: its bank's payout API is not known to us.
 */
import type { BankCredentials } from "../domain/bank/index.js";
import type { PixPayouts } from "../domain/ports/pix-payouts.js";
import type { BankTransport } from "./client.js";
import { efiPayouts } from "./payouts-efi.js";
import { interPayouts } from "./payouts-inter.js";

/** The payouts of `credentials`' bank over its transport (`BankClient.transport`); null: none. */
export function pixPayoutsFrom(credentials: BankCredentials, transport: BankTransport): PixPayouts | null {
  switch (credentials.dialect) {
    case "efi":
      return efiPayouts(transport, credentials.pixKey);
    case "inter":
      return interPayouts(transport);
    case "standard":
      return null;
  }
}
