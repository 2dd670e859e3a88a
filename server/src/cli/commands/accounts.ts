/** `admin accounts …`: merchant accounts (create, list, show, update, verify; merchants' verification requests). */
import type { Command } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, int, type PageOptions, pageQuery, withPageOptions } from "../context.js";

const listColumns = ["id", "name", "ownerEmail", "verified", "createdAt"];
const fields = [
  "id",
  "name",
  "ownerEmail",
  "verified",
  "releasePeriodDays",
  "plan.chargeFeeCents",
  "plan.chargeFeeBps",
  "plan.withdrawFeeCents",
  "merchantCity",
  "pixKey",
  "documentType",
  "document",
  "createdAt",
  "updatedAt",
];

const requestColumns = ["accountId", "version", "accountName", "documentType", "document", "status", "requestedAt"];
const requestFields = [
  "accountId",
  "version",
  "accountName",
  "legalName",
  "documentType",
  "document",
  "status",
  "requestedBy.email",
  "requestedAt",
  "decidedAt",
  "rejectionReason",
];

interface AccountOptions {
  name?: string;
  ownerEmail?: string;
  verified?: boolean;
  releasePeriodDays?: number;
  merchantCity?: string;
  document?: string;
  chargeFeeCents?: number;
  chargeFeeBps?: number;
  withdrawFeeCents?: number;
}

/** The request body from the options given (absent options are left out, so the API keeps them). */
function accountBody(o: AccountOptions) {
  const plan = {
    ...(o.chargeFeeCents !== undefined ? { chargeFeeCents: o.chargeFeeCents } : {}),
    ...(o.chargeFeeBps !== undefined ? { chargeFeeBps: o.chargeFeeBps } : {}),
    ...(o.withdrawFeeCents !== undefined ? { withdrawFeeCents: o.withdrawFeeCents } : {}),
  };
  return {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.ownerEmail !== undefined ? { ownerEmail: o.ownerEmail } : {}),
    ...(o.verified !== undefined ? { verified: o.verified } : {}),
    ...(o.releasePeriodDays !== undefined ? { releasePeriodDays: o.releasePeriodDays } : {}),
    ...(o.merchantCity !== undefined ? { merchantCity: o.merchantCity } : {}),
    ...(o.document !== undefined ? { document: o.document } : {}),
    ...(Object.keys(plan).length > 0 ? { plan } : {}),
  };
}

const withSettings = (command: Command) =>
  command
    .option("--release-period-days <days>", "dias que uma venda fica pendente antes de poder ser sacada", int)
    .option("--merchant-city <city>", "cidade escrita nos BR Codes da conta")
    .option("--document <cnpj-or-cpf>", "o CNPJ (ou CPF) do lojista, mostrado no checkout e no comprovante")
    .option("--charge-fee-cents <cents>", "tarifa fixa por cobrança, em centavos", int)
    .option("--charge-fee-bps <bps>", "tarifa proporcional por cobrança, em pontos-base (1/100 de 1%)", int)
    .option("--withdraw-fee-cents <cents>", "tarifa por saque, em centavos", int);

export function registerAccounts(program: Command, ctx: CliContext): void {
  const accounts = program.command("accounts").description("contas de lojistas");

  withSettings(
    accounts
      .command("create")
      .description("cria uma conta de lojista")
      .requiredOption("--name <name>", "o nome do lojista")
      .requiredOption("--owner-email <email>", "o e-mail do dono")
      .option("--verified", "já opera em produção"),
  ).action(async (o: AccountOptions) => {
    const body = { ...accountBody(o), name: o.name ?? "", ownerEmail: o.ownerEmail ?? "" };
    ctx.out.record(unwrap(await ctx.operator().POST("/admin/v1/accounts", { body })), fields);
  });

  withPageOptions(accounts.command("list").description("lista as contas de lojistas, as mais novas primeiro")).action(
    async (o: PageOptions) => {
      const page = unwrap(await ctx.operator().GET("/admin/v1/accounts", { params: { query: pageQuery(o) } }));
      ctx.out.list(page, listColumns);
    },
  );

  accounts
    .command("get")
    .description("mostra uma conta de lojista")
    .argument("<accountId>", "a conta (acc_…)")
    .action(async (id: string) => {
      ctx.out.record(unwrap(await ctx.operator().GET("/admin/v1/accounts/{id}", { params: { path: { id } } })), fields);
    });

  withSettings(
    accounts
      .command("update")
      .description("muda o nome, o dono, o plano ou os ajustes de uma conta de lojista")
      .argument("<accountId>", "a conta (acc_…)")
      .option("--name <name>", "o nome do lojista")
      .option("--owner-email <email>", "o e-mail do dono")
      .option("--verified", "permite a produção")
      .option("--no-verified", "volta a só o modo de teste"),
  ).action(async (id: string, o: AccountOptions) => {
    const body = accountBody(o);
    const updated = unwrap(await ctx.operator().PATCH("/admin/v1/accounts/{id}", { params: { path: { id } }, body }));
    ctx.out.record(updated, fields);
  });

  accounts
    .command("verify")
    .description(
      "verifica uma conta de lojista: ela passa a poder operar em produção. Se o lojista pediu, informe a versão do pedido que você analisou",
    )
    .argument("<accountId>", "a conta (acc_…)")
    .option(
      "--request-version <n>",
      "a versão do pedido de verificação analisada (veja verification-request); recusado se o lojista o substituiu desde então",
      int,
    )
    .action(async (id: string, o: { requestVersion?: number }) => {
      const body = {
        verified: true,
        ...(o.requestVersion !== undefined ? { verificationRequestVersion: o.requestVersion } : {}),
      };
      const updated = unwrap(await ctx.operator().PATCH("/admin/v1/accounts/{id}", { params: { path: { id } }, body }));
      ctx.out.record(updated, fields);
    });

  accounts
    .command("verification-request")
    .description("mostra o último pedido de verificação de um lojista, com a versão")
    .argument("<accountId>", "a conta (acc_…)")
    .action(async (id: string) => {
      const request = unwrap(
        await ctx.operator().GET("/admin/v1/accounts/{id}/verification-request", { params: { path: { id } } }),
      );
      ctx.out.record(request, requestFields);
    });

  withPageOptions(
    accounts
      .command("verification-requests")
      .description("lista os pedidos de verificação dos lojistas, os mais novos primeiro")
      .option("--status <status>", "só os requested (aguardando), verified ou rejected"),
  ).action(async (o: PageOptions & { status?: "requested" | "verified" | "rejected" }) => {
    const query = { ...pageQuery(o), ...(o.status !== undefined ? { status: o.status } : {}) };
    const page = unwrap(await ctx.operator().GET("/admin/v1/verification-requests", { params: { query } }));
    ctx.out.list(page, requestColumns);
    const last = page.data.at(-1);
    if (page.hasMore && last) ctx.out.note(`Há mais resultados: acrescente --starting-after ${last.accountId}`);
  });

  accounts
    .command("reject-verification")
    .description("recusa o pedido de verificação de um lojista, com o motivo que ele lê no painel")
    .argument("<accountId>", "a conta (acc_…)")
    .requiredOption(
      "--request-version <n>",
      "a versão do pedido analisada; recusado se o lojista o substituiu desde então",
      int,
    )
    .requiredOption("--reason <text>", "o motivo, em palavras que o lojista lê")
    .action(async (id: string, o: { reason: string; requestVersion: number }) => {
      const rejected = unwrap(
        await ctx.operator().POST("/admin/v1/accounts/{id}/verification-request/reject", {
          params: { path: { id } },
          body: { version: o.requestVersion, reason: o.reason },
        }),
      );
      ctx.out.record(rejected, requestFields);
    });
}
