/**
 * `npm run bank`: starts the fake bank and prints what the operator gives the service
 * (`admin bank connect …`): base URL, token URL, client id and secret, the files of the client
 * certificate (PEM and PKCS#12) and the bank's CA, written to a state folder outside the
 * repository, and the page's URL.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Command, Option } from "commander";
import { inPortuguese } from "../../server/src/cli/portuguese.js";
import { startFakeBank, type Dialect } from "./bank.js";
import { createCertificateAuthority } from "./certs.js";

// Its help and refusals in Portuguese, as the service's CLI says them.
const program = inPortuguese(new Command("bank"), { showGlobalOptions: false, helpWidth: 100 })
  .description("Banco fictício local (API Pix do Banco Central, mTLS, OAuth2) para testar o modo de produção.")
  .option("--port <n>", "porta HTTPS da API", "8443")
  .option("--control-port <n>", "porta HTTP do controle e da página", "8480")
  .addOption(new Option("--dialect <d>", "dialeto").choices(["standard", "efi", "inter"]).default("standard"))
  .option("--latency <ms>", "atraso de cada resposta da API", "0")
  .addOption(
    new Option(
      "--callback-connections <modo>",
      "conexões dos callbacks: mantidas para os seguintes ou uma nova por callback",
    )
      .choices(["kept", "new"])
      .default("kept"),
  )
  .option("--key <chave...>", "chave(s) Pix da conta do cliente (padrão: uma chave aleatória)")
  .option("--client-id <id>", "client id do cliente")
  .option("--webhook-ca <arquivo...>", "CA(s) em PEM que assinam o certificado do webhook do serviço")
  .option("--state-dir <pasta>", "onde gravar certificados e credenciais", join(tmpdir(), "pix-fake-bank"))
  .option(
    "--listener-port <n>",
    "porta do receptor de webhooks do serviço (PIX_BANK_WEBHOOK_PORT) nos comandos impressos",
    "8445",
  )
  .parse();

const options = program.opts<{
  port: string;
  controlPort: string;
  dialect: Dialect;
  latency: string;
  callbackConnections: "kept" | "new";
  key?: string[];
  clientId?: string;
  webhookCa?: string[];
  stateDir: string;
  listenerPort: string;
}>();

// The service's webhook listener needs a server certificate the bank trusts: one is issued here by
// a CA of this run, trusted beside any --webhook-ca, so `npm start` can use it as it is.
const listenerCa = createCertificateAuthority("Pix fake bank: service listener CA");
const listenerCertificate = listenerCa.issueServer(["localhost", "127.0.0.1"]);

const bank = await startFakeBank({
  port: Number(options.port),
  controlPort: Number(options.controlPort),
  dialect: options.dialect,
  latencyMs: Number(options.latency),
  callbackConnections: options.callbackConnections,
  customer: {
    ...(options.key === undefined ? {} : { keys: options.key }),
    ...(options.clientId === undefined ? {} : { clientId: options.clientId }),
  },
  webhookCa: [listenerCa.certPem, ...(options.webhookCa ?? []).map((file) => readFileSync(file, "utf8"))],
});

const dir = resolve(options.stateDir);
mkdirSync(dir, { recursive: true, mode: 0o700 });
const files = {
  ca: join(dir, "bank-ca.pem"),
  cert: join(dir, "client-cert.pem"),
  key: join(dir, "client-key.pem"),
  p12: join(dir, "client.p12"),
  credentials: join(dir, "credentials.json"),
  clientSecret: join(dir, "client-secret.txt"),
  listenerCert: join(dir, "listener-cert.pem"),
  listenerKey: join(dir, "listener-key.pem"),
};
const { customer } = bank;
writeFileSync(files.ca, bank.caPem);
writeFileSync(files.cert, customer.certPem);
writeFileSync(files.key, customer.keyPem, { mode: 0o600 });
writeFileSync(files.p12, customer.p12, { mode: 0o600 });
writeFileSync(files.clientSecret, `${customer.clientSecret}\n`, { mode: 0o600 });
writeFileSync(files.listenerCert, listenerCertificate.certPem);
writeFileSync(files.listenerKey, listenerCertificate.keyPem, { mode: 0o600 });
const credentials = {
  dialect: bank.dialect,
  baseUrl: bank.baseUrl,
  tokenUrl: bank.tokenUrl,
  clientId: customer.clientId,
  clientSecret: customer.clientSecret,
  pixKey: customer.keys[0],
  certificate: files.cert,
  privateKey: files.key,
  pkcs12: files.p12,
  pkcs12Passphrase: customer.p12Passphrase,
  bankCa: files.ca,
  controlUrl: bank.controlUrl,
  pageUrl: bank.pageUrl,
  listenerCertificate: files.listenerCert,
  listenerPrivateKey: files.listenerKey,
};
writeFileSync(files.credentials, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });

/** `value` as one word of a POSIX shell command line (quoted when it has to be). */
const word = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`);
const serviceCommand = [
  `PIX_BANK_WEBHOOK_PORT=${options.listenerPort}`,
  `PIX_BANK_WEBHOOK_CERT_FILE=${word(files.listenerCert)}`,
  `PIX_BANK_WEBHOOK_KEY_FILE=${word(files.listenerKey)}`,
  // The account a cycle charge of Pix Automático credits (fake-bank/src/rec.ts).
  `PIX_BANK_ACCOUNT=${bank.recurrences.accountOf(customer.clientId)}`,
  "npm start",
].join(" ");
const connectCommand = [
  "npm run admin -- bank connect",
  `--base-url ${word(bank.baseUrl)} --token-url ${word(bank.tokenUrl)}`,
  `--client-id ${word(customer.clientId)} --client-secret-file ${word(files.clientSecret)}`,
  `--cert ${word(files.cert)} --key ${word(files.key)} --ca ${word(files.ca)}`,
  `--pix-key ${word(customer.keys[0] ?? "")} --dialect ${bank.dialect}`,
  `--webhook-url https://localhost:${options.listenerPort}/banco`,
].join(" \\\n    ");

process.stdout.write(`Banco fictício no ar (dialeto ${bank.dialect}).

  URL base da API      ${bank.baseUrl}
  URL do token         ${bank.tokenUrl}
  client id            ${customer.clientId}
  client secret        ${customer.clientSecret}
  chave Pix            ${customer.keys.join(", ")}
  conta                ${bank.recurrences.accountOf(customer.clientId)}
  certificado (PEM)    ${files.cert}
  chave privada (PEM)  ${files.key}
  PKCS#12              ${files.p12}  (senha: ${customer.p12Passphrase})
  CA do banco          ${files.ca}
  tudo em JSON         ${files.credentials}

  App do banco         ${bank.pageUrl}
  API de controle      ${bank.controlUrl}

Os callbacks confiam no certificado do receptor gravado aqui${options.webhookCa ? ` e em: ${options.webhookCa.join(", ")}` : ""}.

O serviço com o receptor dos callbacks (outro terminal):

  ${serviceCommand}

A conexão, como operador (com o PIX_ADMIN_URL e o ADMIN_TOKEN que o serviço imprime):

  ${connectCommand}

Ctrl+C encerra.
`);

const stop = () => {
  void bank.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
