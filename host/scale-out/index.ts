// The scale-out run source (driverbox agent --queue redis://…): BullMQ job schedulers on Redis in
// place of the embedded scheduler. docs/architecture/scale-out.md describes the queues, rules and figures.
export { ScaleOutError, type ScaleOutErrorCode } from '../contract/errors.js';
export {
  checkRedisServer,
  createRedisClient,
  describeRedisUrl,
  parseRedisUrl,
  pingRedis,
  redisOptions,
  type RedisConnectionOptions,
  type RedisRole,
  type RedisServerFacts,
  type RedisTarget,
} from './redis-connection.js';
export {
  offsetOf,
  RECONCILE_QUEUE,
  RUNS_QUEUE,
  schedulerIdOf,
  slotOfJobId,
  type RunJobData,
  type ScheduleEntry,
} from './run-schedules.js';
export { checkLockRule, checkPeriodRule, DEFAULT_LOCK_MARGIN_MS, latestStartMs, tooLateToStart } from './run-rules.js';
export { createReconciler, Reconciler, type ReconcileResult, type ReconcilerOptions, type RefusedEntry } from './reconciler.js';
export {
  createRunWorker,
  RunWorker,
  type RunFinished,
  type RunJobResult,
  type RunSkipped,
  type RunSlot,
  type RunStarted,
  type RunWorkerOptions,
  type RunWorkerStopResult,
  type SlotOutcome,
  type SlotRun,
} from './run-worker.js';
export { type QueueCounts, type QueueFiguresSnapshot, type RunCounters } from './queue-figures.js';
export { FairShare, fairShareKeys, type FairShareOptions, type FairShareView } from './fair-share.js';
