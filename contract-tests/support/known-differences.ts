import {
  documentMatchesType,
  normalizePixKey,
  parseDocument,
  type PixKeyType,
} from "../../server/src/pix/documents.js";
import { defaultPlan } from "../../generated/rules.js";
import {
  brasiliaDate,
  checkDueDateTerms,
  type DueDateTermsInput,
  smallestAmountDue,
} from "../../server/src/domain/payments/index.js";
import { operationInfos } from "./document.js";
import type { GeneratedRequest } from "./requests.js";
import { freshChargeCents, recurringChargeCents } from "./values.js";

/** What the server knows at the moment a request is sent, for the conditions below. */
export interface ServerState {
  /** The server clock's current instant (read from a resource it just created). */
  now: string;
  /** `withdrawableNowCents` of the full key, read just before a createWithdrawal. */
  withdrawableNowCents?: number;
  /** Ids that exist on the server, of every kind. */
  ids: Set<string>;
}

export interface KnownDifference {
  /** The operations it concerns. */
  operations: readonly string[];
  condition: string;
  reason: string;
  /** What the server answers; the mock answers its 2xx. */
  server: { status: number; code: string };
  applies(request: GeneratedRequest, state: ServerState): boolean;
}

/** Every operation that asks for a key (all but the probes). */
const keyed = operationInfos.filter((o) => !o.keyless).map((o) => o.operationId);
/** Every operation with an id in its path. */
const withId = operationInfos.filter((o) => o.idKind).map((o) => o.operationId);
/** Every list (the operations with a `startingAfter` cursor). */
const lists = operationInfos.filter((o) => o.query.some((p) => p.name === "startingAfter")).map((o) => o.operationId);
const body = (r: GeneratedRequest) => (r.body && typeof r.body === "object" ? (r.body as Record<string, any>) : {});
/** Whether the server's `checkDueDateTerms` refuses a body's terms on the server's today. */
function dueDateTermsRefused(terms: Record<string, any>, now: string): boolean {
  try {
    checkDueDateTerms(terms as DueDateTermsInput, brasiliaDate(now));
    return false;
  } catch {
    return true;
  }
}
const notADocument = (document: unknown) => typeof document === "string" && !parseDocument(document).ok;

/**
 * Every rule the server enforces that the Prism mock cannot model, for requests the document
 * accepts (the mock answers 2xx). The document states each rule in words; Prism, which has no
 * store, no key registry and no check digits, answers the operation's success example. The
 * differential suite asserts exactly these: when a row applies, the mock answered 2xx and the
 * server answered the row's status and code; any other disagreement fails. Rows are in the
 * server's order of checks: the first that applies decides.
 */
export const knownDifferences: readonly KnownDifference[] = [
  {
    operations: keyed,
    condition: "a well-formed key that was never issued",
    reason: "Prism checks that a key is sent, not that it exists (401 description: missing, invalid or revoked)",
    server: { status: 401, code: "UNAUTHORIZED" },
    applies: (r) => r.key === "unknown",
  },
  {
    operations: keyed,
    condition: "a key without the operation's permission",
    reason: "permissions belong to the key, set in the operator API (403 description: API_KEY_PERMISSION)",
    server: { status: 403, code: "API_KEY_PERMISSION" },
    applies: (r) => r.key === "none",
  },
  {
    operations: withId,
    condition: "the path id names nothing in this account and mode",
    reason: "the mock has no store (404 description)",
    server: { status: 404, code: "NOT_FOUND" },
    applies: (r) => r.id === "unknown",
  },
  {
    operations: ["cancelTransaction", "simulatePayment", "simulateExpiry"],
    condition: "the path's charge is no longer WAITING_PAYMENT (expired or paid)",
    reason: "the mock has no store (descriptions: only a WAITING_PAYMENT charge, else 400 REQUEST_ERROR)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => r.refused === "expired" || r.refused === "paid",
  },
  {
    operations: ["simulatePayment"],
    condition: "paymentDate for a charge without a due date (the suite's charges have none)",
    reason: "the mock has no store (paymentDate description: only for a charge with a due date)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r) => r.operationId === "simulatePayment" && body(r).paymentDate !== undefined,
  },
  {
    operations: ["createRefund", "simulateDispute"],
    condition: "the path's charge is not PAID (waiting for payment or expired)",
    reason: "the mock has no store (descriptions: only a PAID charge, else 400 REQUEST_ERROR)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => r.refused === "waiting" || r.refused === "expired",
  },
  {
    operations: ["createRefund", "simulateDispute"],
    condition: "the path's charge has an open dispute",
    reason: "the mock has no store (descriptions: no refund while a dispute is OPEN, one dispute per charge)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => r.refused === "disputed",
  },
  {
    operations: ["createRefund", "simulateDispute"],
    condition: "the path's charge was refunded in full (nothing left to refund or contest)",
    reason: "the mock has no store (descriptions: at most what is still refundable, what the charge still holds)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => r.refused === "refunded",
  },
  {
    operations: ["simulateDisputeResolution"],
    condition: "the path's dispute is already closed",
    reason: "the mock has no store (description: a dispute already closed answers 400 REQUEST_ERROR)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => r.refused === "closed",
  },
  {
    operations: ["createRefund"],
    condition: "amountCents above what the charge can still refund",
    reason: "depends on the charge's amount and earlier refunds (description: 400 REQUEST_ERROR)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => r.operationId === "createRefund" && Number(body(r).amountCents) > freshChargeCents,
  },
  {
    operations: ["simulateDispute"],
    condition: "amountCents above what the charge still holds",
    reason: "depends on the charge's amount and its refunds (amountCents description; 400 REQUEST_ERROR)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => r.operationId === "simulateDispute" && Number(body(r).amountCents) > freshChargeCents,
  },
  {
    operations: ["createDueDateCharge"],
    condition:
      "terms the schema accepts that do not fit their mode, a due date before today or over 5 years ahead, a discount date after the due date, a discount or rebate reaching the amount, interest past the largest amount",
    reason: "rules across fields and the server's today (createDueDateCharge description; record 0052)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r, s) => r.operationId === "createDueDateCharge" && dueDateTermsRefused(body(r), s.now),
  },
  {
    operations: ["createDueDateCharge"],
    condition: "the smallest amount it can owe (today's, or on its largest discount) does not pay the plan's fee",
    reason: "depends on the account's plan (a charge below its fee answers 400 REQUEST_ERROR)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r, s) => {
      if (r.operationId !== "createDueDateCharge") return false;
      const smallest = smallestAmountDue(
        checkDueDateTerms(body(r) as DueDateTermsInput, brasiliaDate(s.now)),
        brasiliaDate(s.now),
      );
      return defaultPlan.chargeFeeCents + Math.round((smallest * defaultPlan.chargeFeeBps) / 10_000) >= smallest;
    },
  },
  {
    operations: ["createPixCharge", "createDueDateCharge", "upsertCustomer", "createRecurrence"],
    condition: "a document the schema accepts that is no CPF or CNPJ (check digits, or letters where digits go)",
    reason: "check digits are not expressible in a schema (document description: 400 REQUEST_ERROR)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) =>
      notADocument(
        r.operationId === "upsertCustomer" ? body(r).document : (body(r).customer ?? body(r).payer)?.document,
      ),
  },
  {
    operations: ["createPixCharge", "createDueDateCharge", "createRecurrence"],
    condition: "customer.documentType (a recurrence's payer.documentType) is not the kind of its document",
    reason: "a rule across two fields (documentType description)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) => {
      const payer = r.operationId === "createRecurrence" ? body(r).payer : body(r).customer;
      return typeof payer?.document === "string" && !documentMatchesType(payer.document, payer.documentType);
    },
  },
  {
    operations: ["createPixCharge", "createPaymentLink", "createRecurrence"],
    condition: "expiresAt is not in the future",
    reason: "depends on the server's clock (expiresAt description: must be in the future)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r, s) => typeof body(r).expiresAt === "string" && Date.parse(body(r).expiresAt) <= Date.parse(s.now),
  },
  {
    operations: ["createRecurrence"],
    condition: "firstDate before the server's today, or lastDate before firstDate",
    reason: "depends on the server's clock and on two fields (firstDate and lastDate descriptions)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r, s) =>
      r.operationId === "createRecurrence" &&
      (String(body(r).firstDate) < s.now.slice(0, 10) ||
        (body(r).lastDate !== undefined && String(body(r).lastDate) < String(body(r).firstDate))),
  },
  {
    operations: ["createRecurrence"],
    condition:
      "the amount's terms contradict one another (a minimum with a fixed amount, automatic charges without one)",
    reason: "rules across fields (minimumAmountCents and automaticCharges descriptions)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r) =>
      r.operationId === "createRecurrence" &&
      ((body(r).amountCents !== undefined && body(r).minimumAmountCents !== undefined) ||
        (body(r).automaticCharges === true && body(r).amountCents === undefined)),
  },
  {
    operations: ["createRecurrence"],
    condition: "initialPayment without JOURNEY_3, or JOURNEY_3 without it",
    reason: "a rule across two fields (initialPayment description)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r) =>
      r.operationId === "createRecurrence" &&
      (body(r).journey === "JOURNEY_3") !== (body(r).initialPayment !== undefined),
  },
  {
    operations: ["createRecurringCharge"],
    condition: "amountCents other than the recurrence's fixed amount",
    reason: "the mock has no store (amountCents description: a FIXED recurrence's amount only)",
    server: { status: 400, code: "REQUEST_ERROR" },
    applies: (r) =>
      r.operationId === "createRecurringCharge" &&
      body(r).amountCents !== undefined &&
      body(r).amountCents !== recurringChargeCents,
  },
  {
    operations: ["simulateRecurringAttempt"],
    condition: "reasonCode with outcome PAID, or outcome FAILED without one",
    reason: "a rule across two fields (reasonCode description)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r) =>
      r.operationId === "simulateRecurringAttempt" &&
      (body(r).outcome === "PAID") === (body(r).reasonCode !== undefined),
  },
  {
    operations: ["createWithdrawal"],
    condition: "pixKey is not a key of its pixKeyType",
    reason: "a rule across two fields (pixKey description)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r) =>
      r.operationId === "createWithdrawal" &&
      !normalizePixKey(String(body(r).pixKey), body(r).pixKeyType as PixKeyType).ok,
  },
  {
    operations: ["createWithdrawal"],
    condition: "amountCents above the balance's withdrawableNowCents",
    reason: "the mock has no balance (400 description: INSUFFICIENT_BALANCE)",
    server: { status: 400, code: "INSUFFICIENT_BALANCE" },
    applies: (r, s) =>
      r.operationId === "createWithdrawal" &&
      s.withdrawableNowCents !== undefined &&
      Number(body(r).amountCents) > s.withdrawableNowCents,
  },
  {
    operations: lists,
    condition: "a query value that is empty",
    reason:
      "Prism reads any query string; the server's validator applies OpenAPI's allowEmptyValue (false) (VALIDATION_ERROR description). Reserved characters left unencoded are accepted by both, as RFC 3986 allows",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r) => Object.values(r.query).some((v) => v === ""),
  },
  {
    operations: lists,
    condition: "a query parameter the operation does not declare",
    reason: "OpenAPI 3.0 cannot close a query string; Prism ignores extra parameters (VALIDATION_ERROR description)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r) => {
      const declared = operationInfos.find((o) => o.operationId === r.operationId)?.query.map((p) => p.name) ?? [];
      return Object.keys(r.query).some((name) => !declared.includes(name));
    },
  },
  {
    operations: lists,
    condition: "startingAfter names no item of the list",
    reason: "the mock has no store (startingAfter description)",
    server: { status: 400, code: "VALIDATION_ERROR" },
    applies: (r, s) =>
      (r.query.startingAfter !== undefined && !s.ids.has(r.query.startingAfter)) ||
      // A cursor written raw in the query string (reserved characters unencoded) names nothing either.
      /(^|&)startingAfter=/.test(r.rawQuery ?? ""),
  },
];

/** The first known difference that applies to a request the mock accepted, if any. */
export function knownDifference(request: GeneratedRequest, state: ServerState): KnownDifference | undefined {
  return knownDifferences.find((d) => d.operations.includes(request.operationId) && d.applies(request, state));
}
