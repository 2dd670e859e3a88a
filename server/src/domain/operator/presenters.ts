import type { components } from "../../../../generated/admin-api.js";
import type { Account } from "../core/model.js";

// The operator API's views of accounts, keys, endpoints and deliveries, and the fields of each that
// the audit log records when they change (never a secret).

type Admin = components["schemas"];

export const presentAccount = (a: Account): Admin["Account"] => ({
  id: a.id,
  name: a.name,
  ownerEmail: a.ownerEmail,
  verified: a.verified,
  plan: { ...a.plan },
  releasePeriodDays: a.releasePeriodDays,
  merchantCity: a.merchantCity,
  pixKey: a.pixKey,
  documentType: a.documentType,
  document: a.document,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

/** What the audit log records of an account's settings (never a secret). */
export const accountFields = [
  "name",
  "ownerEmail",
  "verified",
  "plan",
  "releasePeriodDays",
  "merchantCity",
  "documentType",
  "document",
] as const;
