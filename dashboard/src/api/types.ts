import type { components } from "../../../generated/dashboard-api";

// The records the screens show, named from the generated document (`components["schemas"]`):
// no hand-written wire type.

type Schemas = components["schemas"];

export type Session = Schemas["Session"];
export type Role = Schemas["Role"];
export type Transaction = Schemas["PixService.Transaction"];
export type TransactionTimeline = Schemas["TransactionTimeline"];
export type PaymentLink = Schemas["PixService.PaymentLink"];
export type Recurrence = Schemas["PixService.Recurrence"];
export type Customer = Schemas["DashboardCustomer"];
export type Withdrawal = Schemas["PixService.Withdrawal"];
export type ApiKey = Schemas["ApiKey"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type DashboardEvent = Schemas["PixService.Event"];
export type HomeFigures = Schemas["HomeFigures"];
export type Member = Schemas["User"];
export type Invitation = Schemas["Invitation"];
export type AccountProfile = Schemas["AccountProfile"];
export type RequestLog = Schemas["RequestLog"];
export type RequestLogSummary = Schemas["RequestLogSummary"];
