-- A storm's key takes its server, (id, server), so that a store distributed by server keeps each storm on its
-- server's node (ADR 14). The id already digests the server; no row changes.
ALTER TABLE "storms" DROP CONSTRAINT "storms_pkey";--> statement-breakpoint
ALTER TABLE "storms" ADD CONSTRAINT "storms_id_server_pk" PRIMARY KEY("id","server");
