import { describe, expect, test } from "vitest";
import { byId, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { expectNoSecretInAuditLog, rememberSecret } from "../support/audit.js";
import { addMember, dashboardBrowser, signedUp } from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// The account as the merchant sees it and its verification (issue 25) through the real HTTP stack
// on both stores: the profile with plan, fees and release period the operator sets; the merchant's
// request (legal name, CNPJ or CPF with check digits verified); the operator listing it, verifying
// the account as before or rejecting it with a reason; production refused until verified.

const validCnpj = "11.222.333/0001-81";
const validCpf = "529.982.247-25";

for (const store of eachStore("dashboard_verification")) {
  store.describe(`dashboard account and verification on the ${store.name} store`, () => {
    const server = serverOn(store);
    const operator = () => operatorApi(server.baseUrl, { token: testAdminToken });

    /** A member of `accountId` with `role`, logged in. */
    async function memberBrowser(accountId: string, role: "developer" | "viewer") {
      const member = await addMember(server, accountId, role);
      const browser = dashboardBrowser(server.baseUrl);
      expectStatus(
        await browser.api.POST("/dashboard/v1/session", { body: { email: member.email, password: member.password } }),
        201,
      );
      return browser;
    }

    test("when any member reads the account, then it sees its profile, an unverified state, and the plan, fees and release period the operator set", async () => {
      const { browser, person, session } = await signedUp(server);
      expectStatus(
        await operator().PATCH("/admin/v1/accounts/{id}", {
          ...byId(session.account.id),
          body: { plan: { chargeFeeCents: 99, chargeFeeBps: 150 }, releasePeriodDays: 3 },
        }),
        200,
      );
      const viewer = await memberBrowser(session.account.id, "viewer");

      const byOwner = await browser.api.GET("/dashboard/v1/account");
      const byViewer = await viewer.api.GET("/dashboard/v1/account");

      expectStatus(byOwner, 200);
      expect(byOwner.body).toEqual({
        id: session.account.id,
        name: "Loja Exemplo Ltda",
        ownerEmail: person.email,
        verification: {
          status: "none",
          legalName: null,
          documentType: null,
          document: null,
          requestedAt: null,
          decidedAt: null,
          rejectionReason: null,
        },
        plan: { chargeFeeCents: 99, chargeFeeBps: 150, withdrawFeeCents: 80 },
        releasePeriodDays: 3,
        merchantCity: "SAO PAULO",
        createdAt: byOwner.body.createdAt,
      });
      expectStatus(byViewer, 200);
      expect(byViewer.body).toEqual(byOwner.body);
    });

    test.each([
      { name: "one letter between spaces", legalName: " L " },
      { name: "only spaces", legalName: "    " },
      { name: "a line break", legalName: "Loja Exemplo\nLtda" },
    ])(
      "when the legal name is $name, then 400 VALIDATION_ERROR on it and no request is made",
      async ({ legalName }) => {
        const { browser } = await signedUp(server);

        const asked = await browser.api.POST("/dashboard/v1/account/verification", {
          body: { legalName, document: validCnpj },
        });

        expect(asked.status).toBe(400);
        expect(asked.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: "legalName" }] });
        const account = await browser.api.GET("/dashboard/v1/account");
        expectStatus(account, 200);
        expect(account.body.verification).toMatchObject({ status: "none", legalName: null });
      },
    );

    /** The e-mails sent to `to` with `subject`. */
    const mailsTo = (to: string, subject: string) => server.mail.filter((m) => m.to === to && m.subject === subject);

    test("when the merchant asks for verification and the operator verifies, then production keys are refused before and work after, both steps are audited, and the owner is e-mailed once", async () => {
      const { browser, session, person } = await signedUp(server);
      const accountId = session.account.id;

      const badDigits = await browser.api.POST("/dashboard/v1/account/verification", {
        body: { legalName: "Loja Exemplo Comércio de Roupas Ltda", document: "11.222.333/0001-82" },
      });
      const developer = await memberBrowser(accountId, "developer");
      const byDeveloper = await developer.api.POST("/dashboard/v1/account/verification", {
        body: { legalName: "Loja Exemplo Comércio de Roupas Ltda", document: validCnpj },
      });
      const requested = await browser.api.POST("/dashboard/v1/account/verification", {
        body: { legalName: "  Loja Exemplo Comércio de Roupas Ltda ", document: validCnpj },
      });
      const waiting = await operator().GET("/admin/v1/verification-requests", {
        params: { query: { status: "requested" } },
      });
      const oneRequest = await operator().GET("/admin/v1/accounts/{id}/verification-request", byId(accountId));
      const keyBefore = await operator().POST("/admin/v1/accounts/{id}/api-keys", {
        ...byId(accountId),
        body: { name: "produção", mode: "production" },
      });
      const mailedBefore = mailsTo(person.email, "Sua conta foi verificada").length;
      const verified = await operator().PATCH("/admin/v1/accounts/{id}", {
        ...byId(accountId),
        body: { verified: true, verificationRequestVersion: 1 },
      });
      const verifiedAgain = await operator().PATCH("/admin/v1/accounts/{id}", {
        ...byId(accountId),
        body: { verified: true },
      });
      const keyAfter = await operator().POST("/admin/v1/accounts/{id}/api-keys", {
        ...byId(accountId),
        body: { name: "produção", mode: "production" },
      });
      expectStatus(keyAfter, 201);
      rememberSecret(keyAfter.body.secret);
      const liveBalance = await publicApi(server.baseUrl, { key: keyAfter.body.secret }).GET("/api/v1/balance");
      const account = await browser.api.GET("/dashboard/v1/account");
      const again = await browser.api.POST("/dashboard/v1/account/verification", {
        body: { legalName: "Loja Exemplo Comércio de Roupas Ltda", document: validCnpj },
      });

      expectStatus(badDigits, 400);
      expect(badDigits.body).toMatchObject({
        code: "REQUEST_ERROR",
        message: "CNPJ inválido: dígitos verificadores não conferem.",
      });
      expectStatus(byDeveloper, 403);
      expect(byDeveloper.body.code).toBe("ROLE_FORBIDDEN");
      expectStatus(requested, 201);
      expect(requested.body).toMatchObject({
        status: "requested",
        legalName: "Loja Exemplo Comércio de Roupas Ltda",
        documentType: "CNPJ",
        document: "11222333000181",
        decidedAt: null,
      });
      expectStatus(waiting, 200);
      expect(waiting.body.data.find((r) => r.accountId === accountId)).toMatchObject({
        accountName: "Loja Exemplo Ltda",
        status: "requested",
        requestedBy: { userId: session.user.id, email: session.user.email },
      });
      expectStatus(oneRequest, 200);
      expect(oneRequest.body).toMatchObject({ version: 1, document: "11222333000181" });
      expectStatus(keyBefore, 403);
      expect(keyBefore.body.code).toBe("ACCOUNT_NOT_ACTIVE");
      expectStatus(verified, 200);
      expect(verified.body).toMatchObject({ verified: true, documentType: "CNPJ", document: "11222333000181" });
      expectStatus(verifiedAgain, 200);
      expect(mailedBefore).toBe(0);
      const mailed = mailsTo(person.email, "Sua conta foi verificada");
      expect(mailed).toHaveLength(1);
      expect(mailed[0]?.text).toContain("A conta Loja Exemplo Ltda no Pix Charging Service foi verificada");
      expect(mailed[0]?.text).toContain("https://pix.example.test/painel/producao/desenvolvedores/chaves");
      expectStatus(liveBalance, 200);
      expectStatus(account, 200);
      expect(account.body.verification).toMatchObject({
        status: "verified",
        decidedAt: server.clock.now().toISOString(),
      });
      expectStatus(again, 400);
      expect(again.body.message).toBe("A conta já está verificada.");
      const afterVerify = await operator().GET("/admin/v1/verification-requests", {
        params: { query: { status: "requested" } },
      });
      expectStatus(afterVerify, 200);
      expect(afterVerify.body.data.map((r) => r.accountId)).not.toContain(accountId);
      const log = await browser.api.GET("/dashboard/v1/audit-log");
      expectStatus(log, 200);
      // The developer's first log-in (a member written into the store, with no session before) is one from a new IP.
      const changes = log.body.data.filter((e) => e.action !== "user.logged_in_from_new_ip");
      expect(changes.map((e) => [e.action, e.actor.type])).toEqual([
        ["api_key.created", "operator"],
        ["account.updated", "operator"],
        ["account.verification_requested", "user"],
      ]);
      expect(changes[1]?.changes).toMatchObject({
        verified: { from: false, to: true },
        document: { from: null, to: "11222333000181" },
      });
    });

    test("when the operator rejects a request, then the merchant sees the reason, is e-mailed it once, and may ask again; a request not waiting cannot be rejected", async () => {
      const { browser, session, person } = await signedUp(server);
      const accountId = session.account.id;
      expectStatus(
        await browser.api.POST("/dashboard/v1/account/verification", {
          body: { legalName: "Maria Souza", document: validCpf },
        }),
        201,
      );
      const reason = "O CPF informado não corresponde ao nome.";

      const rejected = await operator().POST("/admin/v1/accounts/{id}/verification-request/reject", {
        ...byId(accountId),
        body: { version: 1, reason },
      });
      const twice = await operator().POST("/admin/v1/accounts/{id}/verification-request/reject", {
        ...byId(accountId),
        body: { version: 1, reason },
      });
      const seen = await browser.api.GET("/dashboard/v1/account");
      const stillRefused = await operator().POST("/admin/v1/accounts/{id}/api-keys", {
        ...byId(accountId),
        body: { name: "produção", mode: "production" },
      });
      const askedAgain = await browser.api.POST("/dashboard/v1/account/verification", {
        body: { legalName: "Maria Souza Lima", document: validCpf },
      });
      const neverAsked = await signedUp(server);
      const none = await operator().GET(
        "/admin/v1/accounts/{id}/verification-request",
        byId(neverAsked.session.account.id),
      );

      expectStatus(rejected, 200);
      expect(rejected.body).toMatchObject({ status: "rejected", rejectionReason: reason, documentType: "CPF" });
      expectStatus(twice, 400);
      expect(twice.body.code).toBe("REQUEST_ERROR");
      expectStatus(seen, 200);
      expect(seen.body.verification).toMatchObject({ status: "rejected", rejectionReason: reason });
      const mailed = mailsTo(person.email, "Pedido de verificação recusado");
      expect(mailed).toHaveLength(1);
      expect(mailed[0]?.text).toContain(`foi recusado. Motivo:\n${reason}`);
      expect(mailed[0]?.text).toContain("https://pix.example.test/painel/teste/configuracoes/conta");
      expectStatus(stillRefused, 403);
      expectStatus(askedAgain, 201);
      expect(askedAgain.body).toMatchObject({
        status: "requested",
        legalName: "Maria Souza Lima",
        rejectionReason: null,
      });
      const secondVersion = await operator().GET("/admin/v1/accounts/{id}/verification-request", byId(accountId));
      expectStatus(secondVersion, 200);
      expect(secondVersion.body).toMatchObject({ version: 2, status: "requested", legalName: "Maria Souza Lima" });
      expectStatus(none, 404);
      const log = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { action: "account.verification_rejected" } },
      });
      expectStatus(log, 200);
      expect(log.body.data[0]).toMatchObject({
        actor: { type: "operator" },
        changes: { status: { from: "requested", to: "rejected" }, rejectionReason: { from: null, to: reason } },
      });
    });

    test("when a user changes its name, then its session shows it and the change is audited", async () => {
      const { browser, session } = await signedUp(server);

      const renamed = await browser.api.PATCH("/dashboard/v1/me", { body: { name: "Maria Souza Lima" } });
      const tooShort = await browser.api.PATCH("/dashboard/v1/me", { body: { name: "M" } });

      expectStatus(renamed, 200);
      expect(renamed.body).toMatchObject({ id: session.user.id, name: "Maria Souza Lima" });
      expectStatus(tooShort, 400);
      const current = await browser.api.GET("/dashboard/v1/session");
      expectStatus(current, 200);
      expect(current.body.user.name).toBe("Maria Souza Lima");
      const log = await browser.api.GET("/dashboard/v1/audit-log");
      expectStatus(log, 200);
      expect(log.body.data[0]).toMatchObject({
        action: "user.profile_updated",
        changes: { name: { from: "Maria Souza", to: "Maria Souza Lima" } },
      });
    });

    describe("a decision on the version reviewed (issue 33, finding 5)", () => {
      /** A merchant that asked with a CNPJ, then replaced it with a CPF after the operator read the first version. */
      async function replacedAfterReview() {
        const { browser, session } = await signedUp(server);
        const accountId = session.account.id;
        expectStatus(
          await browser.api.POST("/dashboard/v1/account/verification", {
            body: { legalName: "Loja Exemplo Comércio de Roupas Ltda", document: validCnpj },
          }),
          201,
        );
        const reviewed = await operator().GET("/admin/v1/accounts/{id}/verification-request", byId(accountId));
        expectStatus(reviewed, 200);
        expectStatus(
          await browser.api.POST("/dashboard/v1/account/verification", {
            body: { legalName: "Receita Federal do Brasil", document: validCpf },
          }),
          201,
        );
        return { browser, accountId, reviewed: reviewed.body };
      }

      test("when the merchant replaces its request after the operator read it, then verifying the version read is refused and changes nothing", async () => {
        const { browser, accountId, reviewed } = await replacedAfterReview();

        const verify = await operator().PATCH("/admin/v1/accounts/{id}", {
          ...byId(accountId),
          body: { verified: true, verificationRequestVersion: reviewed.version },
        });

        expect(reviewed).toMatchObject({ version: 1, document: "11222333000181" });
        expectStatus(verify, 400);
        expect(verify.body).toMatchObject({
          code: "REQUEST_ERROR",
          message:
            "O pedido de verificação mudou depois da revisão (versão revisada: 1, atual: 2). Revise-o de novo antes de decidir.",
        });
        const account = await operator().GET("/admin/v1/accounts/{id}", byId(accountId));
        expectStatus(account, 200);
        expect(account.body).toMatchObject({ verified: false, documentType: null, document: null });
        const request = await operator().GET("/admin/v1/accounts/{id}/verification-request", byId(accountId));
        expectStatus(request, 200);
        expect(request.body).toMatchObject({ version: 2, status: "requested", document: "52998224725" });
        const seen = await browser.api.GET("/dashboard/v1/account");
        expectStatus(seen, 200);
        expect(seen.body.verification.status).toBe("requested");
      });

      test("when the operator verifies the current version, then the account is verified with that version's document", async () => {
        const { accountId } = await replacedAfterReview();
        const current = await operator().GET("/admin/v1/verification-requests", {
          params: { query: { status: "requested" } },
        });
        expectStatus(current, 200);
        const listed = current.body.data.find((r) => r.accountId === accountId);

        const verify = await operator().PATCH("/admin/v1/accounts/{id}", {
          ...byId(accountId),
          body: { verified: true, verificationRequestVersion: listed?.version ?? 0 },
        });

        expect(listed).toMatchObject({ version: 2, document: "52998224725" });
        expectStatus(verify, 200);
        expect(verify.body).toMatchObject({ verified: true, documentType: "CPF", document: "52998224725" });
      });

      test("when a request waits and the operator verifies without naming its version, then it is refused and changes nothing", async () => {
        const { accountId } = await replacedAfterReview();

        const verify = await operator().PATCH("/admin/v1/accounts/{id}", {
          ...byId(accountId),
          body: { verified: true },
        });
        const versionWithoutVerify = await operator().PATCH("/admin/v1/accounts/{id}", {
          ...byId(accountId),
          body: { name: "Outro Nome Ltda", verificationRequestVersion: 2 },
        });

        expectStatus(verify, 400);
        expect(verify.body).toMatchObject({
          code: "REQUEST_ERROR",
          message:
            "A conta tem um pedido de verificação aguardando (versão 2): revise-o e informe verificationRequestVersion.",
        });
        expectStatus(versionWithoutVerify, 400);
        expect(versionWithoutVerify.body.message).toBe("verificationRequestVersion só acompanha verified: true.");
        const account = await operator().GET("/admin/v1/accounts/{id}", byId(accountId));
        expectStatus(account, 200);
        expect(account.body).toMatchObject({ verified: false, name: "Loja Exemplo Ltda", document: null });
      });

      test("when the merchant replaces its request after the operator read it, then rejecting the version read is refused and the request still waits", async () => {
        const { browser, accountId, reviewed } = await replacedAfterReview();

        const reject = await operator().POST("/admin/v1/accounts/{id}/verification-request/reject", {
          ...byId(accountId),
          body: { version: reviewed.version, reason: "CNPJ inapto." },
        });

        expectStatus(reject, 400);
        expect(reject.body.message).toBe(
          "O pedido de verificação mudou depois da revisão (versão revisada: 1, atual: 2). Revise-o de novo antes de decidir.",
        );
        const seen = await browser.api.GET("/dashboard/v1/account");
        expectStatus(seen, 200);
        expect(seen.body.verification).toMatchObject({ status: "requested", rejectionReason: null });
      });

      test("when an account never asked, then the operator verifies it without a version, and naming one is refused", async () => {
        const { session } = await signedUp(server);
        const other = await signedUp(server);

        const named = await operator().PATCH("/admin/v1/accounts/{id}", {
          ...byId(other.session.account.id),
          body: { verified: true, verificationRequestVersion: 1 },
        });
        const plain = await operator().PATCH("/admin/v1/accounts/{id}", {
          ...byId(session.account.id),
          body: { verified: true },
        });

        expectStatus(named, 400);
        expect(named.body.message).toBe("Não há pedido de verificação aguardando decisão nesta conta.");
        expectStatus(plain, 200);
        expect(plain.body.verified).toBe(true);
      });
    });

    test("when every entry this file's server wrote is read, then none holds a secret", async () => {
      expect(await expectNoSecretInAuditLog(server)).toBeGreaterThan(5);
    });
  });
}
