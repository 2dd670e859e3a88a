import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import ipaddr from "ipaddr.js";

/** Why a webhook address is refused, in Portuguese; null when it is allowed. */
export type AddressVerdict = string | null;

export interface GuardPolicy {
  /** Production endpoints: https only, public addresses only. */
  livemode: boolean;
  /** `PIX_ALLOW_LOCAL_WEBHOOKS=1`: test-mode endpoints may target loopback (development only). */
  allowLoopbackForTest: boolean;
}

const ipv4 = (high: number, low: number) =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff].map((b) => b & 0xff));

/**
 * The IPv4 addresses an IPv6 address carries and that a router may reach through it: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated but still routed by some stacks),
 * SIIT (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) and Teredo
 * (server and obfuscated client). Empty for any other address.
 */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = addr.parts as [number, number, number, number, number, number, number, number];
  const range = addr.range();
  const last = ipv4(p[6], p[7]);
  if (range === "ipv4Mapped" || range === "rfc6145") return [last];
  if (range === "rfc6052" && p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return [last];
  if (range === "6to4") return [ipv4(p[1], p[2])];
  if (range === "teredo") return [ipv4(p[2], p[3]), ipv4(~p[6], ~p[7])];
  // IPv4-compatible: ::/96 except :: and ::1 themselves.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1)) return [last];
  return [];
}

/**
 * Whether one IP address may receive webhooks: only public unicast, as ipaddr.js classifies it.
 * An IPv6 address that carries an IPv4 address (mapped, compatible, SIIT, NAT64, 6to4, Teredo) is
 * judged by the IPv4 address it carries. Test mode may allow loopback.
 */
export function checkAddress(ip: string, policy: GuardPolicy): AddressVerdict {
  if (!ipaddr.isValid(ip)) return "endereço IP inválido";
  const addr = ipaddr.parse(ip);
  const judged: (ipaddr.IPv4 | ipaddr.IPv6)[] =
    addr.kind() === "ipv6" ? embeddedIPv4(addr as ipaddr.IPv6) : [addr as ipaddr.IPv4];
  if (judged.length === 0) judged.push(addr);
  for (const one of judged) {
    const range = one.range();
    if (range === "unicast") continue;
    if (range === "loopback" && !policy.livemode && policy.allowLoopbackForTest) continue;
    return `o endereço ${one.toString()} não é público (${range})`;
  }
  // An address of a tunnelling or translation range that carries no IPv4 (64:ff9b:1::/48 and the like).
  if (addr.kind() === "ipv6" && judged[0] === addr && addr.range() !== "unicast") {
    return `o endereço ${addr.toString()} não é público (${addr.range()})`;
  }
  return null;
}

/** Resolves a host name to every address it has (an IP literal resolves to itself). */
function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/**
 * Checks a webhook URL: scheme (https for production), no credentials, and every address the
 * host resolves to. Hosts written as decimal integers or other IPv4 shorthands are normalised by
 * the URL parser first (`http://2130706433/` is 127.0.0.1), so they are checked as what they are.
 */
export async function checkWebhookUrl(url: string, policy: GuardPolicy): Promise<AddressVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "não é um endereço (URL) válido";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "deve ser http ou https";
  if (policy.livemode && parsed.protocol !== "https:") return "endpoints de produção devem usar https";
  if (parsed.username || parsed.password) return "não pode conter usuário ou senha";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: LookupAddress[];
  try {
    addresses = ipaddr.isValid(host) ? [{ address: host, family: host.includes(":") ? 6 : 4 }] : await resolveAll(host);
  } catch {
    return `o nome ${host} não resolve`;
  }
  if (addresses.length === 0) return `o nome ${host} não resolve`;
  for (const a of addresses) {
    const verdict = checkAddress(a.address, policy);
    if (verdict) return verdict;
  }
  return null;
}

/**
 * A `lookup` for http(s).request that refuses non-public addresses at connect time, so a name
 * that resolved to a public address at registration cannot be re-pointed (DNS rebinding).
 */
export function guardedLookup(policy: GuardPolicy) {
  return (
    hostname: string,
    options: object,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      for (const a of addresses) {
        const verdict = checkAddress(a.address, policy);
        if (verdict) {
          const refused = new Error(`endereço bloqueado: ${verdict}`) as NodeJS.ErrnoException;
          refused.code = "EADDRBLOCKED";
          return callback(refused, "", 0);
        }
      }
      const all = (options as { all?: boolean }).all;
      const first = addresses[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), "", 0);
      if (all) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}
