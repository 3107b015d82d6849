import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { RouterRoute } from 'hono/types';
import type { Env } from '../env.ts';
import { openApiDocument } from '../openapi/document.ts';

/** Swagger UI as its package ships it, served from here: the page loads nothing from elsewhere (the CSP is 'self'). */
const RENDERER = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const PAGE = fileURLToPath(new URL('../openapi/page/', import.meta.url));
const JS = 'text/javascript; charset=utf-8';

/** The page's files by the name it asks for them; reference.js starts the renderer (no inline script). */
const FILES = {
  'swagger-ui-bundle.js': { path: join(RENDERER, 'swagger-ui-bundle.js'), type: JS },
  'swagger-ui.css': { path: join(RENDERER, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'reference.js': { path: join(PAGE, 'reference.js'), type: JS },
};

const read = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
/** A file of the page, read once: they change only with an upgrade, which restarts the server. */
function load(path: string): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = read.get(path) ?? readFile(path).then((buffer) => new Uint8Array(buffer));
  read.set(path, bytes);
  return bytes;
}

/**
 * The OpenAPI document of `app` (built once, from its routes when first asked for: by then every route is
 * registered) and the reference page that renders it at /api/docs.
 */
export function referenceRoutes(app: { readonly routes: readonly RouterRoute[] }) {
  let document: ReturnType<typeof openApiDocument> | undefined;
  const reference = new Hono<Env>()
    .get('/api/v1/openapi.json', (c) => {
      document ??= openApiDocument(app.routes);
      return c.json(document);
    })
    .get('/api/docs', async (c) => c.html(new TextDecoder().decode(await load(join(PAGE, 'index.html')))));
  for (const [name, file] of Object.entries(FILES)) {
    reference.get(`/api/docs/${name}`, async (c) =>
      c.body(await load(file.path), 200, { 'content-type': file.type, 'cache-control': 'max-age=3600' }),
    );
  }
  return reference;
}
