import {
  bigint,
  bigserial,
  customType,
  doublePrecision,
  index,
  integer,
  type PgColumn,
  type PgColumnBuilderBase,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import * as declared from './index.ts';
import { type ColumnSpec, type ColumnType, IndexDecl, mapValues, type TableDecl, type TableKey } from './tables.ts';

/** Bytes as node-postgres reads and writes them (drizzle has no bytea builder). */
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** The calls the adapter makes on a column builder, whatever its type (a declared default fits its column). */
interface ColumnChain extends PgColumnBuilderBase {
  notNull(): ColumnChain;
  default(value: unknown): ColumnChain;
  primaryKey(): ColumnChain;
}

const TYPES = {
  text: (name) => text(name),
  integer: (name) => integer(name),
  smallint: (name) => smallint(name),
  bigint: (name) => bigint(name, { mode: 'number' }),
  double: (name) => doublePrecision(name),
  bytes: (name) => bytea(name),
  serial: (name) => bigserial(name, { mode: 'number' }),
} satisfies Record<ColumnType, (name: string) => ColumnChain>;

function column(spec: ColumnSpec): ColumnChain {
  let built: ColumnChain = TYPES[spec.type](spec.name);
  if (spec.notNull) built = built.notNull();
  if (spec.default !== undefined) built = built.default(spec.default);
  if (spec.primaryKey) built = built.primaryKey();
  return built;
}

function key(declaration: TableKey<PgColumn>) {
  if (!(declaration instanceof IndexDecl)) return primaryKey({ columns: [...declaration.columns] });
  const built = (declaration.unique ? uniqueIndex : index)(declaration.name).on(...declaration.columns);
  return declaration.condition === undefined ? built : built.where(declaration.condition);
}

function table(declaration: TableDecl) {
  const columns = mapValues(declaration.columns, (decl) => column(decl.spec));
  return pgTable(declaration.name, columns, (built) => declaration.keys<PgColumn>(built).map(key));
}

/** The PostgreSQL store's tables, for drizzle-kit (db/drizzle.pg.config.ts). */
export const {
  actionabilityHour,
  actionabilityMinute,
  alertDeliveries,
  alertDeliveryAttempts,
  alertHistory,
  alertInstances,
  alertRules,
  settings,
  codeHour,
  codeMinute,
  coldBlocks,
  contextMinute,
  contextServer5Min,
  contextServerHour,
  denialBreach,
  denialClientHour,
  denialHour,
  denialIdentity,
  denialReplayHour,
  denialServerHour,
  eraClientHour,
  eraClientMinute,
  eraServerHour,
  eraServerMinute,
  eventBodies,
  events,
  foldQueue,
  gateCheckpointKeys,
  gateCheckpoints,
  gateKeys,
  gatePartitions,
  gatePending,
  identityHour,
  inputRequests,
  methodFailureHour,
  methodFailureMinute,
  rollup5Min,
  rollupAvoidable5Min,
  rollupAvoidableHour,
  rollupAvoidableMinute,
  rollupClient5Min,
  rollupClientHour,
  rollupClientMinute,
  rollupFleet5Min,
  rollupFleetHour,
  rollupFleetMinute,
  rollupHour,
  rollupServer5Min,
  rollupServerHour,
  rollupServerMinute,
  servers,
  storms,
  totalAvoidable,
  totalRequests,
} = mapValues(declared, table);
