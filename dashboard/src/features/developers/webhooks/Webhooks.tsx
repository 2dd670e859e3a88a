import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../../api/client";
import { fieldErrors } from "../../../api/errors";
import { canCall } from "../../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../../api/session";
import { type Column, DataTable } from "../../../components/DataTable";
import { TextField } from "../../../components/Field";
import { FormError } from "../../../components/FormError";
import { useStepUp } from "../../../components/StepUp";
import { Badge, Card, EmptyState, ErrorMessage, Loading, ui } from "../../../components/ui";
import { formatDateTime } from "../../../lib/format";
import { useMode } from "../../../lib/useMode";
import { SecretOnce } from "../keys/Keys";
import type { WebhookDelivery, WebhookEndpoint } from "../../../api/types";
import { useCreateEndpoint, useResendDelivery, useSendTestEvent, webhookQueries } from "./queries";

type Endpoint = WebhookEndpoint;
type Delivery = WebhookDelivery;
type Kind = Endpoint["events"][number];

const kinds: Kind[] = [
  "transaction.paid",
  "refund.created",
  "refund.completed",
  "refund.failed",
  "dispute.opened",
  "dispute.closed",
  "withdrawal.created",
  "withdrawal.paid",
  "withdrawal.partially_paid",
  "withdrawal.failed",
];

/** Webhook endpoints of the mode: create (the secret once), test event, deliveries with attempts, resend. */
export function Webhooks() {
  const mode = useMode();
  const { user } = useCurrentSession();
  const manage = canCall("createDashboardWebhookEndpoint", user.role);
  const list = useQuery(webhookQueries.list(mode));
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const rows = list.data?.data ?? [];
  return (
    <div className="stack">
      {secret ? <SecretOnce secret={secret} what="o segredo de assinatura" onDone={() => setSecret(null)} /> : null}
      {manage && !secret ? <CreateEndpoint onCreated={setSecret} /> : null}
      <Card title="Endpoints de webhook" id="endpoints">
        {list.isPending ? (
          <Loading />
        ) : list.isError ? (
          <ErrorMessage error={list.error} retry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState title="Nenhum endpoint neste modo">
            <p>Cadastre o endereço https do seu servidor para receber os eventos (como transaction.paid).</p>
          </EmptyState>
        ) : (
          <ul className="stack" aria-label="Endpoints">
            {rows.map((endpoint) => (
              <li key={endpoint.id} className={ui.card}>
                <EndpointItem
                  endpoint={endpoint}
                  manage={manage}
                  open={open === endpoint.id}
                  toggle={() => setOpen(open === endpoint.id ? null : endpoint.id)}
                  onSecret={setSecret}
                />
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

function EndpointItem(props: {
  endpoint: Endpoint;
  manage: boolean;
  open: boolean;
  toggle: () => void;
  onSecret: (s: string) => void;
}) {
  const mode = useMode();
  const guard = useStepUp();
  const e = props.endpoint;
  const path = { mode, id: e.id };
  const test = useSendTestEvent(mode, e.id);
  const reveal = api.useMutation("post", "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret");
  const rotate = api.useMutation("post", "/dashboard/v1/modes/{mode}/webhook-endpoints/{id}/rotate-secret");
  const deliveries = useQuery({ ...webhookQueries.deliveries(mode, e.id), enabled: props.open });
  return (
    <>
      <p>
        <code>{e.url}</code> {e.enabled ? <Badge tone="ok">ativo</Badge> : <Badge>desativado</Badge>}
      </p>
      <p className={ui.hint}>Eventos: {e.events.join(", ")}</p>
      <FormError error={test.error ?? reveal.error ?? rotate.error} />
      <div className={ui.actions}>
        <button type="button" className="secondary" aria-expanded={props.open} onClick={props.toggle}>
          {props.open ? "Esconder entregas" : "Ver entregas"}
        </button>
        {props.manage ? (
          <>
            <button
              type="button"
              className="secondary"
              disabled={test.isPending}
              onClick={() =>
                test.mutate(
                  { params: { path } },
                  {
                    onSuccess: () => {
                      if (!props.open) props.toggle();
                    },
                  },
                )
              }
            >
              Enviar evento de teste
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() =>
                guard(() => reveal.mutateAsync({ params: { path } })).then(
                  (r) => props.onSecret(r.secret),
                  () => undefined,
                )
              }
            >
              Revelar segredo
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() =>
                guard(() => rotate.mutateAsync({ params: { path } })).then(
                  (r) => props.onSecret(r.secret),
                  () => undefined,
                )
              }
            >
              Trocar segredo
            </button>
          </>
        ) : null}
      </div>
      {props.open ? (
        deliveries.isPending ? (
          <Loading />
        ) : deliveries.isError ? (
          <ErrorMessage error={deliveries.error} />
        ) : deliveries.data.data.length === 0 ? (
          <p>Nenhuma entrega ainda. Envie um evento de teste.</p>
        ) : (
          <Deliveries rows={deliveries.data.data} endpointId={e.id} manage={props.manage} />
        )
      ) : null}
    </>
  );
}

function Deliveries(props: { rows: Delivery[]; endpointId: string; manage: boolean }) {
  const mode = useMode();
  const resend = useResendDelivery(mode, props.endpointId);
  const columns: Column<Delivery>[] = [
    { header: "Evento", cell: (d) => <code>{d.eventType}</code> },
    { header: "Criada em", cell: (d) => formatDateTime(d.createdAt) },
    {
      header: "Situação",
      cell: (d) =>
        d.status === "SUCCEEDED" ? (
          <Badge tone="ok">entregue</Badge>
        ) : d.status === "FAILED" ? (
          <Badge tone="danger">falhou</Badge>
        ) : (
          <Badge tone="warn">tentando</Badge>
        ),
    },
    {
      header: "Tentativas",
      cell: (d) => (
        <ol className={ui.changes}>
          {d.attempts.map((a, i) => (
            <li key={i}>
              {formatDateTime(a.at)}: {a.status ?? "sem resposta"}
              {a.durationMs !== null && a.durationMs !== undefined ? `, ${a.durationMs} ms` : ""}
              {a.error ? ` (${a.error})` : ""}
            </li>
          ))}
        </ol>
      ),
    },
  ];
  if (props.manage) {
    columns.push({
      header: "Ação",
      cell: (d) => (
        <button
          type="button"
          className="secondary"
          disabled={resend.isPending}
          onClick={() => resend.mutate({ params: { path: { mode, id: props.endpointId, deliveryId: d.id } } })}
        >
          Reenviar
        </button>
      ),
    });
  }
  return (
    <>
      <FormError error={resend.error} />
      <DataTable caption="Entregas do endpoint" columns={columns} rows={props.rows} rowKey={(d) => d.id} />
    </>
  );
}

function CreateEndpoint(props: { onCreated: (secret: string) => void }) {
  const mode = useMode();
  const guard = useStepUp();
  const create = useCreateEndpoint(mode);
  const [url, setUrl] = useState("");
  const [chosen, setChosen] = useState<Set<Kind>>(new Set(["transaction.paid"]));
  const { byField, rest } = fieldErrors(create.error, ["url", "events"]);
  return (
    <Card title="Cadastrar endpoint" id="criar-endpoint">
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          guard(() =>
            create.mutateAsync({ params: { path: { mode } }, body: { url: url.trim(), events: [...chosen] } }),
          ).then(
            (created) => {
              setUrl("");
              props.onCreated(created.secret);
            },
            () => undefined,
          );
        }}
      >
        <TextField
          label="Endereço (URL)"
          name="url"
          type="url"
          required
          placeholder="https://sualoja.com.br/webhooks/pix"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          error={byField.url}
        />
        <fieldset className={ui.fieldset}>
          <legend>Eventos</legend>
          {kinds.map((kind) => (
            <label key={kind} className={ui.check}>
              <input
                type="checkbox"
                checked={chosen.has(kind)}
                onChange={(event) => {
                  const next = new Set(chosen);
                  if (event.target.checked) next.add(kind);
                  else next.delete(kind);
                  setChosen(next);
                }}
              />
              <code>{kind}</code>
            </label>
          ))}
          {byField.events ? <p className={ui.fieldError}>{byField.events}</p> : null}
        </fieldset>
        <FormError error={create.error} rest={rest} />
        <div className={ui.formActions}>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Cadastrando…" : "Cadastrar endpoint"}
          </button>
        </div>
      </form>
    </Card>
  );
}
