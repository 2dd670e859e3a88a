import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { api } from "../../../api/client";
import { usePagedQuery } from "../../../api/queries";
import type { RequestLog, RequestLogSummary } from "../../../api/types";
import { CopyButton } from "../../../components/CopyButton";
import { type Column, CursorPager, DataTable } from "../../../components/DataTable";
import { Field } from "../../../components/Field";
import { Badge, Card, Details, EmptyState, ErrorMessage, Loading, ui } from "../../../components/ui";
import { withFilters } from "../../../lib/filters";
import { formatDateTimeSeconds } from "../../../lib/format";
import type { Mode } from "../../../lib/mode";
import { useMode, useModePath } from "../../../lib/useMode";
import { keyQueries } from "../keys/queries";
import styles from "./request-logs.module.css";

// Desenvolvedores → Registros (issue 37 §2): the mode's public API requests of the last 7 days,
// filtered in the address (`?situacao=4xx&caminho=/charges&chave=key_…`), and one request's page
// with its bodies (masked by the server) and its error.

const statusFilters = [
  ["", "Todas"],
  ["2xx", "Sucesso (2xx)"],
  ["4xx", "Erro do pedido (4xx)"],
  ["5xx", "Erro do servidor (5xx)"],
] as const;

const statusPattern = /^([1-5]xx|[1-5][0-9][0-9])$/;

const list = (mode: Mode, query: { status?: string; path?: string; keyId?: string }, page: object) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/request-logs", {
    params: { path: { mode }, query: { ...query, ...page } },
  });

const one = (mode: Mode, id: string) =>
  api.queryOptions("get", "/dashboard/v1/modes/{mode}/request-logs/{id}", { params: { path: { mode, id } } });

/** A status as a coloured badge: green for 2xx, amber for 4xx, red for 5xx. */
function StatusCode(props: { status: number }) {
  const tone = props.status >= 500 ? "danger" : props.status >= 400 ? "warn" : "ok";
  return <Badge tone={tone}>{props.status}</Badge>;
}

/** The error's code and message from a failure's body (JSON as the API writes it), or its start. */
function errorLine(body: string | null): string | null {
  if (!body) return null;
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === "string") {
      return typeof parsed.message === "string" ? `${parsed.code}: ${parsed.message}` : parsed.code;
    }
  } catch {
    // not whole JSON (cut short): its start
  }
  return body.slice(0, 120);
}

/** A body as JSON laid out, or as it was kept when it is not whole JSON (cut short). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The list of requests, its filters in the address. */
export function RequestLogs() {
  const mode = useMode();
  const to = useModePath();
  const [search, setSearch] = useSearchParams();
  const statusParam = search.get("situacao") ?? "";
  const status = statusPattern.test(statusParam) ? statusParam : undefined;
  const path = search.get("caminho") || undefined;
  const keyId = search.get("chave") || undefined;
  const [pathText, setPathText] = useState(path ?? "");
  const keys = useQuery(keyQueries.list(mode));
  const logs = usePagedQuery((page) =>
    list(mode, { ...(status ? { status } : {}), ...(path ? { path } : {}), ...(keyId ? { keyId } : {}) }, page),
  );
  const columns: Column<RequestLogSummary>[] = [
    {
      header: "Pedido",
      essential: true,
      cell: (r) => (
        <Link to={to(`desenvolvedores/registros/${r.id}`)} className={styles.wrap}>
          <code>
            {r.method} {r.path}
          </code>
        </Link>
      ),
    },
    { header: "Situação", essential: true, cell: (r) => <StatusCode status={r.status} /> },
    { header: "Quando", cell: (r) => <span className={ui.nowrap}>{formatDateTimeSeconds(r.createdAt)}</span> },
    { header: "Duração", numeric: true, cell: (r) => `${r.durationMs} ms` },
    { header: "Chave", cell: (r) => r.key.name },
    { header: "Erro", cell: (r) => errorLine(r.errorBody) ?? "—" },
  ];
  const rows = logs.data?.data ?? [];
  return (
    <Card title="Registros de requisições" id="registros">
      <p>
        As requisições à API feitas com as chaves deste modo nos últimos 7 dias, com as respostas. CPF, CNPJ, e-mails e
        segredos aparecem mascarados.
      </p>
      <form
        className={ui.filters}
        aria-label="Filtros"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(withFilters(search, { caminho: pathText.trim() }));
        }}
      >
        <Field label="Situação">
          <select
            value={status ?? ""}
            onChange={(event) => setSearch(withFilters(search, { situacao: event.target.value }))}
          >
            {statusFilters.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
            {status && !statusFilters.some(([value]) => value === status) ? (
              <option value={status}>{status}</option>
            ) : null}
          </select>
        </Field>
        <Field label="Chave">
          <select
            value={keyId ?? ""}
            onChange={(event) => setSearch(withFilters(search, { chave: event.target.value }))}
          >
            <option value="">Todas</option>
            {(keys.data?.data ?? []).map((key) => (
              <option key={key.id} value={key.id}>
                {key.name} ({key.prefix}…)
              </option>
            ))}
          </select>
        </Field>
        <div className={ui.wideFilter}>
          <Field label="Caminho contém" hint="Parte do caminho, como /charges ou o id de uma transação">
            <input
              type="search"
              maxLength={200}
              value={pathText}
              onChange={(event) => setPathText(event.target.value)}
            />
          </Field>
        </div>
        <div className={ui.formActions}>
          <button type="submit" className="secondary">
            Filtrar
          </button>
        </div>
      </form>
      {logs.isPending ? (
        <Loading />
      ) : logs.isError ? (
        <ErrorMessage error={logs.error} retry={() => void logs.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="Nenhuma requisição encontrada">
          <p>As chamadas à API com uma chave deste modo aparecem aqui em até um ou dois segundos.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable caption="Lista de requisições" columns={columns} rows={rows} rowKey={(r) => r.id} />
          <CursorPager hasMore={logs.data.hasMore} lastId={rows.at(-1)?.id} count={rows.length} />
        </>
      )}
    </Card>
  );
}

function Body(props: { title: string; body: string | null; truncated: boolean; label: string }) {
  return (
    <>
      <h3 className={ui.spaced}>{props.title}</h3>
      {props.body === null ? (
        <p>Sem corpo.</p>
      ) : (
        <>
          <pre className={ui.json} tabIndex={0} aria-label={props.label}>
            {pretty(props.body)}
          </pre>
          {props.truncated ? <p className={ui.hint}>Cortado: só o começo foi guardado.</p> : null}
        </>
      )}
    </>
  );
}

/** One request: what was asked and answered, the error on a failure, the request id to copy. */
export function RequestLogPage() {
  const { id = "" } = useParams();
  const mode = useMode();
  const to = useModePath();
  const query = useQuery(one(mode, id));
  const back = (
    <p>
      <Link to={to("desenvolvedores/registros")}>← Registros</Link>
    </p>
  );
  if (query.isPending) return <Loading label="Carregando a requisição…" />;
  if (query.isError) {
    return (
      <div className="stack">
        {back}
        <ErrorMessage error={query.error} retry={() => void query.refetch()} />
      </div>
    );
  }
  const r: RequestLog = query.data;
  return (
    <div className="stack">
      {back}
      <Card>
        <h2 className={styles.wrap}>
          {r.method} {r.path}
        </h2>
        <Details
          items={[
            ["Situação", <StatusCode key="status" status={r.status} />],
            ["Quando", formatDateTimeSeconds(r.createdAt)],
            ["Duração", `${r.durationMs} ms`],
            ["Operação", <code key="route">{`${r.method} ${r.route}`}</code>],
            [
              "Chave",
              <span key="key">
                {r.key.name} <code>{r.key.prefix}…</code>
              </span>,
            ],
            [
              "Id da requisição",
              <span key="request-id" className={styles.wrap}>
                <code>{r.requestId}</code> <CopyButton text={r.requestId} label="Copiar id" />
              </span>,
            ],
            ...(r.query ? ([["Parâmetros", <code key="query">{r.query}</code>]] as [string, ReactNode][]) : []),
          ]}
        />
        {r.errorBody ? (
          <>
            <h3 className={ui.spaced}>Erro</h3>
            <p>{errorLine(r.errorBody)}</p>
          </>
        ) : null}
        <Body title="Corpo do pedido" body={r.requestBody} truncated={r.requestBodyTruncated} label="Corpo do pedido" />
        <Body
          title="Corpo da resposta"
          body={r.responseBody}
          truncated={r.responseBodyTruncated}
          label="Corpo da resposta"
        />
      </Card>
    </div>
  );
}
