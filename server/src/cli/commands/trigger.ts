/**
 * `admin trigger <event>`: makes one event happen in test mode with real objects, through the
 * public API and its sandbox routes, with only a test API key (like `stripe trigger`).
 */
import { randomUUID } from "node:crypto";
import { type Command, InvalidArgumentError } from "commander";
import { CliError, type PartnerClient, unwrap } from "../clients.js";
import type { CliContext } from "../context.js";
import type { components } from "../../../../generated/api.js";
import { recurrenceSteps } from "./trigger-recurrences.js";

export type EventType = components["schemas"]["EventType"];
type Transaction = components["schemas"]["Transaction"];

/** One object the trigger created or changed, as printed. */
interface Created {
  object: string;
  id: string;
  status: string;
}

/** The charges trigger creates: large enough for the withdrawal, refund and dispute it makes. */
const chargeCents = 20_000;
/** What a triggered withdrawal, refund or dispute moves (a withdrawal needs at least 600). */
const movedCents = 1_000;
const customer = {
  name: "Maria da Silva Santos",
  email: "maria.santos@example.com",
  phone: "11987654321",
  documentType: "CPF" as const,
  document: "52998224725",
};

/** Every POST carries its own idempotency key: a retried request acts once. */
const idempotent = () => ({ header: { "idempotency-key": `cli-trigger_${randomUUID()}` } });

/** `YYYY-MM-DD` of Brasília, `days` from today. */
const brasiliaDay = (days: number): string =>
  new Date(Date.now() - 3 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
/** `date` (`YYYY-MM-DD`) moved by `days`. */
const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * `transaction.paid --due-date`: a charge with a due date (issue 38) due in 7 days, with a 2 % fine,
 * 1 % a month interest and R$ 10,00 off until 2 days before, paid `daysLate` days after the due
 * date in fact (the next business day when it falls on none; 0: today, with the discount), so its
 * event carries the breakdown.
 */
async function paidDueDateCharge(api: PartnerClient, created: Created[], daysLate: number): Promise<void> {
  const dueDate = brasiliaDay(7);
  const charge = unwrap(
    await api.POST("/api/v1/charges/due-date", {
      params: idempotent(),
      body: {
        amountCents: chargeCents,
        dueDate,
        fine: { mode: "PERCENTAGE", rateBps: 200 },
        interest: { mode: "PERCENTAGE_PER_MONTH_CALENDAR_DAYS", rateBps: 100 },
        discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: brasiliaDay(5), amountCents: 1000 }] },
        description: "Evento de teste (admin trigger, com vencimento)",
        customer,
      },
    }),
  );
  const paid = unwrap(
    await api.POST("/api/v1/sandbox/transactions/{id}/pay", {
      params: { ...idempotent(), path: { id: charge.id } },
      ...(daysLate > 0 && charge.dueDateCharge
        ? { body: { paymentDate: addDays(charge.dueDateCharge.adjustedDueDate, daysLate) } }
        : {}),
    }),
  );
  created.push({ object: "charge", id: paid.id, status: `${paid.status} ${paid.amountCents} centavos` });
}

/** The steps shared by the triggers; each records what it made in `created`. */
function steps(api: PartnerClient, created: Created[]) {
  const paidCharge = async (): Promise<Transaction> => {
    const charge = unwrap(
      await api.POST("/api/v1/charges/pix", {
        params: idempotent(),
        body: { amountCents: chargeCents, description: "Evento de teste (admin trigger)", customer },
      }),
    );
    const paid = unwrap(
      await api.POST("/api/v1/sandbox/transactions/{id}/pay", {
        params: { ...idempotent(), path: { id: charge.id } },
      }),
    );
    created.push({ object: "charge", id: paid.id, status: paid.status });
    return paid;
  };
  /** A charge the sandbox refuses as a bank would (description `sandbox:falha`). */
  const failedCharge = async () => {
    const charge = unwrap(
      await api.POST("/api/v1/charges/pix", {
        params: idempotent(),
        body: { amountCents: chargeCents, description: "sandbox:falha", customer },
      }),
    );
    created.push({ object: "charge", id: charge.id, status: charge.status });
  };
  const releaseBalance = async () => {
    const balance = unwrap(await api.POST("/api/v1/sandbox/balance/release", { params: idempotent() }));
    created.push({ object: "balance", id: "-", status: `disponível ${balance.availableCents} centavos` });
  };
  const withdraw = async (pixKey: string, pixKeyType: "CPF" | "EMAIL") => {
    await paidCharge();
    await releaseBalance();
    const result = await api.POST("/api/v1/withdrawals", {
      params: idempotent(),
      body: { amountCents: movedCents, pixKey, pixKeyType },
    });
    if (result.response.status === 403 && result.error?.code === "API_KEY_PERMISSION") {
      throw new CliError(
        "esta chave de API não tem a permissão withdrawals:write (chaves novas não a têm por padrão): use uma " +
          "chave que a tenha, ou peça ao operador que a acrescente (admin keys update key_… --permissions …,withdrawals:write).",
      );
    }
    const withdrawal = unwrap(result);
    created.push({ object: "withdrawal", id: withdrawal.id, status: withdrawal.status });
  };
  const refund = async (reason: string) => {
    const charge = await paidCharge();
    await releaseBalance();
    const made = unwrap(
      await api.POST("/api/v1/transactions/{id}/refunds", {
        params: { ...idempotent(), path: { id: charge.id } },
        body: { amountCents: movedCents, reason },
      }),
    );
    created.push({ object: "refund", id: made.id, status: made.status });
  };
  const dispute = async (close: boolean) => {
    const charge = await paidCharge();
    await releaseBalance();
    const opened = unwrap(
      await api.POST("/api/v1/sandbox/transactions/{id}/dispute", {
        params: { ...idempotent(), path: { id: charge.id } },
        body: { amountCents: movedCents },
      }),
    );
    const id = opened.dispute?.id ?? "";
    created.push({ object: "dispute", id, status: opened.dispute?.status ?? "-" });
    if (!close) return;
    const closed = unwrap(
      await api.POST("/api/v1/sandbox/disputes/{id}/resolve", {
        params: { ...idempotent(), path: { id } },
        body: { outcome: "WON" },
      }),
    );
    created.push({ object: "dispute", id, status: closed.dispute?.status ?? "-" });
  };
  return { paidCharge, failedCharge, withdraw, refund, dispute, recurrence: recurrenceSteps(api, created) };
}

type Steps = ReturnType<typeof steps>;

/** How each kind is made to happen (a Record: a new kind in the spec fails to compile here). */
const triggers: Record<EventType, (s: Steps) => Promise<unknown>> = {
  "transaction.paid": (s) => s.paidCharge(),
  "transaction.failed": (s) => s.failedCharge(),
  "withdrawal.created": (s) => s.withdraw("52998224725", "CPF"),
  "withdrawal.paid": (s) => s.withdraw("52998224725", "CPF"),
  "withdrawal.partially_paid": (s) => s.withdraw("parcial@sandbox.pix", "EMAIL"),
  "withdrawal.failed": (s) => s.withdraw("falha@sandbox.pix", "EMAIL"),
  "refund.created": (s) => s.refund("Evento de teste (admin trigger)"),
  "refund.completed": (s) => s.refund("Evento de teste (admin trigger)"),
  "refund.failed": (s) => s.refund("sandbox:falha"),
  "dispute.opened": (s) => s.dispute(false),
  "dispute.closed": (s) => s.dispute(true),
  "recurrence.created": (s) => s.recurrence.created(),
  "recurrence.approved": (s) => s.recurrence.approved(),
  "recurrence.rejected": (s) => s.recurrence.rejected(),
  "recurrence.expired": (s) => s.recurrence.expired(),
  "recurrence.cancelled": (s) => s.recurrence.cancelled(),
  "recurring_charge.created": (s) => s.recurrence.chargeCreated(),
  "recurring_charge.failed": (s) => s.recurrence.chargeFailed(),
  "recurring_charge.retrying": (s) => s.recurrence.chargeRetrying(),
  "recurring_charge.cancelled": (s) => s.recurrence.chargeCancelled(),
};

/** Every event kind, in the spec's order. */
export const eventTypes = Object.keys(triggers) as EventType[];

/** Option parser: a comma-separated list of event kinds. */
export function eventTypeList(value: string): EventType[] {
  const kinds = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !(eventTypes as string[]).includes(k));
  if (unknown.length > 0) throw new InvalidArgumentError(`tipo de evento desconhecido: ${unknown.join(", ")}`);
  return kinds as EventType[];
}

/** Refuses anything but a test key, before any request: trigger creates and pays objects. */
function requireTestKey(key: string): void {
  if (key.startsWith("svc_test_")) return;
  throw new CliError(
    key.startsWith("svc_")
      ? "trigger só funciona no modo de teste e esta é uma chave de produção (svc_…): use uma chave de teste (svc_test_…)."
      : "trigger precisa de uma chave de API de teste (svc_test_…).",
  );
}

export function registerTrigger(program: Command, ctx: CliContext): void {
  program
    .command("trigger")
    .description("faz um evento acontecer no modo de teste com objetos reais (precisa de uma chave de API de teste)")
    .argument("<event>", `o tipo de evento: ${eventTypes.join(", ")}`, (value: string) => {
      const [kind] = eventTypeList(value);
      if (kind === undefined) throw new InvalidArgumentError("informe um tipo de evento");
      return kind;
    })
    .option(
      "--due-date [dias-de-atraso]",
      "transaction.paid de uma cobrança com vencimento (multa, juros e desconto), paga hoje com desconto ou os dias de atraso dados após o vencimento",
      (value: string) => {
        if (!/^\d{1,3}$/.test(value)) throw new InvalidArgumentError("informe os dias de atraso, de 0 a 365");
        return Number(value);
      },
    )
    .action(async (event: EventType, options: { dueDate?: number | true }) => {
      requireTestKey(ctx.apiKey());
      const created: Created[] = [];
      if (options.dueDate !== undefined) {
        if (event !== "transaction.paid") throw new CliError("--due-date só se usa com transaction.paid.");
        await paidDueDateCharge(ctx.partner(), created, options.dueDate === true ? 0 : options.dueDate);
      } else {
        await triggers[event](steps(ctx.partner(), created));
      }
      ctx.out.print({ event, created }, () =>
        [`Evento ${event} disparado:`, ...created.map((c) => `  ${c.object.padEnd(10)}  ${c.id}  ${c.status}`)].join(
          "\n",
        ),
      );
    });
}
