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
    .option("--release-period-days <days>", "days a sale stays pending before it can be withdrawn", int)
    .option("--merchant-city <city>", "city written into the account's BR Codes")
    .option("--document <cnpj-or-cpf>", "the merchant's CNPJ (or CPF), shown on the checkout and receipt")
    .option("--charge-fee-cents <cents>", "fixed fee per charge, in cents", int)
    .option("--charge-fee-bps <bps>", "proportional fee per charge, in basis points", int)
    .option("--withdraw-fee-cents <cents>", "fee per withdrawal, in cents", int);

export function registerAccounts(program: Command, ctx: CliContext): void {
  const accounts = program.command("accounts").description("merchant accounts");

  withSettings(
    accounts
      .command("create")
      .description("create a merchant account")
      .requiredOption("--name <name>", "the merchant's name")
      .requiredOption("--owner-email <email>", "the owner's e-mail address")
      .option("--verified", "operate in production at once"),
  ).action(async (o: AccountOptions) => {
    const body = { ...accountBody(o), name: o.name ?? "", ownerEmail: o.ownerEmail ?? "" };
    ctx.out.record(unwrap(await ctx.operator().POST("/admin/v1/accounts", { body })), fields);
  });

  withPageOptions(accounts.command("list").description("list merchant accounts, newest first")).action(
    async (o: PageOptions) => {
      const page = unwrap(await ctx.operator().GET("/admin/v1/accounts", { params: { query: pageQuery(o) } }));
      ctx.out.list(page, listColumns);
    },
  );

  accounts
    .command("get")
    .description("show one merchant account")
    .argument("<accountId>", "the account (acc_…)")
    .action(async (id: string) => {
      ctx.out.record(unwrap(await ctx.operator().GET("/admin/v1/accounts/{id}", { params: { path: { id } } })), fields);
    });

  withSettings(
    accounts
      .command("update")
      .description("change a merchant account's name, owner, plan or settings")
      .argument("<accountId>", "the account (acc_…)")
      .option("--name <name>", "the merchant's name")
      .option("--owner-email <email>", "the owner's e-mail address")
      .option("--verified", "allow production")
      .option("--no-verified", "back to test mode only"),
  ).action(async (id: string, o: AccountOptions) => {
    const body = accountBody(o);
    const updated = unwrap(await ctx.operator().PATCH("/admin/v1/accounts/{id}", { params: { path: { id } }, body }));
    ctx.out.record(updated, fields);
  });

  accounts
    .command("verify")
    .description(
      "verify a merchant account: it may then operate in production. When the merchant asked, name the version of its request you reviewed",
    )
    .argument("<accountId>", "the account (acc_…)")
    .option(
      "--request-version <n>",
      "the version of the verification request reviewed (see verification-request); refused if the merchant replaced it since",
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
    .description("show a merchant's latest request for verification, with its version")
    .argument("<accountId>", "the account (acc_…)")
    .action(async (id: string) => {
      const request = unwrap(
        await ctx.operator().GET("/admin/v1/accounts/{id}/verification-request", { params: { path: { id } } }),
      );
      ctx.out.record(request, requestFields);
    });

  withPageOptions(
    accounts
      .command("verification-requests")
      .description("list merchants' requests for verification, newest first")
      .option("--status <status>", "only requested (waiting), verified or rejected ones"),
  ).action(async (o: PageOptions & { status?: "requested" | "verified" | "rejected" }) => {
    const query = { ...pageQuery(o), ...(o.status !== undefined ? { status: o.status } : {}) };
    const page = unwrap(await ctx.operator().GET("/admin/v1/verification-requests", { params: { query } }));
    ctx.out.list(page, requestColumns);
    const last = page.data.at(-1);
    if (page.hasMore && last) ctx.out.note(`More results: add --starting-after ${last.accountId}`);
  });

  accounts
    .command("reject-verification")
    .description("reject a merchant's request for verification, with the reason it reads in its dashboard")
    .argument("<accountId>", "the account (acc_…)")
    .requiredOption(
      "--request-version <n>",
      "the version of the request reviewed; refused if the merchant replaced it since",
      int,
    )
    .requiredOption("--reason <text>", "why, in words the merchant reads")
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
