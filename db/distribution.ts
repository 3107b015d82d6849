/**
 * How each table would be placed on a store distributed by server, Citus (docs/adr/0014-distribution-by-server.md):
 * the one list of the tables that are not distributed by `server`, each with why. Every other table has a `server`
 * column, is distributed by it, co-located with `events`, and holds the server in each of its unique keys
 * (tests/api/distribution.test.ts reads PostgreSQL's catalog to hold the schema to that).
 */
export type Placement =
  /** Distributed by another column, which every unique key of the table holds. */
  | { as: 'distributed'; by: string; why: string }
  /** One copy on every node: small tables read beside every server's rows. */
  | { as: 'reference'; why: string }
  /** Kept on the coordinator only (a Citus local table): written by each batch, never joined with servers' rows. */
  | { as: 'coordinator'; why: string };

const CONFIGURATION = 'small, written by people and by the alert engine, read beside every server';
const FLEET = 'one row per minute, bucket and kind across all servers: a few thousand rows a day, folded each batch';
const GATE = 'keyed by the gate partition, JSON [client, server]: one partition on one node, beside no events yet';
const CLIENTS = "a client's counts across the servers it calls: distributed by client, which every key holds";

export const NOT_BY_SERVER: Readonly<Record<string, Placement>> = {
  event_bodies: {
    as: 'distributed',
    by: 'id',
    why: 'a block holds the lines of one insert, of many servers (cut per server they would compress worse); read by id after the events are found',
  },
  gate_checkpoint_keys: {
    as: 'distributed',
    by: 'partition',
    why: GATE,
  },
  gate_checkpoints: {
    as: 'distributed',
    by: 'partition',
    why: GATE,
  },
  gate_keys: {
    as: 'distributed',
    by: 'partition',
    why: GATE,
  },
  gate_partitions: {
    as: 'distributed',
    by: 'partition',
    why: GATE,
  },
  gate_pending: {
    as: 'distributed',
    by: 'partition',
    why: GATE,
  },
  rollup_client_minute: { as: 'distributed', by: 'client', why: CLIENTS },
  rollup_client_5min: { as: 'distributed', by: 'client', why: CLIENTS },
  rollup_client_hour: { as: 'distributed', by: 'client', why: CLIENTS },
  denial_client_hour: { as: 'distributed', by: 'client', why: CLIENTS },
  era_client_minute: { as: 'distributed', by: 'client', why: CLIENTS },
  era_client_hour: { as: 'distributed', by: 'client', why: CLIENTS },
  fold_queue: {
    as: 'coordinator',
    why: 'runs of event seqs across servers, one row per stored batch, read and deleted by the one fold at a time',
  },
  rollup_fleet_minute: { as: 'coordinator', why: FLEET },
  rollup_fleet_5min: { as: 'coordinator', why: FLEET },
  rollup_fleet_hour: { as: 'coordinator', why: FLEET },
  servers: { as: 'reference', why: 'one row per server, read beside its rows on every node' },
  settings: { as: 'reference', why: 'a few named values (retention horizons, one-off marks)' },
  alert_rules: { as: 'reference', why: CONFIGURATION },
  alert_instances: { as: 'reference', why: CONFIGURATION },
  alert_history: { as: 'reference', why: CONFIGURATION },
  alert_deliveries: { as: 'reference', why: CONFIGURATION },
  alert_delivery_attempts: { as: 'reference', why: CONFIGURATION },
};
