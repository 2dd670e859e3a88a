import { useQuery } from "@tanstack/react-query";
import { webhookEventTypes } from "../../../../../generated/rules";
import { useId, useState } from "react";
import { api } from "../../../api/client";
import { fieldErrors } from "../../../api/errors";
import { canCall } from "../../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../../api/session";
import { EventName } from "../../../components/EventName";
import { type Column, DataTable } from "../../../components/DataTable";
import { TextField } from "../../../components/Field";
import { FormError } from "../../../components/FormError";
import { useStepUp } from "../../../components/StepUp";
import { Badge, Card, EmptyState, ErrorMessage, Loading, ui } from "../../../components/ui";
import { formatDateTime } from "../../../lib/format";
import { useMode } from "../../../lib/useMode";
import { SecretOnce } from "../keys/Keys";
import type { WebhookDelivery, WebhookEndpoint } from "../../../api/types";
import {
  useCreateEndpoint,
  useDeleteEndpoint,
  useResendDelivery,
  useSendTestEvent,
  useUpdateEndpoint,
  webhookQueries,
} from "./queries";

type Endpoint = WebhookEndpoint;
type Delivery = WebhookDelivery;
type Kind = Endpoint["events"][number];

/** Every kind of event an endpoint can receive, as the document lists them (generated/rules.ts). */
const kinds: readonly Kind[] = webhookEventTypes;

/**
 * Webhook endpoints of the mode: create (the secret once), change, disable or enable, delete, test
 * event, deliveries with attempts (the start of each answer's body), resend.
 */
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
          <ul className={`stack ${ui.plainList}`} aria-label="Endpoints">
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
  const update = useUpdateEndpoint(mode);
  const remove = useDeleteEndpoint(mode);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  if (editing) {
    return (
      <EndpointForm
        title={`Alterar o endpoint ${e.url}`}
        initial={{ url: e.url, events: e.events }}
        submitLabel="Salvar alterações"
        pendingLabel="Salvando…"
        mutation={update}
        submit={(body) =>
          guard(() =>
            update.mutateAsync({
              params: { path },
              // Only what changed: a new address asks a step-up in production, new kinds do not.
              body: { ...(body.url === e.url ? {} : { url: body.url }), events: body.events },
            }),
          ).then(
            () => setEditing(false),
            () => undefined,
          )
        }
        cancel={() => setEditing(false)}
      />
    );
  }
  return (
    <>
      <p>
        <code>{e.url}</code> {e.enabled ? <Badge tone="ok">ativo</Badge> : <Badge>desativado</Badge>}
      </p>
      <p className={ui.hint}>Eventos: {e.events.join(", ")}</p>
      <FormError error={test.error ?? reveal.error ?? rotate.error ?? update.error ?? remove.error} />
      {deleting ? (
        <div className={ui.confirm} role="group" aria-label="Confirmar a exclusão">
          <p>
            Excluir o endpoint <code>{e.url}</code>? Nada mais é enviado a ele, nem as entregas pendentes; não há como
            desfazer.
          </p>
          <div className={ui.actions}>
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() =>
                guard(() => remove.mutateAsync({ params: { path } })).then(
                  () => setDeleting(false),
                  () => undefined,
                )
              }
            >
              Excluir de vez
            </button>
            <button type="button" className="secondary" onClick={() => setDeleting(false)}>
              Manter
            </button>
          </div>
        </div>
      ) : null}
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
            <button type="button" className="secondary" onClick={() => setEditing(true)}>
              Alterar
            </button>
            <button
              type="button"
              className="secondary"
              disabled={update.isPending}
              onClick={() =>
                void guard(() => update.mutateAsync({ params: { path }, body: { enabled: !e.enabled } })).catch(
                  () => undefined,
                )
              }
            >
              {e.enabled ? "Desativar" : "Ativar"}
            </button>
            <button type="button" className="secondary" onClick={() => setDeleting(true)}>
              Excluir
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
    { header: "Evento", cell: (d) => <EventName kind={d.eventType} /> },
    { header: "Criada em", cell: (d) => formatDateTime(d.createdAt) },
    {
      essential: true,
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
              {a.responseBody ? (
                <details>
                  <summary>Resposta</summary>
                  <pre className={ui.responseBody}>{a.responseBody}</pre>
                </details>
              ) : null}
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
  const [round, setRound] = useState(0);
  return (
    <EndpointForm
      key={round}
      title="Cadastrar endpoint"
      initial={{ url: "", events: ["transaction.paid"] }}
      submitLabel="Cadastrar endpoint"
      pendingLabel="Cadastrando…"
      mutation={create}
      submit={(body) =>
        guard(() => create.mutateAsync({ params: { path: { mode } }, body })).then(
          (created) => {
            setRound(round + 1);
            props.onCreated(created.secret);
          },
          () => undefined,
        )
      }
    />
  );
}

/** An endpoint's address and kinds: to register one, or to change one. */
function EndpointForm(props: {
  title: string;
  initial: { url: string; events: Kind[] };
  submitLabel: string;
  pendingLabel: string;
  mutation: { error: unknown; isPending: boolean };
  submit: (body: { url: string; events: Kind[] }) => Promise<void>;
  cancel?: () => void;
}) {
  const [url, setUrl] = useState(props.initial.url);
  const [chosen, setChosen] = useState<Set<Kind>>(new Set(props.initial.events));
  const { byField, rest } = fieldErrors(props.mutation.error, ["url", "events"]);
  const id = useId();
  return (
    <Card title={props.title} id={`endpoint-${id.replace(/[^A-Za-z0-9_-]/g, "")}`}>
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void props.submit({ url: url.trim(), events: kinds.filter((kind) => chosen.has(kind)) });
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
              <EventName kind={kind} />
            </label>
          ))}
          {byField.events ? <p className={ui.fieldError}>{byField.events}</p> : null}
        </fieldset>
        <FormError error={props.mutation.error} rest={rest} />
        <div className={ui.formActions}>
          <button type="submit" disabled={props.mutation.isPending}>
            {props.mutation.isPending ? props.pendingLabel : props.submitLabel}
          </button>
          {props.cancel ? (
            <button type="button" className="secondary" onClick={props.cancel}>
              Cancelar
            </button>
          ) : null}
        </div>
      </form>
    </Card>
  );
}
