import { parseDocument } from "../../pix/documents.js";
import type { StoreTx } from "../ports/store.js";
import type { ScopedCaller, DomainDeps } from "../deps.js";
import { fieldError, notFound } from "../core/errors.js";
import { changedFields } from "../audit/index.js";
import { auditChange } from "../identity/index.js";
import { once } from "../core/idempotency.js";
import { newId } from "../core/ids.js";
import type { Address, CustomerRecord, DocumentType, PageRequest, Schemas, Scope } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { customerTagLength } from "../core/policy.js";
import { presentCustomer } from "./presenters.js";
import { requireDocument } from "../core/documents.js";

/** Refuses a tag out of bounds (`tags.<i>`): the operator's and the dashboard's notes alike. */
export function checkCustomerTags(tags: readonly string[]): void {
  tags.forEach((tag, i) => {
    if (tag.length < customerTagLength.min || tag.length > customerTagLength.max)
      throw fieldError(
        `tags.${i}`,
        `cada etiqueta deve ter de ${customerTagLength.min} a ${customerTagLength.max} caracteres`,
      );
  });
}

/** A customer as the dashboard shows it: the public customer and the account's internal notes and tags. */
const presentWithNotes = (c: CustomerRecord) => ({ ...presentCustomer(c), notes: c.notes, tags: [...c.tags] });

const addressFields = ["zipCode", "street", "number", "complement", "district", "city", "state"] as const;

const emptyAddress: Address = {
  zipCode: null,
  street: null,
  number: null,
  complement: null,
  district: null,
  city: null,
  state: null,
};

/** Applies the address fields sent over the current address; fields not sent stay. */
function mergeAddress(current: Address | null, input: Schemas["AddressInput"] | undefined): Address | null {
  if (input === undefined) return current;
  const sent = addressFields.filter((field) => input[field] !== undefined);
  if (current === null && sent.length === 0) return null;
  const next: Address = { ...(current ?? emptyAddress) };
  for (const field of addressFields) {
    const value = input[field];
    if (value !== undefined) next[field] = value;
  }
  return next;
}

function sameAddress(a: Address | null, b: Address | null): boolean {
  if (a === null || b === null) return a === b;
  return addressFields.every((field) => (a[field] ?? null) === (b[field] ?? null));
}

export interface CustomerFields {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  address?: Schemas["AddressInput"] | undefined;
}

/**
 * Finds the customer with this document in the scope and updates the fields sent, or creates it.
 * A write happens under the scope's lock (`lockScope`), so two requests cannot both create one
 * payer: a caller that does not hold it (`scopeLocked: false`) has it taken here when a write
 * turns out to be needed, and the payer is then read again, as another transaction may have
 * written it since. A payer who comes back with the same data needs no write, and no lock.
 */
export async function upsertCustomerRecord(
  tx: StoreTx,
  scope: Scope,
  doc: { documentType: DocumentType; document: string },
  fields: CustomerFields,
  now: string,
  options: { scopeLocked: boolean },
): Promise<{ customer: CustomerRecord; created: boolean }> {
  const existing = await tx.customers.getByDocument(scope, doc.document);
  const changes = existing && {
    name: fields.name ?? existing.name,
    email: fields.email ?? existing.email,
    phone: fields.phone ?? existing.phone,
    address: mergeAddress(existing.address, fields.address),
  };
  // A payer who comes back with the same data changes nothing: no write, and `updatedAt` keeps
  // saying when the record last changed.
  if (
    existing &&
    changes &&
    changes.name === existing.name &&
    changes.email === existing.email &&
    changes.phone === existing.phone &&
    sameAddress(changes.address, existing.address)
  ) {
    return { customer: existing, created: false };
  }
  if (!options.scopeLocked) {
    await tx.lockScope(scope);
    return upsertCustomerRecord(tx, scope, doc, fields, now, { scopeLocked: true });
  }
  if (existing && changes) {
    const updated: CustomerRecord = { ...existing, ...changes, updatedAt: now };
    await tx.customers.update(updated);
    return { customer: updated, created: false };
  }
  const customer: CustomerRecord = {
    id: newId("cus"),
    ...scope,
    name: fields.name ?? null,
    email: fields.email ?? null,
    phone: fields.phone ?? null,
    documentType: doc.documentType,
    document: doc.document,
    address: mergeAddress(null, fields.address),
    notes: null,
    tags: [],
    createdAt: now,
    updatedAt: now,
  };
  await tx.customers.insert(customer);
  return { customer, created: true };
}

export function customerUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  async function record(actor: ScopedCaller, id: string): Promise<CustomerRecord> {
    const customer = await deps.store.read.customers.get(actor.scope, id);
    if (!customer) throw notFound();
    return customer;
  }
  async function records(actor: ScopedCaller, filter: { document?: string | undefined }, page: PageRequest) {
    let document: string | undefined;
    if (filter.document !== undefined) {
      const parsed = parseDocument(filter.document);
      // A document that cannot exist matches no customer.
      if (!parsed.ok) return { items: [], hasMore: false };
      document = parsed.document;
    }
    return pageOrInvalidCursor(() => deps.store.read.customers.list(actor.scope, { document }, page));
  }
  return {
    /** Answers status 201 when it created the customer, 200 when it updated it (a replay: the first). */
    async upsert(actor: ScopedCaller, body: Schemas["UpsertCustomerRequest"], idempotencyKey?: string) {
      const doc = requireDocument(body.document);
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        const at = now();
        return once(tx, actor.scope, "upsertCustomer", idempotencyKey, body, at, async () => {
          const { customer, created } = await upsertCustomerRecord(tx, actor.scope, doc, body, at, {
            scopeLocked: true,
          });
          return { status: created ? 201 : 200, body: presentCustomer(customer) };
        });
      });
    },

    async get(actor: ScopedCaller, id: string) {
      return presentCustomer(await record(actor, id));
    },

    /** The dashboard's customer: with its internal notes and tags. */
    async getWithNotes(actor: ScopedCaller, id: string) {
      return presentWithNotes(await record(actor, id));
    },

    /** Writes a customer's internal notes and tags (the dashboard); only the fields given change. */
    async setNotes(actor: ScopedCaller, id: string, body: { notes?: string | null; tags?: string[] }) {
      if (body.tags) checkCustomerTags(body.tags);
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        const customer = await tx.customers.get(actor.scope, id);
        if (!customer) throw notFound();
        const updated: CustomerRecord = {
          ...customer,
          notes: body.notes === undefined ? customer.notes : body.notes,
          tags: body.tags === undefined ? customer.tags : [...new Set(body.tags)],
          updatedAt: now(),
        };
        await tx.customers.update(updated);
        const changes = changedFields(customer, updated, ["notes", "tags"]);
        if (Object.keys(changes).length > 0) {
          await auditChange(tx, actor, {
            action: "customer.notes_updated",
            target: { type: "customer", id },
            changes,
            at: updated.updatedAt,
          });
        }
        return presentWithNotes(updated);
      });
    },

    async update(actor: ScopedCaller, id: string, body: Schemas["UpdateCustomerRequest"], idempotencyKey?: string) {
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        const at = now();
        return once(tx, actor.scope, "updateCustomer", idempotencyKey, { id, body }, at, async () => {
          const customer = await tx.customers.get(actor.scope, id);
          if (!customer) throw notFound();
          const updated: CustomerRecord = {
            ...customer,
            name: body.name ?? customer.name,
            email: body.email ?? customer.email,
            phone: body.phone ?? customer.phone,
            address: mergeAddress(customer.address, body.address),
            updatedAt: at,
          };
          await tx.customers.update(updated);
          return { status: 200, body: presentCustomer(updated) };
        });
      });
    },

    async list(actor: ScopedCaller, filter: { document?: string | undefined }, page: PageRequest) {
      const result = await records(actor, filter, page);
      return { data: result.items.map(presentCustomer), hasMore: result.hasMore };
    },

    /** The dashboard's list: the customers with their internal notes and tags. */
    async listWithNotes(actor: ScopedCaller, filter: { document?: string | undefined }, page: PageRequest) {
      const result = await records(actor, filter, page);
      return { data: result.items.map(presentWithNotes), hasMore: result.hasMore };
    },
  };
}
