import { Fragment } from "react";
import { roleLabel, useCurrentSession } from "../../api/session";
import { Badge, Card, Details } from "../../components/ui";
import { ProfileName } from "./Account";
import { formatDateTime } from "../../lib/format";

export function Profile() {
  const { user, account } = useCurrentSession();
  return (
    <div className="stack">
      <Card title="Você" id="perfil-usuario">
        <Details
          items={[
            ["Nome", user.name],
            [
              "E-mail",
              <Fragment key="e-mail">
                {user.email}{" "}
                {user.emailConfirmed ? <Badge tone="ok">confirmado</Badge> : <Badge tone="warn">não confirmado</Badge>}
              </Fragment>,
            ],
            ["Papel", roleLabel[user.role]],
            ["Verificação em duas etapas", user.twoFactorEnabled ? "ativada" : "desativada"],
            ["Desde", formatDateTime(user.createdAt)],
          ]}
        />
      </Card>
      <Card title="Mudar o nome" id="perfil-nome">
        <ProfileName />
      </Card>
      <Card title="Conta" id="perfil-conta">
        <Details
          items={[
            ["Negócio", account.name],
            ["Identificador", <code key="id">{account.id}</code>],
            [
              "Situação",
              account.verified ? (
                <Badge tone="ok">verificada: teste e produção</Badge>
              ) : (
                <Badge tone="warn">não verificada: só modo de teste</Badge>
              ),
            ],
          ]}
        />
      </Card>
    </div>
  );
}
