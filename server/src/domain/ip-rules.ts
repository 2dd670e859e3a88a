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
