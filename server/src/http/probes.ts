import { readFileSync } from "node:fs";
import type { IRouter, RequestHandler } from "express";
import { escapeHtml } from "../checkout/html.js";
import { unknownQueryParameterMessage } from "./kit/validation-messages.js";
import { sendError } from "./errors.js";

import { notReadyRetryAfterSeconds } from "../domain/core/policy.js";

const icon = readFileSync(new URL("../checkout/assets/icon.svg", import.meta.url));

/**
 * What answers without a key, before rate limits and authentication: the probes (`/health`
 * liveness, `/ready` readiness, declared in spec/health.tsp), the home page (linking the dashboard
 * and the docs), and the favicon.
 */
export function mountProbes(
  app: IRouter,
  ready: () => Promise<{ bank?: { status: string; warnings: string[] } | undefined }>,
): void {
  app.get("/health", noQuery, (_req, res) => {
    res.json({ ok: true });
  });
  app.get("/ready", noQuery, async (req, res) => {
    let report;
    try {
      report = await ready();
    } catch {
      res.setHeader("Retry-After", String(notReadyRetryAfterSeconds));
      return sendError(req, res, "SERVICE_UNAVAILABLE");
    }
    res.json({ ok: true, ...(report.bank ? { bank: report.bank } : {}) });
  });
  app.get("/favicon.ico", (_req, res) => {
    res.type("image/svg+xml").setHeader("cache-control", "public, max-age=86400").send(icon);
  });
  app.get("/", (req, res) => {
    const links = {
      dashboard: "/painel",
      docs: "/docs",
      openapi: "/openapi.yaml",
      health: "/health",
      ready: "/ready",
    };
    if (req.accepts(["html", "json"]) === "json") {
      res.json({
        ok: true,
        service: "Pix Charging Service",
        dashboard: links.dashboard,
        docs: links.docs,
        openapi: links.openapi,
        health: links.health,
        ready: links.ready,
      });
      return;
    }
    const base = `${req.protocol}://${req.get("host") ?? "127.0.0.1:3000"}`;
    res.type("html").send(homePage(escapeHtml(base)));
  });
}

/** The probes take no query parameter: any is refused by its name, as on every other operation. */
const noQuery: RequestHandler = (req, res, next) => {
  const [name] = Object.keys(req.query as Record<string, unknown>);
  if (name === undefined) return next();
  sendError(req, res, "VALIDATION_ERROR", undefined, [{ path: name, message: unknownQueryParameterMessage }]);
};

function homePage(base: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pix Charging Service</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1f24}code,pre{background:#f2f4f7;border-radius:4px}pre{padding:.75rem;overflow:auto}code{padding:0 .2rem}</style>
</head>
<body>
<h1>Pix Charging Service</h1>
<p>API de cobranças Pix: cobranças com BR Code, links de pagamento com checkout, clientes, saldo, saques e webhooks.</p>
<ul>
<li><a href="/painel">Painel do lojista</a>: cadastre-se, entre e acompanhe cobranças, saldo, chaves e webhooks</li>
<li><a href="/docs">Documentação</a> (guias e referências da API)</li>
<li><a href="/openapi.yaml">Documento OpenAPI</a> (<a href="/admin-openapi.yaml">API de operador</a>)</li>
<li><a href="/health">/health</a> (processo no ar) e <a href="/ready">/ready</a> (banco de dados respondendo)</li>
</ul>
<h2>Primeiros passos</h2>
<ol>
<li>Use a chave de teste (<code>svc_test_…</code>) que <code>npm start</code> imprimiu ao iniciar.</li>
<li>Crie uma cobrança:
<pre>curl -s -X POST ${base}/api/v1/charges/pix -H "x-api-key: $KEY" \\
  -H 'content-type: application/json' \\
  -d '{"amountCents":8990,"description":"Pedido 1234","customer":{"name":"Maria da Silva",
       "email":"maria@example.com","phone":"11987654321","documentType":"CPF","document":"52998224725"}}'</pre></li>
<li>Simule o pagamento: <pre>curl -s -X POST ${base}/api/v1/sandbox/transactions/txn_…/pay -H "x-api-key: $KEY"</pre></li>
<li>Consulte a transação (<code>PAID</code>) e o saldo:
<pre>curl -s ${base}/api/v1/transactions/txn_… -H "x-api-key: $KEY"
curl -s ${base}/api/v1/balance -H "x-api-key: $KEY"</pre></li>
</ol>
<p>Mais no README do projeto (seção <em>Set-up</em>).</p>
</body>
</html>`;
}
