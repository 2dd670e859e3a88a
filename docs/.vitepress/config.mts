import { defineConfig } from "vitepress";
import apiReferences from "../api-reference/references.json";

// The documentation site (docs/decisions/0039-documentation-site-vitepress-and-swagger-ui.md):
// these Markdown pages, built by `npm run docs:build` (scripts/build-docs.mjs) into dist/docs and
// served by the server at /docs. Local search (minisearch, built in), no CDN, no external font. The
// three API references are Swagger UI pages the build writes from docs/api-reference/ (one page,
// filled in for each of references.json).

const references = apiReferences.map(({ name, label }) => ({ text: label, link: `/api/${name}/`, target: "_self" }));

export default defineConfig({
  base: "/docs/",
  lang: "pt-BR",
  title: "Pix Charging Service",
  description: "Cobranças Pix, Pix Automático, webhooks e o painel do lojista: guias e referência da API.",
  // README.md and decisions.md are the repository's entry points, not pages of the site.
  srcExclude: ["README.md", "decisions.md"],
  // The site data and page hash map as files, not inline scripts (the CSP allows 'self' and hashes).
  metaChunk: true,
  lastUpdated: false,
  // Links to the Swagger UI pages (written by the build), to the server on this machine, and the
  // template's placeholder.
  ignoreDeadLinks: [/^\/api\//, /^https?:\/\/(localhost|127\.0\.0\.1)[:/]/, /NNNN-title/],
  vite: { logLevel: "warn" },
  themeConfig: {
    nav: [
      { text: "Início rápido", link: "/quickstart" },
      { text: "Referência da API", items: references },
      { text: "Decisões", link: "/decisions/" },
    ],
    sidebar: [
      {
        text: "Para quem integra",
        items: [
          { text: "Início rápido", link: "/quickstart" },
          { text: "Pix Automático", link: "/recurring-pix" },
          { text: "Cobranças com vencimento", link: "/due-date-charges" },
          { text: "Webhooks", link: "/webhooks" },
          { text: "Checkout hospedado", link: "/checkout" },
          { text: "Configuração", link: "/configuration" },
        ],
      },
      {
        text: "Painel do lojista",
        items: [
          { text: "Aplicativo do painel", link: "/dashboard-app" },
          { text: "API do painel", link: "/dashboard-api" },
        ],
      },
      { text: "Referência da API", items: references },
      {
        text: "Platform and contributors",
        items: [
          { text: "Operator API and CLI", link: "/operator-and-cli" },
          { text: "Production with a bank", link: "/bank" },
          { text: "PostgreSQL and scaling", link: "/postgres-and-scaling" },
          { text: "The fake bank", link: "/fake-bank" },
          { text: "Architecture", link: "/architecture" },
          { text: "Contributing", link: "/contributing" },
          { text: "Benchmarks", link: "/benchmarks" },
          { text: "Decision records", link: "/decisions/" },
        ],
      },
    ],
    search: {
      provider: "local",
      options: {
        translations: {
          button: { buttonText: "Buscar", buttonAriaLabel: "Buscar" },
          modal: {
            displayDetails: "Mostrar detalhes",
            resetButtonTitle: "Limpar a busca",
            backButtonTitle: "Fechar a busca",
            noResultsText: "Nada encontrado para",
            footer: { selectText: "escolher", navigateText: "navegar", closeText: "fechar" },
          },
        },
      },
    },
    outline: { level: [2, 3], label: "Nesta página" },
    docFooter: { prev: "Anterior", next: "Próxima" },
    darkModeSwitchLabel: "Aparência",
    sidebarMenuLabel: "Menu",
    returnToTopLabel: "Voltar ao topo",
    langMenuLabel: "Idioma",
    notFound: {
      title: "Página não encontrada",
      quote: "Este endereço não existe na documentação.",
      linkText: "Ir para o início",
    },
  },
});
