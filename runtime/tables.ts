// D.createTable and its records. Every violation throws inside the driver, as on the
// public collector; the row bound is ours (configurable) so a driver cannot grow a table without end.
import { bounds } from './constants';
import { raise } from './error-text';
import type { ColumnHeader, TableRecord } from './protocol';
import { checkValueType, fitText, stringifyValue } from './variables';
import { append, isArray, mapGet, mapHas, mapSet } from './intrinsics';
import type { Warn } from './warnings';

function checkLabel(label: unknown, max: number, what: string): string {
  if (typeof label !== 'string' || label.length < 1 || label.length > max) {
    const shown = typeof label === 'string' ? `"${label}" (${label.length} characters)` : String(label);
    throw raise(new RangeError(`Invalid ${what}: ${shown}; a string of 1 to ${max} characters is required`));
  }
  return label;
}

function checkHeaders(headers: unknown): ColumnHeader[] {
  if (!Array.isArray(headers) || headers.length === 0) {
    throw raise(new TypeError('Column headers must be defined: pass an array of { label, unit?, valueType? }'));
  }
  return headers.map((header, index) => {
    const h = (header ?? {}) as Record<string, unknown>;
    const label = checkLabel(h.label, bounds.columnLabel, `column label at position ${index}`);
    if (label === 'Id') throw raise(new RangeError('Invalid column label "Id": it is reserved for the record id column'));
    let unit: string | null = null;
    if (h.unit !== undefined && h.unit !== null && h.unit !== '') {
      unit = checkLabel(h.unit, bounds.unit, `unit of column "${label}"`);
    }
    return { label, unit, valueType: checkValueType(h.valueType, `column "${label}"`) };
  });
}

export class Table {
  readonly isTable = true;
  readonly type = 'table';
  readonly label: string;
  readonly columnHeaders: ColumnHeader[];
  // Rows by record id, and the ids in insertion order: no Map iteration, which a driver may replace.
  readonly #rows = new Map<string, Array<string | null>>();
  readonly #order: string[] = [];
  #size = 0;
  readonly #maxRows: number;
  readonly #warn: Warn;

  constructor(label: unknown, headers: unknown, maxRows: number, warn: Warn) {
    this.label = checkLabel(label, bounds.tableLabel, 'table label');
    this.columnHeaders = checkHeaders(headers);
    this.#maxRows = maxRows;
    this.#warn = warn;
  }

  insertRecord(id: unknown, values: unknown): void {
    const key = this.#checkRecord(id, values);
    if (mapHas(this.#rows, key)) throw raise(new RangeError(`Duplicate record id "${key}" in table "${this.label}": use upsertRecord to replace a row`));
    this.#add(key, values as unknown[]);
  }

  upsertRecord(id: unknown, values: unknown): void {
    const key = this.#checkRecord(id, values);
    if (mapHas(this.#rows, key)) {
      this.#warn(`table "${this.label}": record "${key}" exists and was replaced`);
      mapSet(this.#rows, key, this.#cells(key, values as unknown[]));
      return;
    }
    this.#add(key, values as unknown[]);
  }

  getResult(): TableRecord {
    // Indexed loops and append(): built from the table's own data whatever the driver replaced.
    const columnHeaders: ColumnHeader[] = [];
    for (let i = 0; i < this.columnHeaders.length; i++) {
      const h = this.columnHeaders[i]!;
      append(columnHeaders, { label: h.label, unit: h.unit, valueType: h.valueType });
    }
    const rows: Array<Array<string | null>> = [];
    for (let r = 0; r < this.#order.length; r++) {
      const id = this.#order[r]!;
      const values = mapGet(this.#rows, id)!;
      const row: Array<string | null> = [id];
      for (let c = 0; c < values.length; c++) append(row, values[c]!);
      append(rows, row);
    }
    return { label: this.label, columnHeaders, rows };
  }

  #add(key: string, values: unknown[]): void {
    if (this.#size >= this.#maxRows) {
      throw raise(new RangeError(`Table "${this.label}" is full: at most ${this.#maxRows} records per table`));
    }
    mapSet(this.#rows, key, this.#cells(key, values));
    append(this.#order, key);
    this.#size++;
  }

  /** A row's values as text, each cut to the bound of a variable's value, as variables are. */
  #cells(key: string, values: unknown[]): Array<string | null> {
    const cells: Array<string | null> = [];
    for (let i = 0; i < values.length; i++) {
      const text = stringifyValue(values[i]);
      const where = `value of column "${this.columnHeaders[i]!.label}" of record "${key}" in table "${this.label}"`;
      append(cells, text === null ? null : fitText(text, bounds.value, where, this.#warn));
    }
    return cells;
  }

  #checkRecord(id: unknown, values: unknown): string {
    if (typeof id !== 'string' || id.length < 1 || id.length > bounds.recordId) {
      throw raise(new RangeError(`Invalid record id ${JSON.stringify(id)} in table "${this.label}": a string of 1 to ${bounds.recordId} characters is required`));
    }
    if (!isArray(values) || values.length !== this.columnHeaders.length) {
      const got = Array.isArray(values) ? values.length : typeof values;
      throw raise(new RangeError(`Record "${id}" in table "${this.label}" has ${got} values; the table has ${this.columnHeaders.length} columns`));
    }
    return id;
  }
}
