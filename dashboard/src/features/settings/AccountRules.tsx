import { useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import { useCurrentSession } from "../../api/session";
import { FormError } from "../../components/FormError";
import { useStepUp } from "../../components/StepUp";
import { Alert, Card, ErrorMessage, Loading, ui } from "../../components/ui";

/** The account's security rule: two-factor authentication required of every member (the owner sets it). */
export function AccountRules() {
  const { user } = useCurrentSession();
  const security = api.useQuery("get", "/dashboard/v1/account/security");
  const update = api.useMutation("patch", "/dashboard/v1/account/security");
  const guard = useStepUp();
  const client = useQueryClient();
  const isOwner = user.role === "owner";
  if (security.isPending) return <Loading />;
  if (security.isError) return <ErrorMessage error={security.error} retry={() => void security.refetch()} />;
  const required = security.data.requireTwoFactor;
  return (
    <Card title="Regras de segurança da conta" id="regras">
      <label className={ui.check}>
        <input
          type="checkbox"
          checked={required}
          disabled={!isOwner || update.isPending}
          onChange={(event) => {
            const requireTwoFactor = event.target.checked;
            guard(() => update.mutateAsync({ body: { requireTwoFactor } })).then(
              () => client.invalidateQueries(),
              () => undefined,
            );
          }}
        />
        Exigir a verificação em duas etapas de todos os membros
      </label>
      <p className={ui.hint}>
        Quem ainda não a ativou só consegue usar o painel depois de ativá-la. Mudar esta regra pede o código do seu
        autenticador.
      </p>
      {!isOwner ? <Alert tone="info">Só o proprietário da conta muda esta regra.</Alert> : null}
      <FormError error={update.error} />
    </Card>
  );
}
