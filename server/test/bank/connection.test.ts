import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";
import { pino } from "pino";
import { expect, test } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { loadBankCredentials, MasterKeyMismatchError, recordBankHealth } from "../../src/domain/bank/index.js";
import { openWebhookSecret } from "../../src/domain/webhooks/index.js";
import { isSealed, Keyring, sealedKeyId } from "../../src/domain/core/secrets.js";
import { createDomain } from "../../src/domain/service.js";
import { bodyOf, operatorApi, rawCall, startTestServer, type TestServer, testAdminToken } from "../harness.js";
import { runAdmin } from "../support/admin-process.js";
import { codeOf, withTwoFactor } from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// The bank connection and the secrets at rest (issue 35 §1), through the operator API and the CLI
// on both stores: secrets never in a read, a log line or the change log; TOTP secrets sealed in the
// store's rows; a rotation re-wraps every secret under the new key; a keyring that cannot open
// what the store holds refuses to start. Certificates are made here, at test time.

const dayMs = 86_400_000;

/** A self-signed certificate valid from `fromDays` to `toDays` (days from `now`), with its key. */
function certificate(now: Date, fromDays: number, toDays: number, cn = "Pix Charging Service Ltda") {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const key = forge.pki.privateKeyFromPem(keyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = `01${randomBytes(8).toString("hex")}`;
  cert.validity.notBefore = new Date(now.getTime() + fromDays * dayMs);
  cert.validity.notAfter = new Date(now.getTime() + toDays * dayMs);
  const attrs = [{ name: "commonName", value: cn }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(key, forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  const pkcs12 = (passphrase: string) =>
    Buffer.from(
      forge.asn1.toDer(forge.pkcs12.toPkcs12Asn1(key, [cert], passphrase, { algorithm: "3des" })).getBytes(),
      "binary",
    ).toString("base64");
  return { certPem, keyPem, pkcs12, notAfter: cert.validity.notAfter };
}

const ring = (...ids: string[]) => new Keyring(ids.map((id) => ({ id, key: randomBytes(32) })));
const k1 = ring("k1").newest;
const k2 = ring("k2").newest;

const clientSecret = "Client_Secret_9b8e7d6c5a4f3e2d1c0b_não_mostrar";

function connectionBody(server: TestServer, cert = certificate(server.clock.now(), -1, 365)) {
  return {
    baseUrl: "https://pix.banco.example.com.br/api/v2",
    tokenUrl: "https://pix.banco.example.com.br/oauth/token",
    clientId: "Client_Id_4f9a2c",
    clientSecret,
    certificate: { format: "pem" as const, certificatePem: cert.certPem, privateKeyPem: cert.keyPem },
    pixKey: "pix@pixcharging.example.com.br",
    dialect: "standard" as const,
    webhookUrl: "https://webhooks.pixcharging.example.com.br/banco",
  };
}

/** Every text a secret could hide in: the secret itself and its key's PEM body. */
const secretsOf = (cert: { keyPem: string }) => [clientSecret, cert.keyPem.split("\n")[1] ?? "", "PRIVATE KEY"];

for (const store of eachStore("bank-connection")) {
  store.describe(`the bank connection on the ${store.name} store`, () => {
    const lines: string[] = [];
    const logger = pino({ level: "trace" }, { write: (line: string) => void lines.push(line) });
    const server = serverOn(store, { logger, secrets: new Keyring([k1]) });
    const operator = () => operatorApi(server.baseUrl, { token: testAdminToken });

    test("when the operator sets, changes, reads and removes the connection, then no read, log line or change entry holds a secret", async () => {
      const cert = certificate(server.clock.now(), -1, 365);
      const set = await bodyOf(
        operator().PUT("/admin/v1/bank-connection", { body: connectionBody(server, cert) }),
        200,
      );
      expect(set.clientSecret).toEqual({ configured: true });
      expect(set.certificate.privateKeyConfigured).toBe(true);
      expect(new Date(set.certificate.notAfter).getTime()).toBe(Math.floor(cert.notAfter.getTime() / 1000) * 1000);
      expect(set.health.status).toBe("ok");

      const renewed = certificate(server.clock.now(), -1, 400);
      const changed = await bodyOf(
        operator().PATCH("/admin/v1/bank-connection", {
          body: {
            clientSecret: `${clientSecret}-2`,
            certificate: { format: "pkcs12", pkcs12Base64: renewed.pkcs12("senha-do-pfx"), passphrase: "senha-do-pfx" },
          },
        }),
        200,
      );
      expect(changed.version).toBe(2);
      expect(changed.certificate.format).toBe("pkcs12");
      expect(changed.certificate.fingerprintSha256).not.toBe(set.certificate.fingerprintSha256);
      expect(changed.recentChanges[0]?.changes.clientSecret).toEqual({ from: "configurado", to: "substituído" });

      const read = await bodyOf(operator().GET("/admin/v1/bank-connection"), 200);
      const credentials = await loadBankCredentials(server.deps);
      expect(credentials?.clientSecret).toBe(`${clientSecret}-2`);
      expect(credentials?.certificate).toEqual(
        expect.objectContaining({ format: "pkcs12", passphrase: "senha-do-pfx" }),
      );
      const ready = await rawCall<{ bank?: { status: string } }>(server.baseUrl, "GET", "/ready");
      const cli = await runAdmin(["--json", "bank", "show"], {
        PIX_ADMIN_URL: server.baseUrl,
        ADMIN_TOKEN: testAdminToken,
      });
      expect(cli.code, cli.stderr).toBe(0);
      await bodyOf(operator().DELETE("/admin/v1/bank-connection"), 204);
      const stored = JSON.stringify(await server.store.read.bankConnectionChanges.listRecent(20));

      for (const text of [
        JSON.stringify(set),
        JSON.stringify(changed),
        JSON.stringify(read),
        JSON.stringify(ready.body),
        cli.stdout,
        stored,
        lines.join(""),
      ]) {
        for (const secret of [...secretsOf(cert), ...secretsOf(renewed), "senha-do-pfx"])
          expect(text).not.toContain(secret);
      }
      expect(JSON.parse(stored)).toHaveLength(3);
      await bodyOf(operator().GET("/admin/v1/bank-connection"), 404);
    });

    test("when the key is not the certificate's, or the certificate has expired, then 400 and nothing is set", async () => {
      const a = certificate(server.clock.now(), -1, 365);
      const b = certificate(server.clock.now(), -1, 365);
      const mismatch = await rawCall<{ message: string }>(server.baseUrl, "PUT", "/admin/v1/bank-connection", {
        admin: testAdminToken,
        body: {
          ...connectionBody(server),
          certificate: { format: "pem", certificatePem: a.certPem, privateKeyPem: b.keyPem },
        },
      });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.message).toContain("a chave privada não corresponde ao certificado");
      const expired = await rawCall<{ message: string }>(server.baseUrl, "PUT", "/admin/v1/bank-connection", {
        admin: testAdminToken,
        body: connectionBody(server, certificate(server.clock.now(), -60, -1)),
      });
      expect(expired.status).toBe(400);
      expect(expired.body.message).toContain("expirou");
      const wrongPassphrase = await rawCall(server.baseUrl, "PUT", "/admin/v1/bank-connection", {
        admin: testAdminToken,
        body: {
          ...connectionBody(server),
          certificate: { format: "pkcs12", pkcs12Base64: a.pkcs12("certa"), passphrase: "errada" },
        },
      });
      expect(wrongPassphrase.status).toBe(400);
      await bodyOf(operator().GET("/admin/v1/bank-connection"), 404);
    });

    test.each([
      { field: "baseUrl", value: "https://usuario:senha@pix.banco.example.com.br/api/v2" },
      { field: "tokenUrl", value: "https://client_id@pix.banco.example.com.br/oauth/token" },
    ])(
      "when $field names a user or password before its host, then 400 naming $field, nothing is set and the value is not echoed",
      async ({ field, value }) => {
        const refused = await rawCall<{ code: string; errors?: { path: string; message: string }[] }>(
          server.baseUrl,
          "PUT",
          "/admin/v1/bank-connection",
          { admin: testAdminToken, body: { ...connectionBody(server), [field]: value } },
        );

        expect(refused.status).toBe(400);
        expect(refused.body.code).toBe("VALIDATION_ERROR");
        expect(refused.body.errors).toEqual([
          {
            path: field,
            message:
              "deve ser um endereço https, sem usuário nem senha antes do host (as credenciais vão em clientId e clientSecret)",
          },
        ]);
        expect(JSON.stringify(refused.body)).not.toContain("@pix.banco");
        await bodyOf(operator().GET("/admin/v1/bank-connection"), 404);
      },
    );

    test("when the certificate expires within 30 days, then /ready warns and stays ready; once expired, it says so and stays ready", async () => {
      const cert = certificate(server.clock.now(), -1, 20);
      await bodyOf(operator().PUT("/admin/v1/bank-connection", { body: connectionBody(server, cert) }), 200);
      const expiring = await rawCall<{ ok: boolean; bank: { status: string; warnings: string[] } }>(
        server.baseUrl,
        "GET",
        "/ready",
      );
      expect(expiring.status).toBe(200);
      expect(expiring.body.bank.status).toBe("certificate_expiring");
      expect(expiring.body.bank.warnings[0]).toContain("expira em");
      server.clock.advance(21 * 86_400);
      const expired = await rawCall<{ ok: boolean; bank: { status: string; warnings: string[] } }>(
        server.baseUrl,
        "GET",
        "/ready",
      );
      expect(expired.status).toBe(200);
      expect(expired.body.bank.status).toBe("certificate_expired");
      const view = await bodyOf(operator().GET("/admin/v1/bank-connection"), 200);
      expect(view.health.status).toBe("certificate_expired");
      await bodyOf(operator().DELETE("/admin/v1/bank-connection"), 204);
      const none = await rawCall<{ ok: boolean; bank?: unknown }>(server.baseUrl, "GET", "/ready");
      expect(none.body).toEqual({ ok: true });
    });

    test("when a call to the bank failed, then /ready says so without the error's words, and the operator's view has them", async () => {
      await bodyOf(operator().PUT("/admin/v1/bank-connection", { body: connectionBody(server) }), 200);
      const words = "registro do webhook: o banco respondeu 400 (client_secret=abc123 inválido)";
      await recordBankHealth(server.deps, { lastError: { at: server.clock.now().toISOString(), message: words } });

      const ready = await rawCall<{ bank: { status: string; warnings: string[] } }>(server.baseUrl, "GET", "/ready");
      const view = await bodyOf(operator().GET("/admin/v1/bank-connection"), 200);
      await bodyOf(operator().DELETE("/admin/v1/bank-connection"), 204);

      expect(ready.body.bank.status).toBe("failing");
      expect(ready.body.bank.warnings.join(" ")).toContain("A última chamada ao banco falhou");
      expect(JSON.stringify(ready.body)).not.toContain("abc123");
      expect(JSON.stringify(view.health)).toContain(words);
    });

    test("when a user turns two-factor on, then the store's row holds the TOTP secret sealed, never in clear", async () => {
      const { session, secret } = await withTwoFactor(server);
      const row = await server.store.read.users.get(session.user.id);
      expect(row?.totpSecret).not.toBeNull();
      expect(isSealed(row?.totpSecret ?? "")).toBe(true);
      expect(row?.totpSecret).not.toContain(secret);
      expect(sealedKeyId(row?.totpSecret ?? "")).toBe("k1");
      expect(lines.join("")).not.toContain(secret);
    });

    /** A webhook endpoint made through the operator API: its id and the signing secret its answer shows. */
    async function endpointMade(): Promise<{ id: string; secret: string }> {
      const { account } = await server.newAccount();
      const created = await bodyOf(
        operator().POST("/admin/v1/accounts/{id}/webhook-endpoints", {
          params: { path: { id: account.id } },
          // A public IP literal: no worker runs here, so nothing is sent.
          body: { url: "https://93.184.215.14/webhook", mode: "test", events: ["transaction.paid"] },
        }),
        201,
      );
      return { id: created.id, secret: created.secret };
    }

    test("when a webhook endpoint is made and its secret rotated, then the store's row holds both secrets sealed, never in clear, and the answers show them opened", async () => {
      const made = await endpointMade();
      const rotated = await bodyOf(
        operator().POST("/admin/v1/webhook-endpoints/{id}/rotate-secret", { params: { path: { id: made.id } } }),
        200,
      );
      const row = await server.store.read.webhookEndpoints.get(made.id);

      expect(made.secret).toMatch(/^whsec_/);
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(isSealed(row?.secret ?? "")).toBe(true);
      expect(isSealed(row?.previousSecret ?? "")).toBe(true);
      expect(sealedKeyId(row?.secret ?? "")).toBe("k1");
      expect(JSON.stringify(row)).not.toContain(made.secret.slice(6));
      expect(JSON.stringify(row)).not.toContain(rotated.secret.slice(6));
      expect(openWebhookSecret(new Keyring([k1]), row?.secret ?? "")).toBe(rotated.secret);
      expect(openWebhookSecret(new Keyring([k1]), row?.previousSecret ?? "")).toBe(made.secret);
      expect(lines.join("")).not.toContain(made.secret.slice(6));
    });

    test("when a key is added and the secrets are rotated, then every secret is re-wrapped under it and still opens; the old key alone no longer starts", async () => {
      const { person, secret, session } = await withTwoFactor(server);
      await bodyOf(operator().PUT("/admin/v1/bank-connection", { body: connectionBody(server) }), 200);
      const endpoint = await endpointMade();

      // The same store, served by a process whose MASTER_KEYS has the new key last.
      const next = await startTestServer({ store: server.store, clock: server.clock, secrets: new Keyring([k1, k2]) });
      try {
        const run = await runAdmin(["--json", "secrets", "rotate"], {
          PIX_ADMIN_URL: next.baseUrl,
          ADMIN_TOKEN: testAdminToken,
        });
        expect(run.code, run.stderr).toBe(0);
        const rotation = JSON.parse(run.stdout) as {
          keyId: string;
          totpSecrets: number;
          bankSecrets: number;
          webhookSecrets: number;
        };
        expect(rotation.keyId).toBe("k2");
        expect(rotation.totpSecrets).toBeGreaterThanOrEqual(1);
        expect(rotation.bankSecrets).toBe(2);
        expect(rotation.webhookSecrets).toBeGreaterThanOrEqual(1);
        const endpointRow = await server.store.read.webhookEndpoints.get(endpoint.id);
        expect(sealedKeyId(endpointRow?.secret ?? "")).toBe("k2");
        expect(openWebhookSecret(new Keyring([k2]), endpointRow?.secret ?? "")).toBe(endpoint.secret);

        const row = await server.store.read.users.get(session.user.id);
        expect(sealedKeyId(row?.totpSecret ?? "")).toBe("k2");
        const connection = await server.store.read.bankConnection.get();
        expect(sealedKeyId(connection?.clientSecret ?? "")).toBe("k2");
        expect(sealedKeyId(connection?.certificate.sealed ?? "")).toBe("k2");
        // The new key alone opens everything.
        const onlyNew = { ...next.deps, secrets: new Keyring([k2]) };
        expect((await loadBankCredentials(onlyNew))?.clientSecret).toBe(clientSecret);
        await createDomain(onlyNew).sealedSecrets.prepare();
        server.clock.advance(60);
        const login = await rawCall(next.baseUrl, "POST", "/dashboard/v1/session", {
          body: { email: person.email, password: person.password, code: codeOf(server, secret) },
          headers: { origin: "https://pix.example.test" },
        });
        expect(login.status).toBe(201);
        // A process with the old key alone refuses to start, naming the key it lacks.
        const prepare = createDomain({ ...next.deps, secrets: new Keyring([k1]) }).sealedSecrets.prepare();
        await expect(prepare).rejects.toThrow(MasterKeyMismatchError);
        await expect(prepare).rejects.toThrow(/chave "k2"/);
      } finally {
        await next.close();
        await bodyOf(operator().DELETE("/admin/v1/bank-connection"), 204);
      }
    });

    test("when the store holds a TOTP secret in clear (written before sealing), then start-up seals it and the user still logs in", async () => {
      const { person, secret, session } = await withTwoFactor(server);
      await server.store.transaction(async (tx) => {
        const user = await tx.users.get(session.user.id);
        if (user) await tx.users.update({ ...user, totpSecret: secret });
      });
      // The rotation above left secrets under k2: this process's keyring has both, k1 newest.
      const { sealed } = await createDomain({ ...server.deps, secrets: new Keyring([k2, k1]) }).sealedSecrets.prepare();
      expect(sealed).toBeGreaterThanOrEqual(1);
      const row = await server.store.read.users.get(session.user.id);
      expect(isSealed(row?.totpSecret ?? "")).toBe(true);
      server.clock.advance(60);
      const login = await rawCall(server.baseUrl, "POST", "/dashboard/v1/session", {
        body: { email: person.email, password: person.password, code: codeOf(server, secret) },
        headers: { origin: "https://pix.example.test" },
      });
      expect(login.status).toBe(201);
    });

    test("when the store holds a webhook secret in clear (written before sealing), then start-up seals it and it opens to the same secret", async () => {
      const made = await endpointMade();
      await server.store.transaction(async (tx) => {
        const endpoint = await tx.webhookEndpoints.get(made.id);
        if (endpoint) await tx.webhookEndpoints.update({ ...endpoint, secret: made.secret });
      });
      const keyring = new Keyring([k2, k1]);
      const { sealed } = await createDomain({ ...server.deps, secrets: keyring }).sealedSecrets.prepare();
      const row = await server.store.read.webhookEndpoints.get(made.id);

      expect(sealed).toBeGreaterThanOrEqual(1);
      expect(isSealed(row?.secret ?? "")).toBe(true);
      expect(openWebhookSecret(keyring, row?.secret ?? "")).toBe(made.secret);
    });

    test("when the CLI connects with files (PEM, then PKCS#12) and removes, then the connection follows and no secret is printed", async () => {
      const dir = mkdtempSync(join(tmpdir(), "bank-cli-"));
      try {
        const cert = certificate(server.clock.now(), -1, 365);
        const put = (name: string, text: string) => {
          writeFileSync(join(dir, name), text);
          return join(dir, name);
        };
        const env = { PIX_ADMIN_URL: server.baseUrl, ADMIN_TOKEN: testAdminToken };
        const common = [
          "--base-url",
          "https://pix.banco.example.com.br/api/v2",
          "--token-url",
          "https://pix.banco.example.com.br/oauth/token",
          "--client-id",
          "Client_Id_4f9a2c",
          "--client-secret-file",
          put("secret.txt", `${clientSecret}\n`),
          "--pix-key",
          "pix@pixcharging.example.com.br",
        ];
        const pem = await runAdmin(
          [
            "--json",
            "bank",
            "connect",
            ...common,
            "--cert",
            put("c.pem", cert.certPem),
            "--key",
            put("k.pem", cert.keyPem),
          ],
          env,
        );
        expect(pem.code, pem.stderr).toBe(0);
        expect(JSON.parse(pem.stdout).certificate.format).toBe("pem");
        const p12 = join(dir, "c.p12");
        writeFileSync(p12, Buffer.from(cert.pkcs12("s3nha"), "base64"));
        const pfx = await runAdmin(
          [
            "bank",
            "connect",
            ...common,
            "--dialect",
            "efi",
            "--pfx",
            p12,
            "--passphrase-file",
            put("p.txt", "s3nha\n"),
          ],
          env,
        );
        expect(pfx.code, pfx.stderr).toBe(0);
        const shown = await runAdmin(["bank", "show"], env);
        expect(shown.code, shown.stderr).toBe(0);
        expect(shown.stdout).toContain("efi");
        const removed = await runAdmin(["bank", "remove"], env);
        expect(removed.code, removed.stderr).toBe(0);
        for (const out of [pem.stdout, pfx.stdout, shown.stdout, removed.stdout])
          for (const secret of [...secretsOf(cert), "s3nha"]) expect(out).not.toContain(secret);
        await bodyOf(operator().GET("/admin/v1/bank-connection"), 404);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  });
}

test("when NODE_ENV=production has no MASTER_KEYS, or the development key, then the configuration is refused saying how to make one", () => {
  const production = { NODE_ENV: "production", PUBLIC_BASE_URL: "https://pix.example.com.br" };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      return error as ConfigError;
    }
    throw new Error("accepted");
  };
  expect(refusal(production).problems.join("\n")).toContain("MASTER_KEYS é obrigatória com NODE_ENV=production");
  const development = createHash("sha256").update("pix-charging-service: development master key").digest("base64");
  expect(refusal({ ...production, MASTER_KEYS: `dev:${development}` }).problems.join("\n")).toContain(
    "chave de desenvolvimento",
  );
  expect(refusal({ ...production, MASTER_KEYS: "k1:curta" }).problems.join("\n")).toContain("32 bytes");
  const good = `k0:${randomBytes(32).toString("base64")},k1:${randomBytes(32).toString("base64")}`;
  expect(loadConfig({ ...production, MASTER_KEYS: good }).masterKeys?.newest.id).toBe("k1");
});
