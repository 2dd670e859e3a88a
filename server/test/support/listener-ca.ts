import { type CertificateAuthority, createCertificateAuthority } from "../../../fake-bank/src/certs.js";

let shared: CertificateAuthority | undefined;

/**
 * The CA of the service's webhook listeners in the tests, one per process (a fake bank trusts it for
 * its callbacks): a new CA is a new RSA key, about 0.15–0.3 s of CPU, and every bank file made its
 * own for each listener. A stranger's certificate still comes from a CA its test makes.
 */
export function listenerCertificateAuthority(): CertificateAuthority {
  shared ??= createCertificateAuthority("Test listeners CA");
  return shared;
}
