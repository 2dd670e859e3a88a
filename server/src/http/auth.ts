import type { RequestHandler } from "express";
import ipaddr from "ipaddr.js";
import { digestSecret, modeOfSecret } from "../domain/accounts.js";
import type { Actor } from "../domain/deps.js";
import { DomainError } from "../domain/errors.js";
import type { Store } from "../store/port.js";
import { matchOperation, type OperationMatch } from "./operations.js";

/** The key in `x-api-key`, or in `Authorization: Bearer`. */
export function presentedSecret(headers: { "x-api-key"?: string | string[]; authorization?: string }): string | null {
  const header = headers["x-api-key"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader.trim();
  const auth = headers.authorization;
  const match = auth?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/** Whether `ip` is allowed by a list of addresses and CIDR ranges; an empty list allows any IP. */
export function ipAllowed(ip: string | undefined, rules: string[]): boolean {
  if (rules.length === 0) return true;
  if (!ip || !ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  for (const rule of rules) {
    try {
      if (rule.includes("/")) {
        const [range, bits] = ipaddr.parseCIDR(rule);
        let normalizedRange = range;
        if (range.kind() === "ipv6" && (range as ipaddr.IPv6).isIPv4MappedAddress()) {
          normalizedRange = (range as ipaddr.IPv6).toIPv4Address();
        }
        const rangeBits = normalizedRange.kind() !== range.kind() ? bits - 96 : bits;
        if (addr.kind() === normalizedRange.kind() && addr.match(normalizedRange, rangeBits)) return true;
      } else if (ipaddr.isValid(rule)) {
        let one = ipaddr.parse(rule);
        if (one.kind() === "ipv6" && (one as ipaddr.IPv6).isIPv4MappedAddress())
          one = (one as ipaddr.IPv6).toIPv4Address();
        if (one.kind() === addr.kind() && one.toNormalizedString() === addr.toNormalizedString()) return true;
      }
    } catch {
      // A malformed rule allows nothing.
    }
  }
  return false;
}

/** Everything a handler knows about the call. */
export interface RequestContext {
  actor: Actor;
  operation: OperationMatch;
}

/**
 * Authenticates and authorises every public operation: 401 for a missing, unknown or revoked key;
 * then `ACCOUNT_NOT_ACTIVE`, `API_KEY_IP` and `API_KEY_PERMISSION` (403). Routes the contract does
 * not know pass through to the validator, which answers 404/405.
 */
export function authenticate(store: Store): RequestHandler {
  return async (req, res, next) => {
    const operation = matchOperation(req.method, req.path);
    if (!operation) return next();
    const secret = presentedSecret(req.headers as Record<string, string>);
    const claimed = secret ? modeOfSecret(secret) : null;
    const key = secret && claimed ? await store.read.apiKeys.getByDigest(digestSecret(secret)) : null;
    if (!key || key.revokedAt !== null || key.livemode !== (claimed === "production")) {
      throw new DomainError("UNAUTHORIZED");
    }
    const account = await store.read.accounts.get(key.accountId);
    if (!account) throw new DomainError("UNAUTHORIZED");
    if (key.livemode && !account.verified) throw new DomainError("ACCOUNT_NOT_ACTIVE");
    if (!ipAllowed(req.ip, key.allowedIps)) {
      throw new DomainError(
        "API_KEY_IP",
        `O endereço IP ${req.ip ?? "desconhecido"} não está autorizado para esta chave de API.`,
      );
    }
    if (!key.permissions.includes(operation.meta.permission)) {
      throw new DomainError(
        "API_KEY_PERMISSION",
        `A chave de API não tem a permissão necessária: ${operation.meta.permission}.`,
      );
    }
    const context: RequestContext = {
      actor: { scope: { accountId: account.id, livemode: key.livemode }, account, apiKey: key },
      operation,
    };
    res.locals.context = context;
    next();
  };
}
