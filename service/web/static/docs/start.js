// Starts Swagger UI on /docs (service/web/docs.py) from a file rather than an inline script,
// so the page runs under a Content-Security-Policy that allows scripts from this server only.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    // No call to the public validator: the page works offline and sends the spec nowhere.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
  });
});
