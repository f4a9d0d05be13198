// D.q: the q promise library, 1.x, as the runtime loads it. Values a driver resolves are
// only known at run time, so a deferred or promise made without a type is `any`-valued;
// rejection reasons are `any` as in TypeScript's own Promise types.

declare namespace Driverbox {
  /** A value or a promise for it. */
  type QValue<T> = T | PromiseLike<T>;

  /** Node-style callback `(error, value)`. */
  type NodeCallback<T> = (error: any, value?: T) => void;

  /** What `inspect()` and `allSettled` report about a promise. */
  type QState<T> =
    | { state: 'fulfilled'; value: T }
    | { state: 'rejected'; reason: any }
    | { state: 'pending' };

  /**
   * A q promise: a thenable with q's helpers. It has everything a native `Promise` has (`then`, `catch`,
   * `finally` and `Symbol.toStringTag`, which driverbox sets to `'Promise'`), so a helper documented
   * `@returns {Promise}` may return one.
   */
  interface QPromise<T> extends Promise<T> {
    /** Runs `onFulfilled` with the value or `onRejected` with the reason; a promise for what it returns. */
    then<R1 = T, R2 = never>(
      onFulfilled?: ((value: T) => QValue<R1>) | null,
      onRejected?: ((reason: any) => QValue<R2>) | null,
      onProgress?: ((progress: any) => unknown) | null,
    ): QPromise<R1 | R2>;
    /** Handles a rejection. */
    catch<R = never>(onRejected: (reason: any) => QValue<R>): QPromise<T | R>;
    /** Same as `catch`. */
    fail<R = never>(onRejected: (reason: any) => QValue<R>): QPromise<T | R>;
    /** Runs `callback` however the promise settles, then passes the outcome on. */
    finally(callback: () => unknown): QPromise<T>;
    /** Same as `finally`. */
    fin(callback: () => unknown): QPromise<T>;
    /** Like `then`, but ends the chain: a rejection left unhandled is thrown. */
    done(onFulfilled?: ((value: T) => unknown) | null, onRejected?: ((reason: any) => unknown) | null, onProgress?: ((progress: any) => unknown) | null): void;
    /** Like `then` for an array value: its items become the arguments. */
    spread<R>(onFulfilled: (...values: T extends readonly unknown[] ? T : [T]) => QValue<R>, onRejected?: ((reason: any) => QValue<R>) | null): QPromise<R>;
    /** Runs `callback` with the value, then passes the value on unchanged. */
    tap(callback: (value: T) => unknown): QPromise<T>;
    /** Registers a progress handler. */
    progress(onProgress: (progress: any) => unknown): QPromise<T>;
    /** Fulfils with `value` once this fulfils. */
    thenResolve<U>(value: U): QPromise<U>;
    /** Rejects with `reason` once this fulfils. */
    thenReject(reason?: any): QPromise<never>;
    /** Rejects with an Error(`message`) (or `message` itself when it is an Error) unless settled within `ms`. */
    timeout(ms: number, message?: string | Error): QPromise<T>;
    /** Fulfils with the same value `ms` later. */
    delay(ms: number): QPromise<T>;
    /** Fulfils when both this and `other` fulfil with the same value. */
    join<U>(other: QValue<U>): QPromise<T & U>;
    /** For an array of promises: the first to settle. */
    race(): QPromise<T extends ReadonlyArray<infer U> ? Awaited<U> : never>;
    /** For an array of promises: an array of their values. */
    all(): QPromise<T extends ReadonlyArray<infer U> ? Array<Awaited<U>> : never>;
    /** For an array of promises: the first value to be fulfilled. */
    any(): QPromise<T extends ReadonlyArray<infer U> ? Awaited<U> : never>;
    /** For an array of promises: the state of each once all have settled. */
    allSettled(): QPromise<T extends ReadonlyArray<infer U> ? Array<QState<Awaited<U>>> : never>;
    /** @deprecated use `allSettled`. */
    allResolved(): QPromise<T extends ReadonlyArray<infer U> ? Array<QPromise<Awaited<U>>> : never>;
    /** The own enumerable keys of the value. */
    keys(): QPromise<string[]>;
    /** The value's property `name`. */
    get<K extends keyof T>(name: K): QPromise<T[K]>;
    /** Sets the value's property `name`. */
    set<K extends keyof T>(name: K, value: T[K]): QPromise<void>;
    /** Deletes the value's property `name`. */
    delete(name: keyof T): QPromise<void>;
    /** Same as `delete`. */
    del(name: keyof T): QPromise<void>;
    /** Calls the value's method `name` with `args`. */
    post(name: keyof T, args: readonly unknown[]): QPromise<any>;
    /** Same as `post`. */
    mapply(name: keyof T, args: readonly unknown[]): QPromise<any>;
    /** Calls the value's method `name` with the remaining arguments. */
    invoke(name: keyof T, ...args: unknown[]): QPromise<any>;
    /** Same as `invoke`. */
    mcall(name: keyof T, ...args: unknown[]): QPromise<any>;
    /** Same as `invoke`. */
    send(name: keyof T, ...args: unknown[]): QPromise<any>;
    /** Calls the value (a function) with `args`. */
    fapply(args: readonly unknown[]): QPromise<T extends (...a: any[]) => infer R ? Awaited<R> : never>;
    /** Calls the value (a function) with the arguments given. */
    fcall(...args: unknown[]): QPromise<T extends (...a: any[]) => infer R ? Awaited<R> : never>;
    /** The value (a function) bound to the arguments given. */
    fbind(...args: unknown[]): (...rest: unknown[]) => QPromise<T extends (...a: any[]) => infer R ? Awaited<R> : never>;
    /** Calls the value (a Node-style function) with `args` plus a callback. */
    nfapply<R = any>(args: readonly unknown[]): QPromise<R>;
    /** Calls the value (a Node-style function) with the arguments given plus a callback. */
    nfcall<R = any>(...args: unknown[]): QPromise<R>;
    /** The value (a Node-style function) turned into one returning a promise. */
    denodeify<R = any>(...args: unknown[]): (...rest: unknown[]) => QPromise<R>;
    /** Same as `denodeify`. */
    nfbind<R = any>(...args: unknown[]): (...rest: unknown[]) => QPromise<R>;
    /** Like `denodeify`, with `this` bound to `thisArg`. */
    nbind<R = any>(thisArg: unknown, ...args: unknown[]): (...rest: unknown[]) => QPromise<R>;
    /** Calls the value's Node-style method `name` with `args` plus a callback. */
    npost<R = any>(name: keyof T, args: readonly unknown[]): QPromise<R>;
    /** Same as `npost`. */
    nmapply<R = any>(name: keyof T, args: readonly unknown[]): QPromise<R>;
    /** Calls the value's Node-style method `name` with the arguments given plus a callback. */
    ninvoke<R = any>(name: keyof T, ...args: unknown[]): QPromise<R>;
    /** Same as `ninvoke`. */
    nmcall<R = any>(name: keyof T, ...args: unknown[]): QPromise<R>;
    /** Same as `ninvoke`. */
    nsend<R = any>(name: keyof T, ...args: unknown[]): QPromise<R>;
    /** Calls `callback(error, value)` when settled (when given); returns this promise. */
    nodeify(callback?: NodeCallback<T> | null): QPromise<T>;
    /** Sends a raw message to the promise (q internals). */
    dispatch(op: string, args: readonly unknown[]): QPromise<any>;
    /** q internals: delivers a message to the promise. */
    promiseDispatch(resolve: (value: unknown) => void, op: string, args: readonly unknown[]): void;
    /** True while neither fulfilled nor rejected. */
    isPending(): boolean;
    /** True once fulfilled. */
    isFulfilled(): boolean;
    /** True once rejected. */
    isRejected(): boolean;
    /** The promise's state now. */
    inspect(): QState<T>;
    /** The value when fulfilled, else the promise itself. */
    valueOf(): T | QPromise<T>;
    /** @deprecated marks the promise as passed by copy (q-connection). */
    passByCopy(): this;
    /** `'[object Promise]'`. */
    toString(): string;
    /** `'Promise'`, as for a native promise (driverbox sets it on q's promises). */
    readonly [Symbol.toStringTag]: string;
  }

  /** A promise with its resolving functions, made by `D.q.defer()`. */
  interface QDeferred<T> {
    /** The promise these functions settle. */
    promise: QPromise<T>;
    /** Fulfils the promise (or follows another promise). */
    resolve(value?: QValue<T>): void;
    /** Fulfils the promise with `value`. */
    fulfill(value: T): void;
    /** Rejects the promise. */
    reject(reason?: any): void;
    /** Sends progress to the promise's progress handlers. */
    notify(progress?: any): void;
    /** A Node-style `(error, value)` callback that settles the promise. */
    makeNodeResolver(): NodeCallback<T>;
  }

  /** The executor of `D.q.promise` / `D.q.Promise`. */
  type QResolver<T> = (resolve: (value?: QValue<T>) => void, reject: (reason?: any) => void, notify: (progress?: any) => void) => void;

  /** `D.q.Promise`: makes a promise from an executor; also has `all`, `race`, `resolve`, `reject`. */
  interface QPromiseConstructor {
    /** A promise settled by `resolver`. */
    <T = any>(resolver: QResolver<T>): QPromise<T>;
    /** Same as `D.q.all`. */
    all<T extends readonly unknown[] | []>(values: T): QPromise<{ -readonly [K in keyof T]: Awaited<T[K]> }>;
    /** Same as `D.q.race`. */
    race<T>(values: ReadonlyArray<QValue<T>>): QPromise<T>;
    /** Same as `D.q.resolve`. */
    resolve<T>(value: QValue<T>): QPromise<T>;
    /** Same as `D.q.reject`. */
    reject(reason?: any): QPromise<never>;
  }

  /** `D.q.nextTick`: runs a function soon, after the current job. */
  interface QNextTick {
    /** Runs `task` after the current job. */
    (task: () => void): void;
    /** Runs `task` after the tasks already queued. */
    runAfter(task: () => void): void;
  }

  /** `D.q`: makes promises and works with them; most helpers also accept plain values. */
  interface QStatic {
    /** A promise for `value` (a fulfilled one unless `value` is a promise). */
    <T>(value: QValue<T>): QPromise<T>;
    /** A promise fulfilled with undefined. */
    (): QPromise<void>;
    /** Same as `D.q(value)`. */
    resolve<T>(value: QValue<T>): QPromise<T>;
    resolve(): QPromise<void>;
    /** A fulfilled promise for `value`. */
    fulfill<T>(value: T): QPromise<T>;
    /** A promise rejected with `reason`. */
    reject<T = never>(reason?: any): QPromise<T>;
    /** A new deferred: a promise and the functions that settle it. */
    defer<T = any>(): QDeferred<T>;
    /** A promise settled by `resolver(resolve, reject, notify)`. */
    promise<T = any>(resolver: QResolver<T>): QPromise<T>;
    /** Same as `D.q.promise`, with `all`, `race`, `resolve`, `reject`. */
    Promise: QPromiseConstructor;
    /** q internals: a promise from a message descriptor. */
    makePromise(descriptor: { [op: string]: (...args: any[]) => unknown }, fallback?: (op: string, args: unknown[]) => unknown, inspect?: () => QState<unknown>): QPromise<any>;
    /** Runs a function after the current job. */
    nextTick: QNextTick;
    /** Set to true to get long stack traces (slow). */
    longStackSupport: boolean;
    /** Fulfils when all fulfil: the values in order; rejects with the first reason. */
    all<T extends readonly unknown[] | []>(values: T): QPromise<{ -readonly [K in keyof T]: Awaited<T[K]> }>;
    all<T>(values: QValue<ReadonlyArray<QValue<T>>>): QPromise<T[]>;
    /** The state of each, once all have settled. */
    allSettled<T extends readonly unknown[] | []>(values: T): QPromise<{ -readonly [K in keyof T]: QState<Awaited<T[K]>> }>;
    /** @deprecated use `allSettled`. */
    allResolved<T>(values: ReadonlyArray<QValue<T>>): QPromise<Array<QPromise<T>>>;
    /** The first value fulfilled; rejects when all reject. */
    any<T>(values: ReadonlyArray<QValue<T>>): QPromise<T>;
    /** The first to settle. */
    race<T>(values: ReadonlyArray<QValue<T>>): QPromise<T>;
    /** `onFulfilled` / `onRejected` on `value` (a promise or a plain value). */
    when<T, R1 = T, R2 = never>(value: QValue<T>, onFulfilled?: ((value: T) => QValue<R1>) | null, onRejected?: ((reason: any) => QValue<R2>) | null, onProgress?: ((progress: any) => unknown) | null): QPromise<R1 | R2>;
    /** `D.q(value).spread(onFulfilled, onRejected)`. */
    spread<T extends readonly unknown[], R>(value: QValue<T>, onFulfilled: (...values: T) => QValue<R>, onRejected?: ((reason: any) => QValue<R>) | null): QPromise<R>;
    /** `D.q(value).tap(callback)`. */
    tap<T>(value: QValue<T>, callback: (value: T) => unknown): QPromise<T>;
    /** `D.q(value).join(other)`. */
    join<T, U>(value: QValue<T>, other: QValue<U>): QPromise<T & U>;
    /** `D.q(value).thenResolve(result)`. */
    thenResolve<U>(value: QValue<unknown>, result: U): QPromise<U>;
    /** `D.q(value).thenReject(reason)`. */
    thenReject(value: QValue<unknown>, reason?: any): QPromise<never>;
    /** `D.q(value).catch(onRejected)`. */
    catch<T, R = never>(value: QValue<T>, onRejected: (reason: any) => QValue<R>): QPromise<T | R>;
    /** Same as `D.q.catch`. */
    fail<T, R = never>(value: QValue<T>, onRejected: (reason: any) => QValue<R>): QPromise<T | R>;
    /** `D.q(value).finally(callback)`. */
    finally<T>(value: QValue<T>, callback: () => unknown): QPromise<T>;
    /** Same as `D.q.finally`. */
    fin<T>(value: QValue<T>, callback: () => unknown): QPromise<T>;
    /** `D.q(value).progress(onProgress)`. */
    progress<T>(value: QValue<T>, onProgress: (progress: any) => unknown): QPromise<T>;
    /** `D.q(value).done(...)`: an unhandled rejection is thrown. */
    done<T>(value: QValue<T>, onFulfilled?: ((value: T) => unknown) | null, onRejected?: ((reason: any) => unknown) | null, onProgress?: ((progress: any) => unknown) | null): void;
    /** `D.q(value).timeout(ms, message)`. */
    timeout<T>(value: QValue<T>, ms: number, message?: string | Error): QPromise<T>;
    /** A promise fulfilled with undefined after `ms`, or with `value` after `ms`. */
    delay(ms: number): QPromise<void>;
    delay<T>(value: QValue<T>, ms: number): QPromise<T>;
    /** The value of an already fulfilled promise, else the argument itself. */
    nearer<T>(value: QValue<T>): T | QPromise<T>;
    /** True for a q promise. */
    isPromise(value: unknown): value is QPromise<any>;
    /** True for anything with a `then` method. */
    isPromiseAlike(value: unknown): value is PromiseLike<any>;
    /** True for a pending promise. */
    isPending(value: unknown): boolean;
    /** True for a fulfilled promise or a plain value. */
    isFulfilled(value: unknown): boolean;
    /** True for a rejected promise. */
    isRejected(value: unknown): boolean;
    /** Forgets the rejections not handled so far. */
    resetUnhandledRejections(): void;
    /** The reasons of rejections not handled so far, as text. */
    getUnhandledReasons(): string[];
    /** Stops tracking rejections that are not handled. */
    stopUnhandledRejectionTracking(): void;
    /** @deprecated q-connection: marks `value` as passed by copy. */
    passByCopy<T>(value: T): T;
    /** q-connection: `value` made safe to pass by reference. */
    master<T>(value: T): T;
    /** A function running a generator as a coroutine: each `yield`ed promise is awaited. */
    async<A extends unknown[], R>(generator: (...args: A) => Generator<unknown, R, any>): (...args: A) => QPromise<R>;
    /** Runs a generator as a coroutine; an error it throws is thrown. */
    spawn(generator: () => Generator<unknown, unknown, any>): void;
    /** @deprecated ends a q.async generator with `value` (use `return`). */
    return(value: unknown): never;
    /** `fn` made to accept promises for its arguments and return a promise. */
    promised<A extends unknown[], R>(fn: (...args: A) => R): (...args: { [K in keyof A]: QValue<A[K]> }) => QPromise<Awaited<R>>;
    /** Sends a raw message to `value` (q internals). */
    dispatch(value: unknown, op: string, args: readonly unknown[]): QPromise<any>;
    /** A promise for `value[name]`. */
    get<T, K extends keyof T>(value: QValue<T>, name: K): QPromise<T[K]>;
    /** Sets `value[name]`. */
    set<T, K extends keyof T>(value: QValue<T>, name: K, propertyValue: T[K]): QPromise<void>;
    /** Deletes `value[name]`. */
    delete<T>(value: QValue<T>, name: keyof T): QPromise<void>;
    /** Same as `D.q.delete`. */
    del<T>(value: QValue<T>, name: keyof T): QPromise<void>;
    /** Calls `value[name](...args)`. */
    post<T>(value: QValue<T>, name: keyof T, args: readonly unknown[]): QPromise<any>;
    /** Same as `D.q.post`. */
    mapply<T>(value: QValue<T>, name: keyof T, args: readonly unknown[]): QPromise<any>;
    /** Calls `value[name]` with the remaining arguments. */
    invoke<T>(value: QValue<T>, name: keyof T, ...args: unknown[]): QPromise<any>;
    /** Same as `D.q.invoke`. */
    mcall<T>(value: QValue<T>, name: keyof T, ...args: unknown[]): QPromise<any>;
    /** Same as `D.q.invoke`. */
    send<T>(value: QValue<T>, name: keyof T, ...args: unknown[]): QPromise<any>;
    /** Calls `fn(...args)`; a throw becomes a rejection. */
    fapply<A extends unknown[], R>(fn: (...args: A) => R, args: A): QPromise<Awaited<R>>;
    /** Calls `fn` with the remaining arguments; a throw becomes a rejection. */
    fcall<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): QPromise<Awaited<R>>;
    /** Same as `D.q.fcall`. */
    try<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): QPromise<Awaited<R>>;
    /** `fn` bound to the remaining arguments, returning a promise. */
    fbind<R>(fn: (...args: any[]) => R, ...args: unknown[]): (...rest: unknown[]) => QPromise<Awaited<R>>;
    /** A promise for the own enumerable keys of `value`. */
    keys(value: QValue<unknown>): QPromise<string[]>;
    /** Calls a Node-style `fn` with `args` plus a callback. */
    nfapply<R = any>(fn: (...args: any[]) => unknown, args: readonly unknown[]): QPromise<R>;
    /** Calls a Node-style `fn` with the remaining arguments plus a callback. */
    nfcall<R = any>(fn: (...args: any[]) => unknown, ...args: unknown[]): QPromise<R>;
    /** A Node-style `fn` turned into one returning a promise (arguments may be bound). */
    denodeify<R = any>(fn: (...args: any[]) => unknown, ...args: unknown[]): (...rest: unknown[]) => QPromise<R>;
    /** Same as `D.q.denodeify`. */
    nfbind<R = any>(fn: (...args: any[]) => unknown, ...args: unknown[]): (...rest: unknown[]) => QPromise<R>;
    /** Like `denodeify`, with `this` bound to `thisArg`. */
    nbind<R = any>(fn: (...args: any[]) => unknown, thisArg: unknown, ...args: unknown[]): (...rest: unknown[]) => QPromise<R>;
    /** Calls the Node-style method `value[name]` with `args` plus a callback. */
    npost<T, R = any>(value: QValue<T>, name: keyof T, args: readonly unknown[]): QPromise<R>;
    /** Same as `D.q.npost`. */
    nmapply<T, R = any>(value: QValue<T>, name: keyof T, args: readonly unknown[]): QPromise<R>;
    /** Calls the Node-style method `value[name]` with the remaining arguments plus a callback. */
    ninvoke<T, R = any>(value: QValue<T>, name: keyof T, ...args: unknown[]): QPromise<R>;
    /** Same as `D.q.ninvoke`. */
    nmcall<T, R = any>(value: QValue<T>, name: keyof T, ...args: unknown[]): QPromise<R>;
    /** Same as `D.q.ninvoke`. */
    nsend<T, R = any>(value: QValue<T>, name: keyof T, ...args: unknown[]): QPromise<R>;
    /** `D.q(value).nodeify(callback)`. */
    nodeify<T>(value: QValue<T>, callback?: NodeCallback<T> | null): QPromise<T>;
    /** Throws in a driver: q is not a browser global here. */
    noConflict(): never;
  }
}

/**
 * A helper documented `@returns {Promise}` hands its callers the global `Promise` type, though what it
 * returns is a D.q promise (the only promises drivers in the wild make). q's chain methods are declared
 * here as optional, so such callers may go on with `.fail`, `.fin`, `.spread` or `.done()`; with
 * `strictNullChecks` on, the checker asks to make sure first (a native promise from `async` has none).
 */
interface Promise<T> {
  /** D.q promises only: same as `catch`. */
  fail?<R = never>(onRejected: (reason: any) => R | PromiseLike<R>): Driverbox.QPromise<T | R>;
  /** D.q promises only: same as `finally`. */
  fin?(callback: () => unknown): Driverbox.QPromise<T>;
  /** D.q promises only: like `then`, but ends the chain (an unhandled rejection is thrown). */
  done?(onFulfilled?: ((value: T) => unknown) | null, onRejected?: ((reason: any) => unknown) | null, onProgress?: ((progress: any) => unknown) | null): void;
  /** D.q promises only: like `then` for an array value, its items as the arguments. */
  spread?<R>(onFulfilled: (...values: any[]) => R | PromiseLike<R>, onRejected?: ((reason: any) => R | PromiseLike<R>) | null): Driverbox.QPromise<R>;
  /** D.q promises only: for an array of promises, an array of their values. */
  all?(): Driverbox.QPromise<any[]>;
  /** D.q promises only: for an array of promises, the state of each once all have settled. */
  allSettled?(): Driverbox.QPromise<Array<Driverbox.QState<any>>>;
  /** D.q promises only: runs `callback` with the value, then passes the value on. */
  tap?(callback: (value: T) => unknown): Driverbox.QPromise<T>;
  /** D.q promises only: rejects unless settled within `ms`. */
  timeout?(ms: number, message?: string | Error): Driverbox.QPromise<T>;
  /** D.q promises only: fulfils with the same value `ms` later. */
  delay?(ms: number): Driverbox.QPromise<T>;
  /** D.q promises only: calls `callback(error, value)` when settled. */
  nodeify?(callback?: Driverbox.NodeCallback<T> | null): Driverbox.QPromise<T>;
  /** D.q promises only: fulfils with `value` once this fulfils. */
  thenResolve?<U>(value: U): Driverbox.QPromise<U>;
  /** D.q promises only: rejects with `reason` once this fulfils. */
  thenReject?(reason?: any): Driverbox.QPromise<never>;
}
