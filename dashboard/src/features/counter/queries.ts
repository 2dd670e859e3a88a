import { api } from "../../api/client";
import { useInvalidate } from "../../api/queries";
import type { Mode } from "../../lib/mode";
import { transactionQueries } from "../transactions/queries";

// The counter's reads and its one change: the book's newest customers to pick from, and a new
// charge, which invalidates the mode's transaction lists by key.

/** The book's newest customers (a page of 100), for the "Cliente do cadastro" list. */
const book = (mode: Mode) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/customers", {
    params: { path: { mode }, query: { limit: 100 } },
  });

/**
 * The charge on the counter's screen, read again every 2 seconds while it can still be paid, so the
 * screen turns into the receipt without a reload (docs/dashboard-app.md, "Balcão").
 */
const live = (mode: Mode, id: string) => ({
  ...transactionQueries.one(mode, id),
  refetchInterval: (query: { state: { data?: { transaction: { status: string } } } }) =>
    waiting(query.state.data?.transaction.status) ? livePollMs : false,
  refetchIntervalInBackground: true,
});

/** How often the counter's screen asks whether its charge was paid. */
const livePollMs = 2_000;

/** A status the payer can still pay (or the bank is still registering). */
export const waiting = (status: string | undefined) =>
  status === undefined || status === "WAITING_PAYMENT" || status === "PENDING" || status === "PROCESSING";

export const counterQueries = { book, live };

export function useCreateCounterCharge(mode: Mode) {
  const invalidate = useInvalidate();
  return api.useMutation("post", "/dashboard/v1/modes/{mode}/charges/pix", {
    onSuccess: () => invalidate(transactionQueries.list(mode).queryKey),
  });
}
