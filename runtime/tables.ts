// D.createTable and its records. Every violation throws inside the driver, as on the
// public collector; the row bound is ours (configurable) so a driver cannot grow a table without end.
import { bounds } from './constants';
import { raise } from './error-text';
import type { ColumnHeader, TableRecord } from './protocol';
import { checkValueType, fitText, stringifyValue } from './variables';
import { append, isArray, mapDelete, mapGet, mapHas, mapSet } from './intrinsics';
import { checkMetadata, copyMetadata, metadataSize, type Metadata } from './metadata';
import type { Warn } from './warnings';

type RowMetadata = Array<Metadata | null>;

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
  // Cell metadata of the rows addMetrics made, by record id (only rows with some), and its size.
  readonly #metadata = new Map<string, RowMetadata>();
  #metadataChars = 0;
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
      this.#setMetadata(key, null);
      return;
    }
    this.#add(key, values as unknown[]);
  }

  /**
   * A row from cells { value, metadata? } (newer collector sandboxes): insertRecord's rules for
   * the id, the cell count and the bound, D.createMetric's for each cell's metadata. Everything is
   * checked before the row is added, so a throw leaves the table as it was.
   */
  addMetrics(id: unknown, cells: unknown): void {
    const key = this.#checkRecord(id, cells, 'cells');
    if (mapHas(this.#rows, key)) throw raise(new RangeError(`Duplicate record id "${key}" in table "${this.label}": each addMetrics or insertRecord needs a new id`));
    const list = cells as unknown[];
    const values: unknown[] = [];
    let metadata: RowMetadata | null = null;
    let chars = 0;
    for (let i = 0; i < list.length; i++) {
      const cell = list[i];
      const where = `table "${this.label}", record "${key}", cell ${i} (column "${this.columnHeaders[i]!.label}")`;
      if (typeof cell !== 'object' || cell === null || isArray(cell)) {
        const got = cell === null ? 'null' : isArray(cell) ? 'an array' : typeof cell;
        throw raise(new TypeError(`${where}: a cell must be an object { value, metadata? } (got ${got})`));
      }
      const c = cell as Record<string, unknown>;
      append(values, c.value);
      const meta = checkMetadata(c.metadata, where);
      if (meta) {
        if (metadata === null) {
          metadata = [];
          for (let k = 0; k < list.length; k++) append(metadata, null);
        }
        metadata[i] = meta;
        chars += metadataSize(meta);
      }
    }
    if (this.#metadataChars + chars > bounds.tableMetadataChars) {
      throw raise(new RangeError(`table "${this.label}", record "${key}": the cells' metadata (${chars} characters) would take the table past its ${bounds.tableMetadataChars} characters of metadata`));
    }
    this.#add(key, values);
    this.#setMetadata(key, metadata);
  }

  getResult(): TableRecord {
    // Indexed loops and append(): built from the table's own data whatever the driver replaced.
    const columnHeaders: ColumnHeader[] = [];
    for (let i = 0; i < this.columnHeaders.length; i++) {
      const h = this.columnHeaders[i]!;
      append(columnHeaders, { label: h.label, unit: h.unit, valueType: h.valueType });
    }
    const rows: Array<Array<string | null>> = [];
    const cellMetadata: Array<RowMetadata | null> = [];
    for (let r = 0; r < this.#order.length; r++) {
      const id = this.#order[r]!;
      const values = mapGet(this.#rows, id)!;
      const row: Array<string | null> = [id];
      for (let c = 0; c < values.length; c++) append(row, values[c]!);
      append(rows, row);
      const meta = mapGet(this.#metadata, id);
      let copy: RowMetadata | null = null;
      if (meta) {
        copy = [];
        for (let c = 0; c < meta.length; c++) append(copy, meta[c] ? copyMetadata(meta[c]!) : null);
      }
      append(cellMetadata, copy);
    }
    const result: TableRecord = { label: this.label, columnHeaders, rows };
    // Only tables with metadata carry the field: the others keep the shape they always had.
    if (this.#metadataChars > 0) result.cellMetadata = cellMetadata;
    return result;
  }

  #setMetadata(key: string, metadata: RowMetadata | null): void {
    const old = mapGet(this.#metadata, key);
    if (old) {
      for (let c = 0; c < old.length; c++) if (old[c]) this.#metadataChars -= metadataSize(old[c]!);
      mapDelete(this.#metadata, key);
    }
    if (!metadata) return;
    mapSet(this.#metadata, key, metadata);
    for (let c = 0; c < metadata.length; c++) if (metadata[c]) this.#metadataChars += metadataSize(metadata[c]!);
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

  #checkRecord(id: unknown, values: unknown, what = 'values'): string {
    if (typeof id !== 'string' || id.length < 1 || id.length > bounds.recordId) {
      throw raise(new RangeError(`Invalid record id ${JSON.stringify(id)} in table "${this.label}": a string of 1 to ${bounds.recordId} characters is required`));
    }
    if (!isArray(values) || values.length !== this.columnHeaders.length) {
      const got = Array.isArray(values) ? values.length : typeof values;
      throw raise(new RangeError(`Record "${id}" in table "${this.label}" has ${got} ${what}; the table has ${this.columnHeaders.length} columns`));
    }
    return id;
  }
}
