/**
 * `admin bank …` and `admin secrets rotate`: the platform's bank connection (issue 35 §1) and the
 * rotation of MASTER_KEYS. Certificates, keys, PKCS#12 files and the client secret are read from
 * files (never from the command line, which `ps` and shell history keep) and sent once; no
 * command prints a secret back (the API never answers one).
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { CliError, unwrap } from "../clients.js";
import { type CliContext, type PageOptions, pageQuery, withPageOptions } from "../context.js";

const shown = [
  "version",
  "baseUrl",
  "tokenUrl",
  "clientId",
  "pixKey",
  "dialect",
  "webhookUrl",
  "payoutLimitCents",
  "updatedAt",
];

/** `--payout-limit-cents`: R$ 1,00 to R$ 10.000.000,00 in cents, as the API takes it. */
function payoutLimitOf(value: string): number {
  const cents = Number(value);
  if (!Number.isInteger(cents) || cents < 100 || cents > 1_000_000_000)
    throw new CliError("--payout-limit-cents: informe um número inteiro de centavos, de 100 a 1000000000");
  return cents;
}

/** A file's text (or bytes), or a one-line error naming the option. */
function readFrom(path: string, option: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new CliError(`${option}: não foi possível ler ${path} (${(error as NodeJS.ErrnoException).code ?? "erro"})`);
  }
}

interface ConnectOptions {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecretFile: string;
  cert?: string;
  key?: string;
  pfx?: string;
  passphraseFile?: string;
  ca?: string;
  pixKey: string;
  dialect: "standard" | "efi" | "inter";
  webhookUrl?: string;
  payoutLimitCents?: string;
}

function certificateFrom(o: ConnectOptions) {
  if (o.pfx) {
    if (o.cert || o.key) throw new CliError("use --pfx ou --cert com --key, não ambos");
    return {
      format: "pkcs12" as const,
      pkcs12Base64: readFrom(o.pfx, "--pfx").toString("base64"),
      passphrase: o.passphraseFile ? readFrom(o.passphraseFile, "--passphrase-file").toString("utf8").trim() : null,
    };
  }
  if (!o.cert || !o.key) throw new CliError("informe o certificado: --cert e --key (PEM) ou --pfx (PKCS#12)");
  return {
    format: "pem" as const,
    certificatePem: readFrom(o.cert, "--cert").toString("utf8"),
    privateKeyPem: readFrom(o.key, "--key").toString("utf8"),
  };
}

export function registerBank(program: Command, ctx: CliContext): void {
  const bank = program.command("bank").description("a conexão da plataforma com o banco (API Pix do Banco Central)");

  bank
    .command("connect")
    .description("configura (ou substitui) a conexão bancária; segredos lidos de arquivos")
    .requiredOption("--base-url <url>", "endereço base da API Pix do banco (https://…)")
    .requiredOption("--token-url <url>", "endereço do token OAuth2 (https://…)")
    .requiredOption("--client-id <id>", "client id emitido pelo banco")
    .requiredOption("--client-secret-file <path>", "arquivo com o client secret")
    .option("--cert <path>", "certificado do cliente (PEM)")
    .option("--key <path>", "chave privada do certificado (PEM)")
    .option("--pfx <path>", "certificado e chave em PKCS#12 (.p12/.pfx)")
    .option("--passphrase-file <path>", "arquivo com a senha do PKCS#12")
    .option("--ca <path>", "certificado da AC do banco (PEM)")
    .requiredOption("--pix-key <key>", "chave Pix recebedora da conta da plataforma")
    .option("--dialect <dialect>", "standard, efi ou inter", "standard")
    .option("--webhook-url <url>", "endereço público do nosso receptor de webhooks do banco")
    .option(
      "--payout-limit-cents <cents>",
      "o máximo de uma transferência Pix de um saque, em centavos (padrão 1500000: R$ 15.000,00)",
    )
    .action(async (o: ConnectOptions) => {
      if (!["standard", "efi", "inter"].includes(o.dialect))
        throw new CliError("--dialect: use standard, efi ou inter");
      const body = {
        baseUrl: o.baseUrl,
        tokenUrl: o.tokenUrl,
        clientId: o.clientId,
        clientSecret: readFrom(o.clientSecretFile, "--client-secret-file").toString("utf8").trim(),
        certificate: certificateFrom(o),
        bankCaPem: o.ca ? readFrom(o.ca, "--ca").toString("utf8") : null,
        pixKey: o.pixKey,
        dialect: o.dialect,
        webhookUrl: o.webhookUrl ?? null,
        ...(o.payoutLimitCents === undefined ? {} : { payoutLimitCents: payoutLimitOf(o.payoutLimitCents) }),
      };
      const connection = unwrap(await ctx.operator().PUT("/admin/v1/bank-connection", { body }));
      ctx.out.record(connection, shown);
    });

  bank
    .command("show")
    .description("mostra a conexão bancária e sua saúde (nunca os segredos)")
    .action(async () => {
      const connection = unwrap(await ctx.operator().GET("/admin/v1/bank-connection"));
      if (ctx.out.json) return ctx.out.record(connection, shown);
      ctx.out.record(
        {
          ...connection,
          certificateExpiresAt: connection.certificate.notAfter,
          certificateFingerprint: connection.certificate.fingerprintSha256,
          status: connection.health.status,
          warnings: connection.health.warnings.join(" | ") || "-",
        },
        [...shown, "certificateExpiresAt", "certificateFingerprint", "status", "warnings"],
      );
    });

  bank
    .command("payout-limit")
    .description("muda o máximo de uma transferência Pix de um saque pago pelo banco (saques maiores são divididos)")
    .argument("<cents>", "em centavos, de 100 a 1000000000 (R$ 15.000,00 = 1500000)")
    .action(async (cents: string) => {
      const body = { payoutLimitCents: payoutLimitOf(cents) };
      const connection = unwrap(await ctx.operator().PATCH("/admin/v1/bank-connection", { body }));
      ctx.out.record(connection, shown);
    });

  bank
    .command("remove")
    .description("remove a conexão bancária (cobranças de produção voltam ao simulador)")
    .action(async () => {
      unwrap(await ctx.operator().DELETE("/admin/v1/bank-connection"));
      ctx.out.record({ removed: true }, ["removed"]);
    });

  bank
    .command("reconcile")
    .description(
      "lê agora os Pix recebidos pelo banco e credita o que os callbacks perderam, e lê de volta as transferências de saques pendentes (sem esperar o agendamento)",
    )
    .option(
      "--since <minutes>",
      "os últimos <minutes> minutos (1 a 10080); padrão: a janela do agendamento (PIX_BANK_RECONCILE_WINDOW_SECONDS)",
    )
    .action(async (o: { since?: string }) => {
      let body: { lastSeconds?: number } = {};
      if (o.since !== undefined) {
        const minutes = Number(o.since);
        if (!Number.isInteger(minutes) || minutes < 1 || minutes > 10_080)
          throw new CliError("--since: informe um número inteiro de minutos, de 1 a 10080 (7 dias)");
        body = { lastSeconds: minutes * 60 };
      }
      const run = unwrap(await ctx.operator().POST("/admin/v1/bank/reconciliations", { body }));
      ctx.out.record(run, [
        "from",
        "to",
        "pages",
        "read",
        "credited",
        "known",
        "unmatched",
        "foreign",
        "withdrawalTransfersSettled",
      ]);
    });

  withPageOptions(
    bank
      .command("unmatched")
      .description(
        "lista os Pix recebidos que não pagaram nenhuma cobrança, guardados para o operador, os mais novos primeiro",
      ),
  ).action(async (o: PageOptions) => {
    const page = unwrap(
      await ctx.operator().GET("/admin/v1/bank/unmatched-receipts", { params: { query: pageQuery(o) } }),
    );
    ctx.out.list(page, ["endToEndId", "amountCents", "txid", "paidAt", "reason", "payerReturn.status"]);
    const last = page.data.at(-1);
    if (page.hasMore && last) ctx.out.note(`Há mais resultados: acrescente --starting-after ${last.endToEndId}`);
  });

  bank
    .command("return")
    .description(
      "devolve ao pagador um Pix recebido que não pagou nenhuma cobrança (uma devolução do valor inteiro no banco)",
    )
    .argument("<endToEndId>", "o end-to-end id do Pix recebido (admin bank unmatched)")
    .action(async (endToEndId: string) => {
      const receipt = unwrap(
        await ctx.operator().POST("/admin/v1/bank/unmatched-receipts/{endToEndId}/return", {
          params: { path: { endToEndId } },
        }),
      );
      ctx.out.record(receipt, [
        "endToEndId",
        "amountCents",
        "payerReturn.status",
        "payerReturn.id",
        "payerReturn.attempts",
        "payerReturn.returnedAt",
        "payerReturn.failureReason",
      ]);
      if (receipt.payerReturn?.status === "PENDING")
        ctx.out.note("O banco está processando a devolução: a conciliação lê o resultado; veja admin bank unmatched.");
    });

  program
    .command("secrets")
    .description("as chaves mestras dos segredos guardados (MASTER_KEYS)")
    .command("rotate")
    .description("reembala todos os segredos guardados com a chave mais nova de MASTER_KEYS")
    .action(async () => {
      const rotation = unwrap(await ctx.operator().POST("/admin/v1/secrets/rotate"));
      ctx.out.record(rotation, ["keyId", "totpSecrets", "bankSecrets", "webhookSecrets"]);
    });
}
