import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { fieldErrors } from "../../api/errors";
import { canCall } from "../../../../generated/dashboard-operations";
import { roleLabel, useCurrentSession } from "../../api/session";
import type { Invitation, Member, Role } from "../../api/types";
import { type Column, DataTable } from "../../components/DataTable";
import { Field, TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { useStepUp } from "../../components/StepUp";
import { Alert, Badge, Card, EmptyState, ErrorMessage, Loading, ui } from "../../components/ui";
import { formatDateTime } from "../../lib/format";
import { settingsQueries, useChangeMemberRole, useInviteMember, useRemoveMember, useRevokeInvitation } from "./queries";

const useMembers = () => useQuery(settingsQueries.members());
const useInvitations = () => useQuery(settingsQueries.invitations());

const roleHelp: Record<Role, string> = {
  owner: "tudo, inclusive a equipe",
  admin: "tudo, menos os poderes do proprietário",
  developer: "chaves, webhooks e eventos",
  finance: "saldo, saques, reembolsos e disputas",
  viewer: "só leitura",
};
/** Every role (the keys of a record the compiler checks against the generated `Role`). */
const roles = Object.keys(roleHelp) as Role[];

/** Team: members and their roles, invitations, invite (owners and admins; every change after a step-up). */
export function Team() {
  const { user } = useCurrentSession();
  const manager = canCall("inviteMember", user.role);
  return (
    <div className="stack">
      {manager ? <Invite /> : null}
      <Members manager={manager} />
      <Invitations manager={manager} />
    </div>
  );
}

function Invite() {
  const { user } = useCurrentSession();
  const guard = useStepUp();
  const invite = useInviteMember();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { byField, rest } = fieldErrors(invite.error, ["email", "role"]);
  return (
    <Card title="Convidar para a equipe" id="convidar">
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const to = email.trim();
          guard(() => invite.mutateAsync({ body: { email: to, role } })).then(
            () => {
              setSentTo(to);
              setEmail("");
            },
            () => undefined,
          );
        }}
      >
        <TextField
          label="E-mail da pessoa"
          name="email"
          type="email"
          autoComplete="off"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={byField.email}
        />
        <Field label="Papel" error={byField.role} hint={roleHelp[role]}>
          <select name="role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {roles
              .filter((r) => r !== "owner" || user.role === "owner")
              .map((r) => (
                <option key={r} value={r}>
                  {roleLabel[r]}
                </option>
              ))}
          </select>
        </Field>
        <FormError error={invite.error} rest={rest} />
        {sentTo ? <Alert tone="ok">Convite enviado para {sentTo}. O link vale por 7 dias.</Alert> : null}
        <div className={ui.formActions}>
          <button type="submit" disabled={invite.isPending}>
            {invite.isPending ? "Enviando…" : "Enviar convite"}
          </button>
        </div>
      </form>
    </Card>
  );
}

function Members(props: { manager: boolean }) {
  const { user } = useCurrentSession();
  const members = useMembers();
  const guard = useStepUp();
  const change = useChangeMemberRole();
  const remove = useRemoveMember();
  const [removing, setRemoving] = useState<string | null>(null);
  const mayTouch = (m: Member) => props.manager && m.id !== user.id && (user.role === "owner" || m.role !== "owner");
  const columns: Column<Member>[] = [
    {
      header: "Pessoa",
      cell: (m) => (
        <>
          {m.name} {m.id === user.id ? <Badge>você</Badge> : null}
          <br />
          <span className={ui.hint}>{m.email}</span>
        </>
      ),
    },
    {
      header: "Papel",
      cell: (m) =>
        mayTouch(m) ? (
          <select
            aria-label={`Papel de ${m.name}`}
            value={m.role}
            disabled={change.isPending}
            onChange={(event) => {
              const role = event.target.value as Role;
              guard(() => change.mutateAsync({ params: { path: { id: m.id } }, body: { role } })).then(
                () => undefined,
                () => undefined,
              );
            }}
          >
            {roles
              .filter((r) => r !== "owner" || user.role === "owner")
              .map((r) => (
                <option key={r} value={r}>
                  {roleLabel[r]}
                </option>
              ))}
          </select>
        ) : (
          roleLabel[m.role]
        ),
    },
    { header: "Duas etapas", cell: (m) => (m.twoFactorEnabled ? "ativada" : "desativada") },
    { header: "Desde", cell: (m) => formatDateTime(m.createdAt) },
  ];
  if (props.manager) {
    columns.push({
      header: "Ação",
      cell: (m) =>
        !mayTouch(m) ? null : removing === m.id ? (
          <span className={ui.actions}>
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() =>
                guard(() => remove.mutateAsync({ params: { path: { id: m.id } } })).then(
                  () => {
                    setRemoving(null);
                  },
                  () => undefined,
                )
              }
            >
              Remover {m.name}
            </button>
            <button type="button" className="secondary" onClick={() => setRemoving(null)}>
              Cancelar
            </button>
          </span>
        ) : (
          <button type="button" className="secondary" onClick={() => setRemoving(m.id)}>
            Remover
          </button>
        ),
    });
  }
  return (
    <Card title="Membros" id="membros">
      <FormError error={change.error ?? remove.error} />
      {members.isPending ? (
        <Loading />
      ) : members.isError ? (
        <ErrorMessage error={members.error} retry={() => void members.refetch()} />
      ) : (
        <DataTable caption="Lista de membros" columns={columns} rows={members.data.data} rowKey={(m) => m.id} />
      )}
    </Card>
  );
}

function Invitations(props: { manager: boolean }) {
  const invitations = useInvitations();
  const guard = useStepUp();
  const revoke = useRevokeInvitation();
  const columns: Column<Invitation>[] = [
    { header: "E-mail", cell: (i) => i.email },
    { header: "Papel", cell: (i) => roleLabel[i.role] },
    { header: "Enviado em", cell: (i) => formatDateTime(i.createdAt) },
    { header: "Vale até", cell: (i) => formatDateTime(i.expiresAt) },
  ];
  if (props.manager) {
    columns.push({
      header: "Ação",
      cell: (i) => (
        <button
          type="button"
          className="secondary"
          disabled={revoke.isPending}
          onClick={() =>
            guard(() => revoke.mutateAsync({ params: { path: { id: i.id } } })).then(
              () => undefined,
              () => undefined,
            )
          }
        >
          Revogar
        </button>
      ),
    });
  }
  return (
    <Card title="Convites esperando resposta" id="convites">
      <FormError error={revoke.error} />
      {invitations.isPending ? (
        <Loading />
      ) : invitations.isError ? (
        <ErrorMessage error={invitations.error} retry={() => void invitations.refetch()} />
      ) : invitations.data.data.length === 0 ? (
        <EmptyState title="Nenhum convite pendente">
          {props.manager ? <p>Convide alguém pelo formulário acima; o convite chega por e-mail.</p> : null}
        </EmptyState>
      ) : (
        <DataTable caption="Lista de convites" columns={columns} rows={invitations.data.data} rowKey={(i) => i.id} />
      )}
    </Card>
  );
}
