import type { components } from "../../../generated/api.js";
import { chargePayer } from "./fixtures.js";

// Test data of recurrences (Pix Automático), shared by the suites that need one.

export type CreateRecurrenceRequest = components["schemas"]["CreateRecurrenceRequest"];

/** The Brasília date of the test servers' clock (2026-10-04T15:30:00Z): the recurrences' today. */
export const testToday = "2026-10-04";

/** `YYYY-MM-DD` `days` after `date`. */
export const dateAfter = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * A valid recurrence body: monthly, R$ 49,90 fixed, journey 2, its first cycle a month after
 * `testToday`; override what a test is about.
 */
export function recurrenceBody(overrides: Partial<CreateRecurrenceRequest> = {}): CreateRecurrenceRequest {
  return {
    payer: { ...chargePayer },
    contractReference: "ACADEMIA-2026-0042",
    description: "Mensalidade Academia Forma",
    periodicity: "MONTHLY",
    firstDate: dateAfter(testToday, 31),
    amountCents: 4990,
    journey: "JOURNEY_2",
    metadata: { planId: "mensal-basico" },
    ...overrides,
  };
}
