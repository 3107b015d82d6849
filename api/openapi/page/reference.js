// Renders this server's OpenAPI document. A file of its own, not an inline script: the page's CSP allows 'self' only.
window.SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  // No validity badge: it would send the document to swagger.io, and the page talks to this server alone.
  validatorUrl: null,
});
