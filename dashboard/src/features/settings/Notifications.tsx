import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { components } from "../../../../generated/dashboard-api";
import { api } from "../../api/client";
import { useCurrentSession } from "../../api/session";
import { FormError } from "../../components/FormError";
import { Alert, Card, ErrorMessage, Loading, ui } from "../../components/ui";

// Configurações → Notificações (issue 37 §2): the e-mail notices the user receives, its own choice.

type Notices = components["schemas"]["NoticePreferences"];
type Change = components["schemas"]["UpdateNoticePreferencesRequest"];

const paymentChoices: { value: Notices["payments"]; label: string; hint: string }[] = [
  { value: "each", label: "A cada pagamento", hint: "um e-mail por Pix recebido" },
  { value: "daily", label: "Resumo diário", hint: "um e-mail por dia com os pagamentos do dia anterior" },
  { value: "off", label: "Não receber", hint: "" },
];

const toggles: { field: "withdrawals" | "disputes" | "newDevice"; label: string; hint: string }[] = [
  { field: "withdrawals", label: "Saques", hint: "quando um saque é pago, pago em parte ou falha" },
  { field: "disputes", label: "Contestações", hint: "quando um pagador contesta um pagamento (MED)" },
  {
    field: "newDevice",
    label: "Entrada de um dispositivo novo",
    hint: "quando alguém entra com o seu usuário de outro navegador",
  },
];

export function Notifications() {
  const { user } = useCurrentSession();
  const notices = api.useQuery("get", "/dashboard/v1/me/notices");
  const client = useQueryClient();
  const update = api.useMutation("patch", "/dashboard/v1/me/notices", {
    onSuccess: (data) => client.setQueryData(api.queryOptions("get", "/dashboard/v1/me/notices").queryKey, data),
  });
  // The choice being saved shows at once (a click that seemed to do nothing until the server
  // answered read as broken); an error puts back what the server keeps, with its message. It is
  // this component's state, set in the click's own handler: the mutation's pending state reaches
  // the screen a tick later, and meanwhile React put the controlled radio back as it was.
  const [saving, setSaving] = useState<Change | null>(null);
  if (notices.isPending) return <Loading />;
  if (notices.isError) return <ErrorMessage error={notices.error} retry={() => void notices.refetch()} />;
  const current: Notices = saving ? { ...notices.data, ...saving } : notices.data;
  const change = (body: Change) => {
    setSaving(body);
    update.mutate({ body }, { onSettled: () => setSaving(null) });
  };
  return (
    <Card title="Avisos por e-mail" id="notificacoes">
      <p className={ui.hint}>
        Enviados para <strong>{user.email}</strong>, nos dois modos: os do modo de teste dizem “[TESTE]” no assunto.
        Cada membro da equipe escolhe os seus.
      </p>
      {user.emailConfirmed ? null : (
        <Alert tone="warn">Os avisos começam depois que você confirmar o seu e-mail.</Alert>
      )}
      <fieldset className={ui.fieldset} disabled={update.isPending}>
        <legend>Pagamentos recebidos</legend>
        {paymentChoices.map((choice) => (
          <label key={choice.value} className={ui.check}>
            <input
              type="radio"
              name="payments"
              value={choice.value}
              checked={current.payments === choice.value}
              onChange={() => change({ payments: choice.value })}
            />
            <span>
              {choice.label}
              {choice.hint ? <span className={ui.hint}> — {choice.hint}</span> : null}
            </span>
          </label>
        ))}
      </fieldset>
      <fieldset className={ui.fieldset} disabled={update.isPending}>
        <legend>Outros avisos</legend>
        {toggles.map((toggle) => (
          <label key={toggle.field} className={ui.check}>
            <input
              type="checkbox"
              name={toggle.field}
              checked={current[toggle.field]}
              onChange={(event) => change({ [toggle.field]: event.target.checked })}
            />
            <span>
              {toggle.label}
              <span className={ui.hint}> — {toggle.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p role="status" className={ui.hint}>
        {update.isPending ? "Salvando…" : update.isSuccess ? "Preferências salvas." : ""}
      </p>
      <FormError error={update.error} />
    </Card>
  );
}
