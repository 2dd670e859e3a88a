/**
 * The payout adapter of the connection's dialect (issue 36 §1): sending Pix is not in the Central
 * Bank's standard, so each bank's own API (Efí, Inter) sits behind the domain's `PixPayouts`.
 * A connection in the `standard` dialect has none: its bank's payout API is not known to us.
 */
import pLimit from "p-limit";
import type { BankCredentials } from "../domain/bank/index.js";
import type { PixPayouts } from "../domain/ports/pix-payouts.js";
import type { BankTransport } from "./client.js";
import { efiPayouts } from "./payouts-efi.js";
import { interPayouts } from "./payouts-inter.js";

/** The most calls of one connection's payouts (sends, reads, the balance) at the bank at once. */
export const payoutCallsAtOnce = 16;

/**
 * The transport with at most `payoutCallsAtOnce` of its calls under way; the others wait their
 * turn before their bounded wait starts. Payouts are the payout job's work, not a request's, and
 * come in bursts (a hundred withdrawals in a second, each pass sending its transfer, then the job's
 * reads of them): unbounded, a burst reached the bank as a wall of simultaneous calls, each on a
 * mutual-TLS socket of its own, where banks meter their payout endpoints; bounded, it is a steady
 * stream over a few reused sockets, 100 transfers of 50 ms each within about a third of a second.
 * The charges' calls, made within a merchant's request, share the transport's sockets but not this
 * queue. (The server's CPU per transfer did not move measurably with it: docs/benchmarks.md.)
 */
function oneBurstAtATime(transport: BankTransport): BankTransport {
  const limit = pLimit(payoutCallsAtOnce);
  return {
    ...transport,
    authorized: (scopes, call) => limit(() => transport.authorized(scopes, call)),
  };
}

/** The payouts of `credentials`' bank over its transport (`BankClient.transport`); null: none. */
export function pixPayoutsFrom(credentials: BankCredentials, bankTransport: BankTransport): PixPayouts | null {
  const transport = oneBurstAtATime(bankTransport);
  switch (credentials.dialect) {
    case "efi":
      return { ...efiPayouts(transport, credentials.pixKey), transferLimitCents: credentials.payoutLimitCents };
    case "inter":
      return { ...interPayouts(transport), transferLimitCents: credentials.payoutLimitCents };
    case "standard":
      return null;
  }
}
