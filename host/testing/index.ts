// driverbox/testing: what a driver's own tests import.
export { runDriver, type RunDriverOptions } from './run-driver.js';
export {
  assertSuccess,
  describeRun,
  assertTableRows,
  assertVariables,
  getTable,
  getTableRows,
  getVariable,
  type ExpectedVariable,
  type MatchOptions,
  type TableRow,
} from './assertions.js';
export type { RunResult, VariableRecord, TableRecord } from '../contract/run-result.js';
