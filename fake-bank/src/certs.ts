/**
 * Certificates made at run time, never committed: a throwaway certificate authority that issues
 * server certificates (the bank's HTTPS endpoints, a webhook listener under test) and client
 * certificates (each customer's, as a bank issues them, and the bank's own for its callbacks),
 * in PEM and in PKCS#12 (.p12), the two forms banks hand out. Made with node-forge; keys are
 * RSA 2048 made by Node's own crypto (fast) and read into forge for signing and packaging; the
 * issued certificates' keys come from a small pool per process (`leafKeyPair`).
 */
import { constants, createHash, generateKeyPairSync, privateEncrypt, randomBytes, X509Certificate } from "node:crypto";
import forge from "node-forge";

/** A certificate and its private key, both PEM. */
export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
  /** SHA-256 of the certificate's DER, upper-case hex with colons (as `X509Certificate.fingerprint256`). */
  fingerprint256: string;
  /** Not-after, ISO 8601. */
  expiresAt: string;
}

/** A certificate authority that can issue certificates. */
export interface CertificateAuthority extends IssuedCertificate {
  /** Issues a server certificate for these host names and IP addresses. */
  issueServer(hosts: string[], options?: IssueOptions): IssuedCertificate;
  /** Issues a client certificate whose subject common name is `commonName`. */
  issueClient(commonName: string, options?: IssueOptions): IssuedCertificate;
}

export interface IssueOptions {
  /** Days of validity from now (default 365); negative makes an expired certificate. */
  days?: number;
  /** Organization name in the subject. */
  organization?: string;
}

interface KeyPair {
  /** Signs forge's SHA-256 digests with Node's crypto (forge's own RSA is seconds per certificate). */
  signer: forge.pki.rsa.PrivateKey;
  publicKey: forge.pki.rsa.PublicKey;
  keyPem: string;
}

/** DER prefix of PKCS#1 v1.5 DigestInfo for SHA-256 (RFC 8017, section 9.2, note 1). */
const SHA256_DIGEST_INFO = Buffer.from("3031300d060960864801650304020105000420", "hex");

function keyPair(): KeyPair {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  const signer = Object.create(forgeKey) as forge.pki.rsa.PrivateKey;
  signer.sign = (md: forge.md.MessageDigest) => {
    const digest = Buffer.from(md.digest().getBytes(), "binary");
    const signature = privateEncrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([SHA256_DIGEST_INFO, digest]),
    );
    return signature.toString("binary");
  };
  return { signer, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), keyPem: privateKey };
}

/**
 * The keys of the certificates a CA issues (servers', clients'): a few per process, handed out in
 * turn, since an RSA 2048 key costs about 0.3 s of CPU and a fake bank issues three (its server's,
 * its callbacks', its customer's) where the test suites start dozens of banks in one process. Each
 * certificate is still its own (serial, subject, issuer, validity, fingerprint), and two issued one
 * after the other never share a key; a CA's key is always new (a forged CA never holds a real one's).
 */
const leafKeys: KeyPair[] = [];
const leafKeysKept = 4;
let leafKeysIssued = 0;

function leafKeyPair(): KeyPair {
  const index = leafKeysIssued++ % leafKeysKept;
  return (leafKeys[index] ??= keyPair());
}

function serialNumber(): string {
  // Positive (high bit clear), 16 random bytes.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString("hex");
}

function validity(cert: forge.pki.Certificate, days: number): void {
  const now = Date.now();
  cert.validity.notBefore = new Date(Math.min(now, now + days * 86_400_000) - 60_000);
  cert.validity.notAfter = new Date(now + days * 86_400_000);
}

function finish(cert: forge.pki.Certificate, keyPem: string): IssuedCertificate {
  const certPem = forge.pki.certificateToPem(cert);
  return {
    certPem,
    keyPem,
    fingerprint256: new X509Certificate(certPem).fingerprint256,
    expiresAt: cert.validity.notAfter.toISOString(),
  };
}

/** Makes a new certificate authority (self-signed, valid for `days`, default 3650). */
export function createCertificateAuthority(
  commonName = "Fake Bank Test CA",
  options: IssueOptions = {},
): CertificateAuthority {
  const ca = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = ca.publicKey;
  cert.serialNumber = serialNumber();
  validity(cert, options.days ?? 3650);
  const subject = [
    { name: "commonName", value: commonName },
    { name: "organizationName", value: options.organization ?? "Fake Bank" },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  cert.sign(ca.signer, forge.md.sha256.create());
  const self = finish(cert, ca.keyPem);

  const issue = (
    commonName: string,
    usage: "server" | "client",
    hosts: string[],
    options: IssueOptions = {},
  ): IssuedCertificate => {
    const leaf = leafKeyPair();
    const issued = forge.pki.createCertificate();
    issued.publicKey = leaf.publicKey;
    issued.serialNumber = serialNumber();
    validity(issued, options.days ?? 365);
    issued.setSubject([
      { name: "commonName", value: commonName },
      { name: "organizationName", value: options.organization ?? "Fake Bank" },
    ]);
    issued.setIssuer(cert.subject.attributes);
    const altNames = hosts.map((host) =>
      /^[\d.]+$/.test(host) || host.includes(":") ? { type: 7, ip: host } : { type: 2, value: host },
    );
    issued.setExtensions([
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: usage === "server", clientAuth: usage === "client" },
      ...(altNames.length > 0 ? [{ name: "subjectAltName", altNames }] : []),
      { name: "authorityKeyIdentifier", keyIdentifier: cert.generateSubjectKeyIdentifier().getBytes() },
    ]);
    issued.sign(ca.signer, forge.md.sha256.create());
    return finish(issued, leaf.keyPem);
  };

  return {
    ...self,
    issueServer: (hosts, options) => issue(hosts[0] ?? "localhost", "server", hosts, options),
    issueClient: (name, options) => issue(name, "client", [], options),
  };
}

/**
 * Packs a certificate and its key (and the issuer's certificates) into a PKCS#12 file, the form
 * banks hand out (.p12 / .pfx), protected by `passphrase` (AES-256 and SHA-256 MAC).
 */
export function toPkcs12(issued: IssuedCertificate, passphrase: string, chainPems: string[] = []): Buffer {
  const key = forge.pki.privateKeyFromPem(issued.keyPem);
  const chain = [issued.certPem, ...chainPems].map((pem) => forge.pki.certificateFromPem(pem));
  const p12 = forge.pkcs12.toPkcs12Asn1(key, chain, passphrase, { algorithm: "aes256", friendlyName: "pix" });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), "binary");
}

/** The certificate's SHA-256 thumbprint as OAuth2 certificate-bound tokens name it (`x5t#S256`, base64url). */
export function thumbprintS256(derOrPem: Buffer | string): string {
  const der = typeof derOrPem === "string" ? new X509Certificate(derOrPem).raw : derOrPem;
  return createHash("sha256").update(der).digest("base64url");
}
