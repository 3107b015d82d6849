import {
  blob,
  index,
  integer,
  primaryKey,
  real,
  type SQLiteColumn,
  type SQLiteColumnBuilderBase,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import * as declared from './index.ts';
import { type ColumnSpec, type ColumnType, IndexDecl, mapValues, type TableDecl, type TableKey } from './tables.ts';

/** The calls the adapter makes on a column builder, whatever its type (a declared default fits its column). */
interface ColumnChain extends SQLiteColumnBuilderBase {
  notNull(): ColumnChain;
  default(value: unknown): ColumnChain;
  primaryKey(): ColumnChain;
}

/** SQLite stores every integer kind alike; `serial` is built apart, its key being the rowid. */
const TYPES = {
  text: (name) => text(name),
  integer: (name) => integer(name),
  smallint: (name) => integer(name),
  bigint: (name) => integer(name),
  double: (name) => real(name),
  bytes: (name) => blob(name, { mode: 'buffer' }),
} satisfies Record<Exclude<ColumnType, 'serial'>, (name: string) => ColumnChain>;

function column(spec: ColumnSpec): SQLiteColumnBuilderBase {
  if (spec.type === 'serial') {
    return integer(spec.name).primaryKey({ autoIncrement: spec.sqlite?.autoIncrement ?? true });
  }
  let built: ColumnChain = TYPES[spec.type](spec.name);
  if (spec.notNull) built = built.notNull();
  if (spec.default !== undefined) built = built.default(spec.default);
  if (spec.primaryKey) built = built.primaryKey();
  return built;
}

function key(declaration: TableKey<SQLiteColumn>) {
  if (!(declaration instanceof IndexDecl)) return primaryKey({ columns: [...declaration.columns] });
  const built = (declaration.unique ? uniqueIndex : index)(declaration.name).on(...declaration.columns);
  return declaration.condition === undefined ? built : built.where(declaration.condition);
}

/** WITHOUT ROWID (`sqliteWithoutRowId`) is not built here: drizzle cannot say it, the migrations add it by hand. */
function table(declaration: TableDecl) {
  const columns = mapValues(declaration.columns, (decl) => column(decl.spec));
  return sqliteTable(declaration.name, columns, (built) => declaration.keys<SQLiteColumn>(built).map(key));
}

/** The SQLite store's tables, for drizzle-kit (db/drizzle.sqlite.config.ts). */
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
