import { z } from 'zod';
import { INGEST_FORMATS, isTimeZone } from './ingest-formats.ts';

// Apart from api/ingest-formats.ts, which the offline commands load: zod is hundreds of modules, a second of a
// command's start.
/**
 * How an upload names what its lines cannot: one server, one client, one protocol for all of them; for a host log,
 * the zone of its local times (`tz`) and the time a log that writes none starts at (`start`).
 */
export const ingestQuery = z.object({
  format: z.enum(INGEST_FORMATS).default('native'),
  server: z.string().min(1).max(200).optional(),
  client: z.string().min(1).max(200).optional(),
  protocol: z.enum(['mcp', 'a2a']).optional(),
  tz: z
    .string()
    .min(1)
    .max(64)
    .refine(isTimeZone, 'must be an IANA time zone, such as Europe/Berlin or UTC')
    .optional(),
  start: z.iso.datetime({ offset: true }).optional(),
  /** A host log's file name: Claude Desktop's `mcp-server-NAME.log` names its server, `mcp.log` is the combined one. */
  file: z.string().min(1).max(255).optional(),
});
export type IngestQuery = z.infer<typeof ingestQuery>;
