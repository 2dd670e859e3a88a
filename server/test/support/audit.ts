import { expect } from "vitest";
import type { AuditEntryRecord } from "../../src/domain/audit/model.js";
import type { TestServer } from "../harness.js";

// The audit log must never hold a secret (issue 25). Tests remember every secret they meet (the
// dashboard browser remembers session cookies, CSRF tokens and passwords by itself; tests add key
// and webhook secrets, TOTP secrets, recovery codes, invitation tokens), and each audit test file
// ends by reading every entry its server wrote, in every account, and looking for them.

const secrets = new Set<string>();

/** Remembers values that must never appear in an audit entry. */
export function rememberSecret(...values: (string | null | undefined)[]): void {
  for (const value of values) if (value && value.length >= 8) secrets.add(value);
}

/** Every audit entry of every account of `server`'s store, read through the store port. */
export async function allAuditEntries(server: TestServer): Promise<AuditEntryRecord[]> {
  const entries: AuditEntryRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const accounts = await server.store.read.accounts.list({ limit: 100, startingAfter: after });
    for (const account of accounts.items) {
      let cursor: string | undefined;
      for (;;) {
        const page = await server.store.read.auditLog.listPage(account.id, { limit: 100, startingAfter: cursor });
        entries.push(...page.items);
        if (!page.hasMore) break;
        cursor = page.items.at(-1)?.id;
      }
    }
    if (!accounts.hasMore) break;
    after = accounts.items.at(-1)?.id;
  }
  return entries;
}

/** Secrets by their shape, whoever wrote them: API keys, webhook secrets, password hashes. */
const secretShapes = [/svc_(test_)?[A-Za-z0-9]{32}/, /whsec_[A-Za-z0-9+/=]{20,}/, /\$argon2id\$/];

/** Asserts no entry written on `server` holds a remembered secret or anything shaped like one; answers how many were read. */
export async function expectNoSecretInAuditLog(server: TestServer): Promise<number> {
  const entries = await allAuditEntries(server);
  for (const entry of entries) {
    const text = JSON.stringify(entry);
    for (const secret of secrets)
      expect(text.includes(secret), `${entry.action} ${entry.id} holds a secret`).toBe(false);
    for (const shape of secretShapes) expect(text, `${entry.action} ${entry.id}`).not.toMatch(shape);
  }
  return entries.length;
}
