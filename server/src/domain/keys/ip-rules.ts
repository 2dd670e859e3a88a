import ipaddr from "ipaddr.js";

/** Whether a string is one IPv4/IPv6 address or a CIDR range. */
export function ipRuleValid(rule: string): boolean {
  if (rule.includes("/")) {
    try {
      ipaddr.parseCIDR(rule);
      return true;
    } catch {
      return false;
    }
  }
  return ipaddr.isValid(rule);
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
