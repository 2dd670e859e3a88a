/* global window, document, SwaggerUIBundle, SwaggerUIStandalonePreset */
// One API reference page (docs/api-reference/page.html, at /docs/api/<name>/ for each of
// references.json) rendered by Swagger UI from files of this site: the document named by the page's
// data-document. "Try it out"
// calls the server that served the page: the document's `{baseUrl}` server variable is set to this
// page's origin once the document has loaded.
window.onload = () => {
  const target = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: new URL(target.dataset.document, window.location.href).href,
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "StandaloneLayout",
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    // No badge from the public validator: nothing on this page leaves this origin.
    validatorUrl: null,
    onComplete: () => {
      const system = window.ui.getSystem();
      const server = system.specSelectors.servers().first();
      if (!server) return;
      const url = server.get("url");
      system.oas3Actions.setSelectedServer(url);
      if (server.hasIn(["variables", "baseUrl"]))
        system.oas3Actions.setServerVariableValue({ server: url, key: "baseUrl", val: window.location.origin });
    },
  });
};
