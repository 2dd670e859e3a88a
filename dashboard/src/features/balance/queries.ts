import { api } from "../../api/client";
import { type Page, useInvalidate } from "../../api/queries";
import type { Mode } from "../../lib/mode";

// The balance's reads as query options (key `[method, path, init]`) and the changes that move it,
// each invalidating the balance and the withdrawals by key.

const balance = (mode: Mode) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/balance", { params: { path: { mode } } });

const withdrawals = (mode: Mode, page?: Page) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/withdrawals", {
    params: { path: { mode }, ...(page ? { query: page } : {}) },
  });

export const balanceQueries = { balance, withdrawals };

function useMoneyMoved(mode: Mode) {
  const invalidate = useInvalidate();
  return { onSuccess: () => invalidate(balance(mode).queryKey, withdrawals(mode).queryKey) };
}

export const useCreateWithdrawal = (mode: Mode) =>
  api.useMutation("post", "/dashboard/v1/modes/{mode}/withdrawals", useMoneyMoved(mode));

/** Test mode: releases the pending balance at once. */
export const useReleaseBalance = (mode: Mode) =>
  api.useMutation("post", "/dashboard/v1/modes/{mode}/sandbox/balance/release", useMoneyMoved(mode));
