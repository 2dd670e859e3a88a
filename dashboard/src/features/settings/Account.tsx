import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import { canCall } from "../../../../generated/dashboard-operations";
import { sessionKey, useCurrentSession } from "../../api/session";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { Alert, Badge, Card, Details, ErrorMessage, Loading, ui } from "../../components/ui";
import type { AccountProfile } from "../../api/types";
import { formatDateTime, formatDocument, formatMoney, formatPlural } from "../../lib/format";
import { useApiForm } from "../../lib/useApiForm";
import { settingsQueries, useRequestVerification } from "./queries";

type Profile = AccountProfile;
const useAccount = () => useQuery(settingsQueries.account());

const verificationLabel = {
  none: <Badge tone="warn">não verificada</Badge>,
  requested: <Badge tone="warn">verificação pedida, aguardando a plataforma</Badge>,
  verified: <Badge tone="ok">verificada: teste e produção</Badge>,
  rejected: <Badge tone="danger">verificação recusada</Badge>,
} as const;

/** The account: plan and fees, release period, verification and its request (owners and admins). */
export function Account() {
  const account = useAccount();
  const { user } = useCurrentSession();
  if (account.isPending) return <Loading />;
  if (account.isError) return <ErrorMessage error={account.error} retry={() => void account.refetch()} />;
  const a = account.data;
  const { plan, verification } = a;
  return (
    <div className="stack">
      <Card title="Conta" id="conta">
        <Details
          items={[
            ["Negócio", a.name],
            ["Cidade no Pix", a.merchantCity],
            ["E-mail do proprietário", a.ownerEmail],
            ["Identificador", <code key="id">{a.id}</code>],
            ["Criada em", formatDateTime(a.createdAt)],
          ]}
        />
      </Card>
      <Card title="Plano e tarifas" id="plano">
        <Details
          items={[
            [
              "Por cobrança Pix paga",
              plan.chargeFeeBps > 0
                ? `${formatMoney(plan.chargeFeeCents)} + ${(plan.chargeFeeBps / 100).toLocaleString("pt-BR")}%`
                : formatMoney(plan.chargeFeeCents),
            ],
            ["Por saque", formatMoney(plan.withdrawFeeCents)],
            [
              "Prazo de liberação",
              a.releasePeriodDays === 0
                ? "na hora"
                : `${formatPlural(a.releasePeriodDays, "dia", "dias")} depois do pagamento`,
            ],
          ]}
        />
        <p className={ui.hint}>Definidos pela plataforma.</p>
      </Card>
      <Card title="Verificação da conta" id="verificacao">
        <p>{verificationLabel[verification.status]}</p>
        {verification.status === "rejected" && verification.rejectionReason ? (
          <Alert tone="error" title="Motivo:">
            {verification.rejectionReason}
          </Alert>
        ) : null}
        {verification.requestedAt ? (
          <Details
            items={[
              ["Razão social ou nome", verification.legalName ?? "—"],
              [verification.documentType ?? "Documento", formatDocument(verification.document)],
              ["Pedida em", formatDateTime(verification.requestedAt)],
              ...(verification.decidedAt
                ? [["Decidida em", formatDateTime(verification.decidedAt)] as [string, string]]
                : []),
            ]}
          />
        ) : null}
        {verification.status === "verified" ? null : canCall("requestVerification", user.role) ? (
          <VerificationRequest profile={a} />
        ) : (
          <p className={ui.hint}>O proprietário ou um administrador pede a verificação.</p>
        )}
      </Card>
    </div>
  );
}

function VerificationRequest({ profile }: { profile: Profile }) {
  const request = useRequestVerification();
  const { values, set, errors, rest } = useApiForm(
    { legalName: profile.verification.legalName ?? "", document: profile.verification.document ?? "" },
    request,
  );
  const waiting = profile.verification.status === "requested";
  return (
    <form
      className={ui.form}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        request.mutate({ body: { legalName: values.legalName.trim(), document: values.document.trim() } });
      }}
    >
      <h3 className={ui.spaced}>{waiting ? "Corrigir o pedido" : "Pedir a verificação"}</h3>
      <p>Produção (chaves, webhooks e saques com dinheiro real) abre depois que a plataforma confere estes dados.</p>
      <TextField
        label="Razão social (ou seu nome completo, se pessoa física)"
        name="legalName"
        autoComplete="organization"
        required
        value={values.legalName}
        onChange={set("legalName")}
        error={errors.legalName}
      />
      <TextField
        label="CNPJ ou CPF"
        name="document"
        inputMode="numeric"
        required
        value={values.document}
        onChange={set("document")}
        error={errors.document}
      />
      <FormError error={request.error} rest={rest} />
      {request.isSuccess ? <Alert tone="ok">Pedido enviado. Avisaremos quando a plataforma decidir.</Alert> : null}
      <div className={ui.formActions}>
        <button type="submit" disabled={request.isPending}>
          {request.isPending ? "Enviando…" : "Pedir a verificação"}
        </button>
      </div>
    </form>
  );
}

/** The user's own name (the e-mail is the log-in and does not change here). */
export function ProfileName() {
  const { user } = useCurrentSession();
  const client = useQueryClient();
  const update = api.useMutation("patch", "/dashboard/v1/me");
  const { values, set, errors, rest } = useApiForm({ name: user.name }, update);
  return (
    <form
      className={ui.form}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        update.mutate(
          { body: { name: values.name.trim() } },
          { onSuccess: () => void client.invalidateQueries({ queryKey: sessionKey }) },
        );
      }}
    >
      <TextField
        label="Seu nome"
        name="name"
        autoComplete="name"
        required
        value={values.name}
        onChange={set("name")}
        error={errors.name}
      />
      <FormError error={update.error} rest={rest} />
      {update.isSuccess ? <Alert tone="ok">Nome salvo.</Alert> : null}
      <div className={ui.formActions}>
        <button type="submit" disabled={update.isPending}>
          Salvar o nome
        </button>
      </div>
    </form>
  );
}
