/** A table of the service's data, built by the Rust core and held in native memory. */

import util = require('node:util')

import { invalid, invokeSync } from './errors.js'
import native = require('../native.js')

/**
 * The typed array {@link Table.column} gives for a column whose rows hold `T`: ids
 * (`task_id`) as a `BigInt64Array` (exact); every other number and every time as a
 * `Float64Array` (times in milliseconds since the epoch, as `Date.getTime()`; null as `NaN`);
 * texts and booleans as arrays (null as `null`).
 */
export type ColumnOf<K, T> = K extends 'task_id'
  ? BigInt64Array
  : [T] extends [number | null]
    ? Float64Array
    : [T] extends [Date | null]
      ? Float64Array
      : Array<T>

/**
 * A column's name, its Arrow type (e.g. `Timestamp(s, "+08:00")`) and whether it holds nulls.
 *
 * @example
 * for (const { name, type, nullable } of table.schema.fields) console.log(name, type, nullable)
 */
export interface TableField {
  /** The column's name, as {@link Table.column} takes it (e.g. `value`). */
  readonly name: string
  /** Its Arrow data type, as Arrow writes it (e.g. `Float64`, `Timestamp(s, "+08:00")`). */
  readonly type: string
  /** Whether it may hold nulls. */
  readonly nullable: boolean
}

/**
 * The columns of a {@link Table}, in order.
 *
 * @example
 * const names = table.schema.fields.map((f) => f.name)
 */
export interface TableSchema {
  /** One {@link TableField} per column, in the table's order. */
  readonly fields: readonly TableField[]
}

/** Makes a Table (set by the class, whose constructor is private: `client.tables` makes them). */
let make: <Row extends object>(handle: native.NativeTable) => Table<Row>

/** The JavaScript expression of one cell of column `i` at row `r`, by the column's kind. */
function cellExpression(kind: string, i: number): string {
  switch (kind) {
    case 'number':
      return `((v = n${i}[r]) === v ? v : null)`
    case 'id':
      return `n${i}[r]`
    case 'timestamp':
      // Consecutive rows of one instant (the metrics of one record) share its Date, as rows
      // flattened by hand from a record do.
      return `((v = n${i}[r]) === v ? (v === t${i} ? d${i} : (d${i} = new Date((t${i} = v)))) : null)`
    case 'string':
      return `((k = k${i}[r]) < 0 ? null : s${i}[k])`
    default:
      return `((k = f${i}[r]) === 2 ? null : k === 1)`
  }
}

type RowBuilder = (columns: native.NativeColumn[], count: number) => object[]

/** Row builders by schema: a function per shape of table, made once. */
const ROW_BUILDERS = new Map<string, RowBuilder>()

/**
 * The function that builds a table's rows from its columns (as the native side hands them
 * over). Generated for the schema, so that each row is one object literal of a fixed shape:
 * several times faster than setting the properties one column at a time.
 */
function rowBuilder(names: string[], kinds: string[]): RowBuilder {
  const key = JSON.stringify([names, kinds])
  let build = ROW_BUILDERS.get(key)
  if (build === undefined) {
    const setup = kinds
      .map(
        (_, i) =>
          `const n${i} = c[${i}].numbers, k${i} = c[${i}].keys, s${i} = c[${i}].strings, f${i} = c[${i}].flags\nlet t${i} = Number.NaN, d${i} = null`,
      )
      .join('\n')
    const fields = names.map((name, i) => `${JSON.stringify(name)}: ${cellExpression(kinds[i], i)}`).join(',\n')
    const body = `${setup}\nconst rows = new Array(count)\nlet v, k\nfor (let r = 0; r < count; r++) {\nrows[r] = {\n${fields}\n}\n}\nreturn rows`
    build = new Function('c', 'count', body) as RowBuilder
    ROW_BUILDERS.set(key, build)
  }
  return build
}

/**
 * A table of the service's data, built once by the Rust core (numbers parsed, times read in
 * the service's time zone, nulls where the service sent nothing usable) and held in native
 * memory. Read it as rows, as typed columns, or as Arrow IPC bytes for apache-arrow,
 * nodejs-polars, DuckDB or any other reader of the Arrow IPC stream format. Made by the calls of
 * {@link Client.tables}.
 *
 * @example
 * const report = await client.tables.serviceReport(10001, { startDate: '2026-11-01', endDate: '2026-11-30' })
 * console.log(report.numRows, report.schema.fields.map((f) => f.name))
 * const values = report.column('value') // Float64Array, NaN where null
 */
export class Table<Row extends object = Record<string, unknown>> {
  #native: native.NativeTable
  #schema: TableSchema

  static {
    make = <Row extends object>(handle: native.NativeTable) => new Table<Row>(handle)
  }

  private constructor(handle: native.NativeTable) {
    if (!(handle instanceof native.NativeTable)) {
      throw invalid('Table', 'is made by the calls of client.tables, not `new`')
    }
    this.#native = handle
    const fields: TableField[] = handle
      .fields()
      .map((f) => Object.freeze({ name: f.name, type: f.type, nullable: f.nullable }))
    this.#schema = Object.freeze({ fields: Object.freeze(fields) })
  }

  /**
   * How many rows.
   *
   * @example
   * console.log(table.numRows)
   */
  get numRows(): number {
    return this.#native.numRows
  }

  /**
   * The columns' names and Arrow types, in order.
   *
   * @example
   * for (const field of table.schema.fields) console.log(field.name, field.type)
   */
  get schema(): TableSchema {
    return this.#schema
  }

  #index(name: string): number {
    const at = this.#schema.fields.findIndex((f) => f.name === name)
    if (at < 0) {
      const names = this.#schema.fields.map((f) => f.name).join(', ')
      throw invalid('name', `is not a column of this table (columns: ${names})`)
    }
    return at
  }

  /**
   * One column as a typed array (see {@link ColumnOf}); a fresh copy at each call.
   *
   * @param name - The column's name (one of {@link Table.schema}'s fields).
   * @returns A `BigInt64Array` for `task_id`, a `Float64Array` for the other numbers and the
   *   times (milliseconds since the epoch; `NaN` for null), an array for texts and booleans
   *   (`null` for null).
   * @throws {@link MonapiError}: `INVALID_INPUT` (field `name`) for a name that is not a column.
   * @example
   * const values = table.column('value')
   * let sum = 0
   * for (const v of values) if (!Number.isNaN(v)) sum += v
   */
  column<K extends keyof Row & string>(name: K): ColumnOf<K, Row[K]> {
    const at = this.#index(name)
    const column = invokeSync(() => this.#native.column(at))
    let values: unknown
    switch (column.kind) {
      case 'number':
      case 'timestamp':
        values = column.numbers
        break
      case 'id':
        values = column.ids
        break
      case 'string': {
        const strings = column.strings ?? []
        values = Array.from(column.keys ?? [], (k) => (k < 0 ? null : strings[k]))
        break
      }
      default:
        values = Array.from(column.flags ?? [], (f) => (f === 2 ? null : f === 1))
    }
    return values as ColumnOf<K, Row[K]>
  }

  /**
   * The rows as plain objects keyed by column: numbers, `Date`s for times, `null` where a
   * value is missing (ids as numbers: exact up to 2^53; {@link Table.column} gives them exactly).
   * Consecutive rows of the same instant (the metrics of one record) share one `Date` object:
   * treat the Dates as values and do not mutate them.
   *
   * @returns A new array of one object per row, its keys the columns in order.
   * @throws {@link MonapiError}: `INTERNAL` only (a bug of the native module).
   * @example
   * for (const row of table.toRows()) console.log(row.time?.toISOString(), row.metric, row.value)
   */
  toRows(): Row[] {
    const columns = this.#schema.fields.map((_, at) => invokeSync(() => this.#native.column(at)))
    const build = rowBuilder(
      this.#schema.fields.map((f) => f.name),
      columns.map((c) => c.kind),
    )
    return build(columns, this.numRows) as Row[]
  }

  /**
   * The table in the Arrow IPC stream format, for apache-arrow (`tableFromIPC`),
   * nodejs-polars (`pl.readIPCStream`, which takes a `Buffer`: `Buffer.from(bytes.buffer,
   * bytes.byteOffset, bytes.byteLength)` shares the memory), DuckDB (`@duckdb/duckdb-wasm`'s
   * `connection.insertArrowFromIPCStream(bytes, { name })`) or any other reader of the format.
   *
   * @returns The bytes of one Arrow IPC stream (the schema, then the record batches).
   * @throws {@link MonapiError}: only on a bug: `INVALID_INPUT` (field `table`) when Arrow cannot write
   *   it, `INTERNAL`.
   * @example
   * import { tableFromIPC } from 'apache-arrow'
   * const arrow = tableFromIPC(table.toArrowIPC())
   */
  toArrowIPC(): Uint8Array {
    const bytes = invokeSync(() => this.#native.toIpc())
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  /** What `console.log(table)` shows: the size and the columns. @internal */
  [util.inspect.custom](depth: number, inspectOptions: util.InspectOptionsStylized, inspect = util.inspect): string {
    const columns = this.#schema.fields.map((f) => `${f.name}: ${f.type}`)
    return `Table ${inspect({ numRows: this.numRows, columns }, { ...inspectOptions, depth })}`
  }
}

/** A table over a native one (for the calls of `client.tables`). */
export function table<Row extends object>(handle: native.NativeTable): Table<Row> {
  return make<Row>(handle)
}
