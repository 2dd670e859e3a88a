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

/**
 * Whether one IP address may receive webhooks: only public unicast. Loopback, private,
 * link-local, unique-local, multicast, unspecified, reserved and carrier-grade NAT ranges are
 * refused, in IPv4, IPv6 and IPv4-mapped IPv6 alike. Test mode may allow loopback.
 */
export function checkAddress(ip: string, policy: GuardPolicy): AddressVerdict {
  if (!ipaddr.isValid(ip)) return "endereço IP inválido";
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  const range = addr.range();
  if (range === "unicast") return null;
  if (range === "loopback" && !policy.livemode && policy.allowLoopbackForTest) return null;
  return `o endereço ${addr.toString()} não é público (${range})`;
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
