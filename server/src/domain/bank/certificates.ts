import { X509Certificate } from "node:crypto";
import { createSecureContext, TLSSocket } from "node:tls";
import { DomainError } from "../core/errors.js";
import type { CertificateFacts, ClientCertificateMaterial } from "./model.js";

// Reading the certificates the operator gives (issue 35 §1): node:crypto's X509Certificate for
// PEM; a PKCS#12 file is opened by node's own TLS (createSecureContext, the way the adapter will
// use it), whose local certificate then yields its DER. No secret appears in a message.

const refused = (why: string) =>
  new DomainError("REQUEST_ERROR", `O certificado do cliente não pôde ser lido: ${why}.`);

const iso = (text: string) => new Date(text).toISOString();

/** The public facts of a certificate. */
function certificateFacts(certificate: X509Certificate): CertificateFacts {
  return {
    fingerprintSha256: certificate.fingerprint256,
    subject: certificate.subject.replaceAll("\n", ", "),
    issuer: certificate.issuer.replaceAll("\n", ", "),
    notBefore: iso(certificate.validFrom),
    notAfter: iso(certificate.validTo),
  };
}

/**
 * The client certificate's facts, once TLS accepts the material (a PEM key that matches its
 * certificate, a PKCS#12 file its passphrase opens); REQUEST_ERROR otherwise.
 */
export function readClientCertificate(material: ClientCertificateMaterial): CertificateFacts {
  let context;
  try {
    context =
      material.format === "pem"
        ? createSecureContext({ cert: material.certPem, key: material.keyPem })
        : createSecureContext({
            pfx: Buffer.from(material.pfxBase64, "base64"),
            ...(material.passphrase !== null ? { passphrase: material.passphrase } : {}),
          });
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    const message = (error as Error).message ?? "";
    if (/mismatch/i.test(message) || code === "ERR_OSSL_X509_KEY_VALUES_MISMATCH")
      throw refused("a chave privada não corresponde ao certificado");
    if (/mac verify|password|decrypt/i.test(message))
      throw refused("a senha não abre o arquivo PKCS#12 (ou ele está corrompido)");
    throw refused(
      material.format === "pem" ? "o certificado ou a chave não são PEM válidos" : "não é um arquivo PKCS#12 válido",
    );
  }
  const socket = new TLSSocket(null as never, { secureContext: context });
  try {
    const local = socket.getCertificate();
    if (!local || !("raw" in local) || !local.raw) throw refused("o arquivo não contém um certificado");
    return certificateFacts(new X509Certificate(local.raw));
  } finally {
    socket.destroy();
  }
}

/** The bank CA's facts; REQUEST_ERROR when the text is not a certificate. */
export function readCaCertificate(pem: string): CertificateFacts {
  try {
    return certificateFacts(new X509Certificate(pem));
  } catch {
    throw new DomainError("REQUEST_ERROR", "bankCaPem não é um certificado PEM válido.");
  }
}
