// D._: lodash 4.x as the runtime loads it (the full build). Signatures follow lodash's
// documented parameters; results read through a property path (`_.get(o, 'a.b')`, `_.map(list,
// 'a.b')`) are `any`, since only the data decides them. Iteratee shorthands work everywhere an
// iteratee is taken: a property name, a `[name, value]` pair or a partial object to match.

declare namespace Driverbox {
  /** A property key. */
  type PropertyName = string | number | symbol;
  /** A key, a dotted path (`'a.b[0].c'`) or an array of keys. */
  type PropertyPath = PropertyName | readonly PropertyName[];
  /** One value or an array of them. */
  type Many<T> = T | readonly T[];
  /** An array or anything array-like (a string, `arguments`, a selection). */
  type List<T> = ArrayLike<T>;
  /** A plain object used as a dictionary. */
  type Dictionary<T> = { [key: string]: T };
  /** The iteratee shorthands: `'name'` (property), `['name', value]` (matchesProperty), `{ name: value }` (matches). */
  type IterateeShorthand<T> = PropertyName | [PropertyName, unknown] | Partial<T>;
  /** An iteratee over a list. */
  type ListIterator<T, R> = (value: T, index: number, list: List<T>) => R;
  /** An iteratee over an object's own properties. */
  type ObjectIterator<O, R> = (value: O[keyof O], key: string, object: O) => R;
  /** A list iteratee or a shorthand. */
  type ListIteratee<T, R = unknown> = ListIterator<T, R> | IterateeShorthand<T>;
  /** An object iteratee or a shorthand. */
  type ObjectIteratee<O, R = unknown> = ObjectIterator<O, R> | IterateeShorthand<O[keyof O]>;
  /** A function of one value, or a shorthand. */
  type ValueIteratee<T, R = unknown> = ((value: T) => R) | IterateeShorthand<T>;
  /** A comparator of two values. */
  type Comparator<T> = (a: T, b: T) => boolean;
  /** Something with a `length`, or an object (for `size`, `isEmpty`, …). */
  type Sized = List<unknown> | object | string | null | undefined;
  /** The values of a list or of an object's properties. */
  type ValueOf<C> = C extends List<infer T> ? T : C extends object ? C[keyof C] : never;
  /** Any function. */
  type AnyFunction = (...args: any[]) => any;

  /** A function returned by `debounce` / `throttle`. */
  interface DebouncedFunction<F extends AnyFunction> {
    /** Calls `F` later (per the debounce / throttle rules); returns the last result. */
    (...args: Parameters<F>): ReturnType<F> | undefined;
    /** Drops a pending call. */
    cancel(): void;
    /** Makes a pending call now; returns its result. */
    flush(): ReturnType<F> | undefined;
  }

  /** The cache of `memoize` (a Map-like by default). */
  interface MemoizeCache {
    /** Removes a key. */
    delete(key: unknown): boolean;
    /** The cached value of a key. */
    get(key: unknown): any;
    /** True when a key is cached. */
    has(key: unknown): boolean;
    /** Caches a value. */
    set(key: unknown, value: unknown): this;
    /** Removes every key (lodash's own cache only). */
    clear?(): void;
  }

  /** `_.memoize`: also exposes the cache class it uses (`_.memoize.Cache`, replaceable). */
  interface Memoize {
    /** `fn` with results cached by the first argument (or by `resolver(...args)`). */
    <F extends AnyFunction>(fn: F, resolver?: (...args: Parameters<F>) => unknown): F & { cache: MemoizeCache };
    /** The cache class used for new memoized functions. */
    Cache: new () => MemoizeCache;
  }

  /** A function taking lodash's placeholder (`_`) for arguments left open. */
  interface WithPlaceholder {
    /** The placeholder value: `_` itself. */
    placeholder: Lodash;
  }

  /** `_.templateSettings`: the delimiters `_.template` uses. */
  interface TemplateSettings {
    /** `<%- … %>`: HTML-escaped output. */
    escape: RegExp;
    /** `<% … %>`: code. */
    evaluate: RegExp;
    /** `<%= … %>`: output. */
    interpolate: RegExp;
    /** The data object's name inside templates (empty: `with`). */
    variable: string;
    /** Values visible inside templates (`_` by default). */
    imports: Dictionary<unknown>;
  }

  /** Options of `_.template`. */
  interface TemplateOptions {
    /** Escape delimiter. */
    escape?: RegExp;
    /** Evaluate delimiter. */
    evaluate?: RegExp;
    /** Interpolate delimiter. */
    interpolate?: RegExp;
    /** Values visible inside the template. */
    imports?: Dictionary<unknown>;
    /** Source URL of the compiled function. */
    sourceURL?: string;
    /** Name of the data object inside the template. */
    variable?: string;
  }

  /** A compiled template. */
  interface TemplateFunction {
    /** Renders the template with `data`. */
    (data?: object): string;
    /** The compiled function's source. */
    source: string;
  }

  /** Options of `_.truncate`. */
  interface TruncateOptions {
    /** Maximum length. @defaultValue 30 */
    length?: number;
    /** Text marking the cut. @defaultValue `'...'` */
    omission?: string;
    /** Where to cut back to (a string or RegExp). */
    separator?: string | RegExp;
  }

  /** Options of `_.debounce`. */
  interface DebounceOptions {
    /** Call on the leading edge. @defaultValue `false` */
    leading?: boolean;
    /** Longest wait before a call is forced. */
    maxWait?: number;
    /** Call on the trailing edge. @defaultValue `true` */
    trailing?: boolean;
  }

  /** Options of `_.throttle`. */
  interface ThrottleOptions {
    /** Call on the leading edge. @defaultValue `true` */
    leading?: boolean;
    /** Call on the trailing edge. @defaultValue `true` */
    trailing?: boolean;
  }

  /**
   * A lodash chain: `_(value)` or `_.chain(value)`. Every lodash function is a method here, without its first
   * argument; `value()` ends the chain. The chain does not track the value's type through each step.
   */
  type LodashWrapper<T> = {
    [K in Exclude<keyof Lodash, 'VERSION' | 'templateSettings' | 'chain'>]: (...args: any[]) => LodashWrapper<any>;
  } & {
    /** Runs the chain and returns its value. */
    value(): T;
    /** Same as `value()`. */
    valueOf(): T;
    /** Same as `value()`. */
    toJSON(): T;
    /** The value as text. */
    toString(): string;
    /** Makes the chain explicit: every step returns a chain. */
    chain(): LodashWrapper<T>;
    /** Runs the chain and returns a chain of the result. */
    commit(): LodashWrapper<T>;
    /** The next value of the wrapped collection (iterator protocol). */
    next(): { done: boolean; value: any };
    /** The chain replayed on a new value. */
    plant(value: unknown): LodashWrapper<any>;
    /** Array.prototype.pop on the value. */
    pop(): LodashWrapper<any>;
    /** Array.prototype.push on the value. */
    push(...items: unknown[]): LodashWrapper<any>;
    /** Array.prototype.shift on the value. */
    shift(): LodashWrapper<any>;
    /** Array.prototype.sort on the value. */
    sort(compare?: (a: any, b: any) => number): LodashWrapper<any>;
    /** Array.prototype.splice on the value. */
    splice(start: number, deleteCount?: number, ...items: unknown[]): LodashWrapper<any>;
    /** Array.prototype.unshift on the value. */
    unshift(...items: unknown[]): LodashWrapper<any>;
    /** Iterates the wrapped collection. */
    [Symbol.iterator](): Iterator<any>;
  };

  /** `D._`: lodash. */
  interface Lodash {
    /** Wraps `value` in a chain (see `LodashWrapper`). */
    <T>(value: T): LodashWrapper<T>;
    /** lodash's version, e.g. `'4.17.21'`. */
    VERSION: string;
    /** The delimiters `_.template` uses. */
    templateSettings: TemplateSettings;

    // ---- Array ----
    /** The list split into groups of `size`. */
    chunk<T>(array: List<T> | null | undefined, size?: number): T[][];
    /** The values that are not falsey. */
    compact<T>(array: List<T | null | undefined | false | '' | 0> | null | undefined): T[];
    /** A new array: `array` followed by the values (arrays are flattened one level). */
    concat<T>(array: Many<T>, ...values: Array<Many<T>>): T[];
    /** The values of `array` not in the other arrays. */
    difference<T>(array: List<T> | null | undefined, ...values: Array<List<T>>): T[];
    /** Like `difference`, comparing by `iteratee` (the last argument). */
    differenceBy<T>(array: List<T> | null | undefined, ...values: Array<List<T> | ValueIteratee<T>>): T[];
    /** Like `difference`, comparing with `comparator` (the last argument). */
    differenceWith<T>(array: List<T> | null | undefined, ...values: Array<List<T> | Comparator<T>>): T[];
    /** The list without its first `n` values. @param n defaults to 1 */
    drop<T>(array: List<T> | null | undefined, n?: number): T[];
    /** The list without its last `n` values. @param n defaults to 1 */
    dropRight<T>(array: List<T> | null | undefined, n?: number): T[];
    /** The list without the trailing values that pass `predicate`. */
    dropRightWhile<T>(array: List<T> | null | undefined, predicate?: ListIteratee<T>): T[];
    /** The list without the leading values that pass `predicate`. */
    dropWhile<T>(array: List<T> | null | undefined, predicate?: ListIteratee<T>): T[];
    /** Fills `array` with `value` from `start` to `end` (in place). */
    fill<T, U>(array: T[] | null | undefined, value: U, start?: number, end?: number): Array<T | U>;
    /** Index of the first value passing `predicate`, or -1. */
    findIndex<T>(array: List<T> | null | undefined, predicate?: ListIteratee<T>, fromIndex?: number): number;
    /** Index of the last value passing `predicate`, or -1. */
    findLastIndex<T>(array: List<T> | null | undefined, predicate?: ListIteratee<T>, fromIndex?: number): number;
    /** Same as `head`. */
    first<T>(array: List<T> | null | undefined): T | undefined;
    /** The list flattened one level. */
    flatten<T>(array: List<Many<T>> | null | undefined): T[];
    /** The list flattened completely. */
    flattenDeep(array: List<unknown> | null | undefined): any[];
    /** The list flattened `depth` levels. */
    flattenDepth(array: List<unknown> | null | undefined, depth?: number): any[];
    /** An object from `[key, value]` pairs. */
    fromPairs<T>(pairs: List<[PropertyName, T]> | null | undefined): Dictionary<T>;
    /** The first value. */
    head<T>(array: List<T> | null | undefined): T | undefined;
    /** Index of `value` (SameValueZero), or -1. */
    indexOf<T>(array: List<T> | null | undefined, value: T, fromIndex?: number): number;
    /** All values but the last. */
    initial<T>(array: List<T> | null | undefined): T[];
    /** The values found in every array. */
    intersection<T>(...arrays: Array<List<T> | null | undefined>): T[];
    /** Like `intersection`, comparing by `iteratee` (the last argument). */
    intersectionBy<T>(...arrays: Array<List<T> | ValueIteratee<T> | null | undefined>): T[];
    /** Like `intersection`, comparing with `comparator` (the last argument). */
    intersectionWith<T>(...arrays: Array<List<T> | Comparator<T> | null | undefined>): T[];
    /** The values joined with `separator` (default `','`). */
    join(array: List<unknown> | null | undefined, separator?: string): string;
    /** The last value. */
    last<T>(array: List<T> | null | undefined): T | undefined;
    /** Index of the last `value`, or -1. */
    lastIndexOf<T>(array: List<T> | null | undefined, value: T, fromIndex?: number): number;
    /** The value at `n` (negative counts from the end). */
    nth<T>(array: List<T> | null | undefined, n?: number): T | undefined;
    /** Removes the given values from `array` (in place). */
    pull<T>(array: T[], ...values: T[]): T[];
    /** Removes the values of `values` from `array` (in place). */
    pullAll<T>(array: T[], values?: List<T>): T[];
    /** Like `pullAll`, comparing by `iteratee`. */
    pullAllBy<T>(array: T[], values?: List<T>, iteratee?: ValueIteratee<T>): T[];
    /** Like `pullAll`, comparing with `comparator`. */
    pullAllWith<T>(array: T[], values?: List<T>, comparator?: Comparator<T>): T[];
    /** Removes the values at the indexes (in place); returns them. */
    pullAt<T>(array: T[], ...indexes: Array<Many<number>>): T[];
    /** Removes the values passing `predicate` (in place); returns them. */
    remove<T>(array: T[], predicate?: ListIteratee<T>): T[];
    /** Reverses `array` in place. */
    reverse<T>(array: T[]): T[];
    /** Values `start` to `end`. */
    slice<T>(array: List<T> | null | undefined, start?: number, end?: number): T[];
    /** Where `value` should go to keep the sorted `array` sorted (lowest index). */
    sortedIndex<T>(array: List<T> | null | undefined, value: T): number;
    /** Like `sortedIndex`, ranking by `iteratee`. */
    sortedIndexBy<T>(array: List<T> | null | undefined, value: T, iteratee?: ValueIteratee<T>): number;
    /** `indexOf` for a sorted array (binary search). */
    sortedIndexOf<T>(array: List<T> | null | undefined, value: T): number;
    /** Where `value` should go to keep the sorted `array` sorted (highest index). */
    sortedLastIndex<T>(array: List<T> | null | undefined, value: T): number;
    /** Like `sortedLastIndex`, ranking by `iteratee`. */
    sortedLastIndexBy<T>(array: List<T> | null | undefined, value: T, iteratee?: ValueIteratee<T>): number;
    /** `lastIndexOf` for a sorted array (binary search). */
    sortedLastIndexOf<T>(array: List<T> | null | undefined, value: T): number;
    /** `uniq` for a sorted array. */
    sortedUniq<T>(array: List<T> | null | undefined): T[];
    /** `uniqBy` for a sorted array. */
    sortedUniqBy<T>(array: List<T> | null | undefined, iteratee?: ValueIteratee<T>): T[];
    /** All values but the first. */
    tail<T>(array: List<T> | null | undefined): T[];
    /** The first `n` values. @param n defaults to 1 */
    take<T>(array: List<T> | null | undefined, n?: number): T[];
    /** The last `n` values. @param n defaults to 1 */
    takeRight<T>(array: List<T> | null | undefined, n?: number): T[];
    /** The trailing values that pass `predicate`. */
    takeRightWhile<T>(array: List<T> | null | undefined, predicate?: ListIteratee<T>): T[];
    /** The leading values that pass `predicate`. */
    takeWhile<T>(array: List<T> | null | undefined, predicate?: ListIteratee<T>): T[];
    /** The unique values of all arrays, in order. */
    union<T>(...arrays: Array<List<T> | null | undefined>): T[];
    /** Like `union`, comparing by `iteratee` (the last argument). */
    unionBy<T>(...arrays: Array<List<T> | ValueIteratee<T> | null | undefined>): T[];
    /** Like `union`, comparing with `comparator` (the last argument). */
    unionWith<T>(...arrays: Array<List<T> | Comparator<T> | null | undefined>): T[];
    /** The list without duplicates (first occurrence kept). */
    uniq<T>(array: List<T> | null | undefined): T[];
    /** Like `uniq`, comparing by `iteratee`. */
    uniqBy<T>(array: List<T> | null | undefined, iteratee: ValueIteratee<T>): T[];
    /** Like `uniq`, comparing with `comparator`. */
    uniqWith<T>(array: List<T> | null | undefined, comparator?: Comparator<T>): T[];
    /** The inverse of `zip`: groups the nth values of each array. */
    unzip<T>(array: List<List<T>> | null | undefined): T[][];
    /** Like `unzip`, combining each group with `iteratee`. */
    unzipWith<T, R>(array: List<List<T>> | null | undefined, iteratee: (...group: T[]) => R): R[];
    /** The list without the given values. */
    without<T>(array: List<T> | null | undefined, ...values: T[]): T[];
    /** The values found in exactly one of the arrays. */
    xor<T>(...arrays: Array<List<T> | null | undefined>): T[];
    /** Like `xor`, comparing by `iteratee` (the last argument). */
    xorBy<T>(...arrays: Array<List<T> | ValueIteratee<T> | null | undefined>): T[];
    /** Like `xor`, comparing with `comparator` (the last argument). */
    xorWith<T>(...arrays: Array<List<T> | Comparator<T> | null | undefined>): T[];
    /** Groups the nth values of each array: `zip([1, 2], ['a', 'b'])` is `[[1, 'a'], [2, 'b']]`. */
    zip<T>(...arrays: Array<List<T> | null | undefined>): Array<Array<T | undefined>>;
    /** An object from a list of keys and a list of values. */
    zipObject<T>(keys: List<PropertyName> | null | undefined, values?: List<T>): Dictionary<T>;
    /** Like `zipObject`, with property paths as keys. */
    zipObjectDeep(paths: List<PropertyPath> | null | undefined, values?: List<unknown>): any;
    /** Like `zip`, combining each group with `iteratee` (the last argument). */
    zipWith<T, R>(...arrays: Array<List<T> | ((...group: T[]) => R) | null | undefined>): R[];

    // ---- Collection (lists and objects) ----
    /** Counts by the key `iteratee` gives each value. */
    countBy<C extends object>(collection: C | null | undefined, iteratee?: ValueIteratee<ValueOf<C>>): Dictionary<number>;
    /** Same as `forEach`. */
    each<C>(collection: C, iteratee?: C extends List<infer T> ? ListIterator<T, unknown> : ObjectIterator<C, unknown>): C;
    /** Same as `forEachRight`. */
    eachRight<C>(collection: C, iteratee?: C extends List<infer T> ? ListIterator<T, unknown> : ObjectIterator<C, unknown>): C;
    /** True when every value passes `predicate`. */
    every<T>(collection: List<T> | null | undefined, predicate?: ListIteratee<T>): boolean;
    every<O extends object>(collection: O | null | undefined, predicate?: ObjectIteratee<O>): boolean;
    /** The values passing `predicate`. */
    filter<T, S extends T>(collection: List<T> | null | undefined, predicate: (value: T, index: number, list: List<T>) => value is S): S[];
    filter<T>(collection: List<T> | null | undefined, predicate?: ListIteratee<T>): T[];
    filter<O extends object>(collection: O | null | undefined, predicate?: ObjectIteratee<O>): Array<O[keyof O]>;
    /** The first value passing `predicate`, or undefined. */
    find<T, S extends T>(collection: List<T> | null | undefined, predicate: (value: T, index: number, list: List<T>) => value is S, fromIndex?: number): S | undefined;
    find<T>(collection: List<T> | null | undefined, predicate?: ListIteratee<T>, fromIndex?: number): T | undefined;
    find<O extends object>(collection: O | null | undefined, predicate?: ObjectIteratee<O>, fromIndex?: number): O[keyof O] | undefined;
    /** The last value passing `predicate`, or undefined. */
    findLast<T>(collection: List<T> | null | undefined, predicate?: ListIteratee<T>, fromIndex?: number): T | undefined;
    findLast<O extends object>(collection: O | null | undefined, predicate?: ObjectIteratee<O>, fromIndex?: number): O[keyof O] | undefined;
    /** `map`, then flattened one level. */
    flatMap<T, R>(collection: List<T> | null | undefined, iteratee: ListIterator<T, Many<R>>): R[];
    flatMap<O extends object, R>(collection: O | null | undefined, iteratee: ObjectIterator<O, Many<R>>): R[];
    flatMap(collection: object | null | undefined, iteratee?: IterateeShorthand<any>): any[];
    /** `map`, then flattened completely. */
    flatMapDeep(collection: object | null | undefined, iteratee?: ListIteratee<any> | ObjectIteratee<any>): any[];
    /** `map`, then flattened `depth` levels. */
    flatMapDepth(collection: object | null | undefined, iteratee?: ListIteratee<any> | ObjectIteratee<any>, depth?: number): any[];
    /** Calls `iteratee` for each value (returning `false` stops); returns the collection. */
    forEach<C>(collection: C, iteratee?: C extends List<infer T> ? ListIterator<T, unknown> : ObjectIterator<C, unknown>): C;
    /** Like `forEach`, from the end. */
    forEachRight<C>(collection: C, iteratee?: C extends List<infer T> ? ListIterator<T, unknown> : ObjectIterator<C, unknown>): C;
    /** The values grouped by the key `iteratee` gives each. */
    groupBy<C extends object>(collection: C | null | undefined, iteratee?: ValueIteratee<ValueOf<C>>): Dictionary<Array<ValueOf<C>>>;
    /** True when `value` is in the collection (a substring, for a string). */
    includes(collection: List<unknown> | object | string | null | undefined, value: unknown, fromIndex?: number): boolean;
    /** Calls the method at `path` (or the function) on each value; the results. */
    invokeMap(collection: object | null | undefined, path: PropertyPath | AnyFunction, ...args: unknown[]): any[];
    /** An object of the values keyed by what `iteratee` gives each (the last one wins). */
    keyBy<C extends object>(collection: C | null | undefined, iteratee?: ValueIteratee<ValueOf<C>>): Dictionary<ValueOf<C>>;
    /** What `iteratee` returns for each value (a property name reads that property). */
    map<T, R>(collection: List<T> | null | undefined, iteratee: ListIterator<T, R>): R[];
    map<T, K extends keyof T>(collection: List<T> | null | undefined, iteratee: K): Array<T[K]>;
    map<T>(collection: List<T> | null | undefined): T[];
    map<O extends object, R>(collection: O | null | undefined, iteratee: ObjectIterator<O, R>): R[];
    map(collection: object | null | undefined, iteratee: IterateeShorthand<any>): any[];
    /** The values sorted by several iteratees, each `'asc'` or `'desc'`. */
    orderBy<C extends object>(collection: C | null | undefined, iteratees?: Many<ValueIteratee<ValueOf<C>>>, orders?: Many<boolean | 'asc' | 'desc'>): Array<ValueOf<C>>;
    /** `[passing, failing]` by `predicate`. */
    partition<C extends object>(collection: C | null | undefined, predicate?: ValueIteratee<ValueOf<C>>): [Array<ValueOf<C>>, Array<ValueOf<C>>];
    /** Folds the values into `accumulator` (the first value when left out). */
    reduce<T, A>(collection: List<T> | null | undefined, iteratee: (accumulator: A, value: T, index: number, list: List<T>) => A, accumulator: A): A;
    reduce<T>(collection: List<T> | null | undefined, iteratee: (accumulator: T, value: T, index: number, list: List<T>) => T): T | undefined;
    reduce<O extends object, A>(collection: O | null | undefined, iteratee: (accumulator: A, value: O[keyof O], key: string, object: O) => A, accumulator: A): A;
    /** Like `reduce`, from the end. */
    reduceRight<T, A>(collection: List<T> | null | undefined, iteratee: (accumulator: A, value: T, index: number, list: List<T>) => A, accumulator: A): A;
    reduceRight<T>(collection: List<T> | null | undefined, iteratee: (accumulator: T, value: T, index: number, list: List<T>) => T): T | undefined;
    reduceRight<O extends object, A>(collection: O | null | undefined, iteratee: (accumulator: A, value: O[keyof O], key: string, object: O) => A, accumulator: A): A;
    /** The values failing `predicate`. */
    reject<T>(collection: List<T> | null | undefined, predicate?: ListIteratee<T>): T[];
    reject<O extends object>(collection: O | null | undefined, predicate?: ObjectIteratee<O>): Array<O[keyof O]>;
    /** A random value. */
    sample<C extends object>(collection: C | null | undefined): ValueOf<C> | undefined;
    /** `n` random values. */
    sampleSize<C extends object>(collection: C | null | undefined, n?: number): Array<ValueOf<C>>;
    /** The values in random order. */
    shuffle<C extends object>(collection: C | null | undefined): Array<ValueOf<C>>;
    /** Length of a list or string, or number of own properties. */
    size(collection: Sized): number;
    /** True when any value passes `predicate`. */
    some<T>(collection: List<T> | null | undefined, predicate?: ListIteratee<T>): boolean;
    some<O extends object>(collection: O | null | undefined, predicate?: ObjectIteratee<O>): boolean;
    /** The values sorted (stably) by each iteratee in turn. */
    sortBy<C extends object>(collection: C | null | undefined, ...iteratees: Array<Many<ValueIteratee<ValueOf<C>>>>): Array<ValueOf<C>>;

    // ---- Date ----
    /** Milliseconds since the epoch. */
    now(): number;

    // ---- Function ----
    /** A function that calls `fn` from its `n`th call on. */
    after<F extends AnyFunction>(n: number, fn: F): F;
    /** `fn` called with at most `n` arguments. */
    ary(fn: AnyFunction, n?: number): AnyFunction;
    /** A function that calls `fn` for its first `n - 1` calls, then returns the last result. */
    before<F extends AnyFunction>(n: number, fn: F): F;
    /** `fn` bound to `thisArg` and leading arguments (`_` leaves a gap). */
    bind: ((fn: AnyFunction, thisArg: unknown, ...partials: unknown[]) => AnyFunction) & WithPlaceholder;
    /** A function calling `object[key]` (late bound) with leading arguments. */
    bindKey: ((object: object, key: string, ...partials: unknown[]) => AnyFunction) & WithPlaceholder;
    /** A curried `fn`. */
    curry: ((fn: AnyFunction, arity?: number) => AnyFunction) & WithPlaceholder;
    /** A curried `fn`, taking arguments from the right. */
    curryRight: ((fn: AnyFunction, arity?: number) => AnyFunction) & WithPlaceholder;
    /** `fn` called only once calls stop for `wait` ms. */
    debounce<F extends AnyFunction>(fn: F, wait?: number, options?: DebounceOptions): DebouncedFunction<F>;
    /** Calls `fn(...args)` after the current job; returns a timer id. */
    defer(fn: AnyFunction, ...args: unknown[]): number;
    /** Calls `fn(...args)` after `wait` ms; returns a timer id. */
    delay(fn: AnyFunction, wait: number, ...args: unknown[]): number;
    /** `fn` with its arguments reversed. */
    flip<F extends AnyFunction>(fn: F): F;
    /** `fn` with results cached by the first argument (or by `resolver(...args)`). */
    memoize: Memoize;
    /** A function returning the negation of `predicate`. */
    negate<A extends unknown[]>(predicate: (...args: A) => unknown): (...args: A) => boolean;
    /** `fn` called at most once; later calls return the first result. */
    once<F extends AnyFunction>(fn: F): F;
    /** `fn` with each argument first passed through its transform. */
    overArgs(fn: AnyFunction, ...transforms: Array<Many<AnyFunction>>): AnyFunction;
    /** `fn` with leading arguments given (`_` leaves a gap). */
    partial: ((fn: AnyFunction, ...partials: unknown[]) => AnyFunction) & WithPlaceholder;
    /** `fn` with trailing arguments given. */
    partialRight: ((fn: AnyFunction, ...partials: unknown[]) => AnyFunction) & WithPlaceholder;
    /** `fn` with its arguments reordered by `indexes`. */
    rearg(fn: AnyFunction, ...indexes: Array<Many<number>>): AnyFunction;
    /** `fn` with the arguments from `start` on passed as one array. */
    rest(fn: AnyFunction, start?: number): AnyFunction;
    /** `fn` called with an array spread into arguments. */
    spread<R>(fn: (...args: any[]) => R, start?: number): (...args: any[]) => R;
    /** `fn` called at most once per `wait` ms. */
    throttle<F extends AnyFunction>(fn: F, wait?: number, options?: ThrottleOptions): DebouncedFunction<F>;
    /** `fn` called with only its first argument. */
    unary<A, R>(fn: (arg: A, ...rest: any[]) => R): (arg: A) => R;
    /** `wrapper(value, ...args)` as a function of `args`. */
    wrap<V, A extends unknown[], R>(value: V, wrapper: (value: V, ...args: A) => R): (...args: A) => R;

    // ---- Lang ----
    /** `value` as an array (itself when already one). */
    castArray<T>(value?: Many<T>): T[];
    /** A shallow copy. */
    clone<T>(value: T): T;
    /** A deep copy. */
    cloneDeep<T>(value: T): T;
    /** A deep copy, `customizer` deciding values (undefined: default). */
    cloneDeepWith<T>(value: T, customizer?: (value: any, key: PropertyName | undefined, object: any) => unknown): any;
    /** A shallow copy, `customizer` deciding values (undefined: default). */
    cloneWith<T>(value: T, customizer?: (value: any, key: PropertyName | undefined, object: any) => unknown): any;
    /** True when each property of `source` (a predicate) accepts `object`'s. */
    conformsTo<T>(object: T, source: { [K in keyof T]?: (value: T[K]) => boolean }): boolean;
    /** SameValueZero comparison. */
    eq(value: unknown, other: unknown): boolean;
    /** `value > other`. */
    gt(value: unknown, other: unknown): boolean;
    /** `value >= other`. */
    gte(value: unknown, other: unknown): boolean;
    /** True for an `arguments` object. */
    isArguments(value: unknown): value is IArguments;
    /** True for an array. */
    isArray(value: unknown): value is any[];
    /** True for an ArrayBuffer. */
    isArrayBuffer(value: unknown): value is ArrayBuffer;
    /** True for a list (has a valid `length`, not a function). */
    isArrayLike(value: unknown): value is ArrayLike<any>;
    /** `isArrayLike` and an object. */
    isArrayLikeObject(value: unknown): value is ArrayLike<any> & object;
    /** True for a boolean. */
    isBoolean(value: unknown): value is boolean;
    /** True for a Buffer. */
    isBuffer(value: unknown): value is Buffer;
    /** True for a Date. */
    isDate(value: unknown): value is Date;
    /** True for a DOM element (never, in a driver). */
    isElement(value: unknown): boolean;
    /** True for an empty list, string, map, set or object without own properties (and for non-objects). */
    isEmpty(value?: unknown): boolean;
    /** Deep equality. */
    isEqual(value: unknown, other: unknown): boolean;
    /** Deep equality, `customizer` deciding pairs (undefined: default). */
    isEqualWith(value: unknown, other: unknown, customizer?: (a: any, b: any, key?: PropertyName) => boolean | undefined): boolean;
    /** True for an Error. */
    isError(value: unknown): value is Error;
    /** True for a finite number. */
    isFinite(value: unknown): boolean;
    /** True for a function. */
    isFunction(value: unknown): value is AnyFunction;
    /** True for an integer. */
    isInteger(value: unknown): boolean;
    /** True for a valid array length. */
    isLength(value: unknown): boolean;
    /** True for a Map. */
    isMap(value: unknown): value is Map<any, any>;
    /** True when `object` has all of `source`'s property values (deep). */
    isMatch(object: object, source: object): boolean;
    /** `isMatch`, `customizer` deciding pairs. */
    isMatchWith(object: object, source: object, customizer?: (a: any, b: any, key: PropertyName) => boolean | undefined): boolean;
    /** True for NaN. */
    isNaN(value: unknown): boolean;
    /** True for a native function. */
    isNative(value: unknown): value is AnyFunction;
    /** True for null or undefined. */
    isNil(value: unknown): value is null | undefined;
    /** True for null. */
    isNull(value: unknown): value is null;
    /** True for a number (NaN too). */
    isNumber(value: unknown): value is number;
    /** True for an object or function (not null). */
    isObject(value: unknown): value is object;
    /** True for a non-null object. */
    isObjectLike(value: unknown): boolean;
    /** True for a plain object (`{}` or `Object.create(null)`). */
    isPlainObject(value: unknown): boolean;
    /** True for a RegExp. */
    isRegExp(value: unknown): value is RegExp;
    /** True for a safe integer. */
    isSafeInteger(value: unknown): boolean;
    /** True for a Set. */
    isSet(value: unknown): value is Set<any>;
    /** True for a string. */
    isString(value: unknown): value is string;
    /** True for a symbol. */
    isSymbol(value: unknown): value is symbol;
    /** True for a typed array. */
    isTypedArray(value: unknown): boolean;
    /** True for undefined. */
    isUndefined(value: unknown): value is undefined;
    /** True for a WeakMap. */
    isWeakMap(value: unknown): value is WeakMap<object, any>;
    /** True for a WeakSet. */
    isWeakSet(value: unknown): value is WeakSet<object>;
    /** `value < other`. */
    lt(value: unknown, other: unknown): boolean;
    /** `value <= other`. */
    lte(value: unknown, other: unknown): boolean;
    /** The values of a list, object or string, as an array. */
    toArray<C>(value: C): Array<C extends string ? string : ValueOf<C>>;
    /** `value` as a finite number. */
    toFinite(value: unknown): number;
    /** `value` as an integer. */
    toInteger(value: unknown): number;
    /** `value` as a valid array length. */
    toLength(value: unknown): number;
    /** `value` as a number. */
    toNumber(value: unknown): number;
    /** A plain object of `value`'s own and inherited enumerable properties. */
    toPlainObject(value: unknown): any;
    /** `value` as a safe integer. */
    toSafeInteger(value: unknown): number;
    /** `value` as a string (`''` for null and undefined; `-0` kept). */
    toString(value?: unknown): string;

    // ---- Math ----
    /** `augend + addend`. */
    add(augend: number, addend: number): number;
    /** `number` rounded up to `precision` digits. */
    ceil(number: number, precision?: number): number;
    /** `dividend / divisor`. */
    divide(dividend: number, divisor: number): number;
    /** `number` rounded down to `precision` digits. */
    floor(number: number, precision?: number): number;
    /** The largest value, or undefined for an empty list. */
    max<T>(array: List<T> | null | undefined): T | undefined;
    /** The value with the largest `iteratee` result. */
    maxBy<T>(array: List<T> | null | undefined, iteratee?: ValueIteratee<T>): T | undefined;
    /** The mean of the values. */
    mean(array: List<unknown> | null | undefined): number;
    /** The mean of `iteratee`'s results. */
    meanBy<T>(array: List<T> | null | undefined, iteratee?: ValueIteratee<T, number>): number;
    /** The smallest value, or undefined for an empty list. */
    min<T>(array: List<T> | null | undefined): T | undefined;
    /** The value with the smallest `iteratee` result. */
    minBy<T>(array: List<T> | null | undefined, iteratee?: ValueIteratee<T>): T | undefined;
    /** `multiplier * multiplicand`. */
    multiply(multiplier: number, multiplicand: number): number;
    /** `number` rounded to `precision` digits. */
    round(number: number, precision?: number): number;
    /** `minuend - subtrahend`. */
    subtract(minuend: number, subtrahend: number): number;
    /** The sum of the values. */
    sum(array: List<unknown> | null | undefined): number;
    /** The sum of `iteratee`'s results. */
    sumBy<T>(array: List<T> | null | undefined, iteratee?: ValueIteratee<T, number>): number;

    // ---- Number ----
    /** `number` kept within `lower` and `upper`. */
    clamp(number: number, lower: number, upper?: number): number;
    /** True when `start <= number < end` (`start` 0 when left out). */
    inRange(number: number, start: number, end?: number): boolean;
    /** A random number from `lower` (0) to `upper` (1); an integer unless `floating` or a bound is fractional. */
    random(floating?: boolean): number;
    random(upper: number, floating?: boolean): number;
    random(lower: number, upper: number, floating?: boolean): number;

    // ---- Object ----
    /** Copies own enumerable properties of the sources onto `object` (in place). */
    assign<T>(object: T, ...sources: unknown[]): any;
    /** Like `assign`, inherited properties too. */
    assignIn<T>(object: T, ...sources: unknown[]): any;
    /** `assignIn`, `customizer` (the last argument) deciding values. */
    assignInWith<T>(object: T, ...sources: unknown[]): any;
    /** `assign`, `customizer` (the last argument) deciding values. */
    assignWith<T>(object: T, ...sources: unknown[]): any;
    /** The values at the paths. */
    at(object: object | null | undefined, ...paths: Array<Many<PropertyPath>>): any[];
    /** An object inheriting from `prototype`, with `properties`. */
    create<T extends object, U extends object>(prototype: T, properties?: U): T & U;
    /** Fills undefined properties of `object` from the sources (in place). */
    defaults<T>(object: T, ...sources: unknown[]): any;
    /** Like `defaults`, recursively. */
    defaultsDeep<T>(object: T, ...sources: unknown[]): any;
    /** Same as `toPairs`. */
    entries<T>(object: Dictionary<T> | null | undefined): Array<[string, T]>;
    entries(object: object | null | undefined): Array<[string, any]>;
    /** Same as `toPairsIn`. */
    entriesIn<T>(object: Dictionary<T> | null | undefined): Array<[string, T]>;
    entriesIn(object: object | null | undefined): Array<[string, any]>;
    /** Same as `assignIn`. */
    extend<T>(object: T, ...sources: unknown[]): any;
    /** Same as `assignInWith`. */
    extendWith<T>(object: T, ...sources: unknown[]): any;
    /** The key of the first property passing `predicate`. */
    findKey<O extends object>(object: O | null | undefined, predicate?: ObjectIteratee<O>): string | undefined;
    /** The key of the last property passing `predicate`. */
    findLastKey<O extends object>(object: O | null | undefined, predicate?: ObjectIteratee<O>): string | undefined;
    /** Calls `iteratee` for own and inherited properties (`false` stops). */
    forIn<O>(object: O, iteratee?: ObjectIterator<O, unknown>): O;
    /** Like `forIn`, in reverse. */
    forInRight<O>(object: O, iteratee?: ObjectIterator<O, unknown>): O;
    /** Calls `iteratee` for own properties (`false` stops). */
    forOwn<O>(object: O, iteratee?: ObjectIterator<O, unknown>): O;
    /** Like `forOwn`, in reverse. */
    forOwnRight<O>(object: O, iteratee?: ObjectIterator<O, unknown>): O;
    /** Names of own function properties. */
    functions(object: unknown): string[];
    /** Names of own and inherited function properties. */
    functionsIn(object: unknown): string[];
    /** The value at `path`, or `defaultValue` when it is undefined. */
    get<T extends object, K extends keyof T>(object: T | null | undefined, path: K | [K]): T[K];
    get(object: unknown, path: PropertyPath, defaultValue?: unknown): any;
    /** True when `path` is an own property path of `object`. */
    has(object: unknown, path: PropertyPath): boolean;
    /** True when `path` is an own or inherited property path. */
    hasIn(object: unknown, path: PropertyPath): boolean;
    /** Keys and values swapped. */
    invert(object: object | null | undefined): Dictionary<string>;
    /** Values (through `iteratee`) to arrays of their keys. */
    invertBy<O extends object>(object: O | null | undefined, iteratee?: ValueIteratee<O[keyof O]>): Dictionary<string[]>;
    /** Calls the method at `path` with `args`. */
    invoke(object: unknown, path: PropertyPath, ...args: unknown[]): any;
    /** Own enumerable property names (indexes for lists). */
    keys(object?: unknown): string[];
    /** Own and inherited enumerable property names. */
    keysIn(object?: unknown): string[];
    /** The object with keys replaced by what `iteratee` returns. */
    mapKeys<O extends object>(object: O | null | undefined, iteratee?: ObjectIteratee<O, PropertyName>): Dictionary<O[keyof O]>;
    /** The object with values replaced by what `iteratee` returns (a property name reads that property). */
    mapValues<O extends object, R>(object: O | null | undefined, iteratee: ObjectIterator<O, R>): { [K in keyof O]: R };
    mapValues<O extends object>(object: O | null | undefined, iteratee?: IterateeShorthand<O[keyof O]>): { [K in keyof O]: any };
    /** Deep-merges the sources into `object` (in place). */
    merge<T>(object: T, ...sources: unknown[]): any;
    /** `merge`, `customizer` (the last argument) deciding values. */
    mergeWith<T>(object: T, ...sources: unknown[]): any;
    /** A copy without the given property paths. */
    omit<T extends object>(object: T | null | undefined, ...paths: Array<Many<PropertyPath>>): Partial<T>;
    /** A copy without the properties passing `predicate`. */
    omitBy<O extends object>(object: O | null | undefined, predicate?: ValueIteratee<O[keyof O]>): Partial<O>;
    /** A copy with only the given property paths. */
    pick<T extends object, K extends keyof T>(object: T | null | undefined, ...paths: Array<Many<K>>): Pick<T, K>;
    pick<T>(object: T | null | undefined, ...paths: Array<Many<PropertyPath>>): Partial<T>;
    /** A copy with only the properties passing `predicate`. */
    pickBy<O extends object>(object: O | null | undefined, predicate?: ValueIteratee<O[keyof O]>): Partial<O>;
    /** Like `get`, calling the value when it is a function. */
    result(object: unknown, path: PropertyPath, defaultValue?: unknown): any;
    /** Sets the value at `path`, creating what is missing (in place). */
    set<T extends object>(object: T, path: PropertyPath, value: unknown): T;
    /** `set`, `customizer` making missing objects. */
    setWith<T extends object>(object: T, path: PropertyPath, value: unknown, customizer?: (value: any, key: string, object: T) => unknown): T;
    /** Own `[key, value]` pairs. */
    toPairs<T>(object: Dictionary<T> | null | undefined): Array<[string, T]>;
    toPairs(object: object | null | undefined): Array<[string, any]>;
    /** Own and inherited `[key, value]` pairs. */
    toPairsIn<T>(object: Dictionary<T> | null | undefined): Array<[string, T]>;
    toPairsIn(object: object | null | undefined): Array<[string, any]>;
    /** Reduces the properties into `accumulator` (mutated by `iteratee`; `false` stops). */
    transform<O extends object, A>(object: O | null | undefined, iteratee: (accumulator: A, value: O[keyof O], key: string, object: O) => unknown, accumulator?: A): A;
    /** Deletes the property at `path`; true when it is gone. */
    unset(object: unknown, path: PropertyPath): boolean;
    /** Sets the value at `path` to `updater(old value)`. */
    update<T extends object>(object: T, path: PropertyPath, updater: (value: any) => unknown): T;
    /** `update`, `customizer` making missing objects. */
    updateWith<T extends object>(object: T, path: PropertyPath, updater: (value: any) => unknown, customizer?: (value: any, key: string, object: T) => unknown): T;
    /** Own enumerable property values. */
    values<C>(object: C | null | undefined): Array<C extends string ? string : ValueOf<C>>;
    /** Own and inherited enumerable property values. */
    valuesIn<C>(object: C | null | undefined): Array<C extends string ? string : ValueOf<C>>;

    // ---- Seq ----
    /** An explicit chain of `value` (every step returns a chain until `value()`). */
    chain<T>(value: T): LodashWrapper<T>;
    /** Calls `interceptor(value)`; returns `value`. */
    tap<T>(value: T, interceptor: (value: T) => void): T;
    /** Returns `interceptor(value)`. */
    thru<T, R>(value: T, interceptor: (value: T) => R): R;

    // ---- String ----
    /** `'Foo Bar'` → `'fooBar'`. */
    camelCase(text?: string): string;
    /** First letter upper case, the rest lower case. */
    capitalize(text?: string): string;
    /** Latin-1 letters without diacritics. */
    deburr(text?: string): string;
    /** True when `text` ends with `target` (before `position`). */
    endsWith(text?: string, target?: string, position?: number): boolean;
    /** `& < > " '` as HTML entities. */
    escape(text?: string): string;
    /** RegExp special characters escaped. */
    escapeRegExp(text?: string): string;
    /** `'Foo Bar'` → `'foo-bar'`. */
    kebabCase(text?: string): string;
    /** `'fooBar'` → `'foo bar'`. */
    lowerCase(text?: string): string;
    /** First letter lower case. */
    lowerFirst(text?: string): string;
    /** Padded on both sides to `length`. */
    pad(text?: string, length?: number, chars?: string): string;
    /** Padded on the right to `length`. */
    padEnd(text?: string, length?: number, chars?: string): string;
    /** Padded on the left to `length`. */
    padStart(text?: string, length?: number, chars?: string): string;
    /** `text` as an integer in `radix` (10, or 16 for `0x…`). */
    parseInt(text: string, radix?: number): number;
    /** `text` repeated `n` times. */
    repeat(text?: string, n?: number): string;
    /** String.prototype.replace on `text`. */
    replace(text: string, pattern: string | RegExp, replacement: string | ((substring: string, ...args: any[]) => string)): string;
    /** `'Foo Bar'` → `'foo_bar'`. */
    snakeCase(text?: string): string;
    /** String.prototype.split on `text`. */
    split(text: string | null | undefined, separator?: string | RegExp, limit?: number): string[];
    /** `'fooBar'` → `'Foo Bar'`. */
    startCase(text?: string): string;
    /** True when `text` starts with `target` (from `position`). */
    startsWith(text?: string, target?: string, position?: number): boolean;
    /** A compiled template: `<%= value %>`, `<%- escaped %>`, `<% code %>`. */
    template(text?: string, options?: TemplateOptions): TemplateFunction;
    /** Lower case. */
    toLower(text?: string): string;
    /** Upper case. */
    toUpper(text?: string): string;
    /** Whitespace (or `chars`) removed from both ends. */
    trim(text?: string, chars?: string): string;
    /** Whitespace (or `chars`) removed from the end. */
    trimEnd(text?: string, chars?: string): string;
    /** Whitespace (or `chars`) removed from the start. */
    trimStart(text?: string, chars?: string): string;
    /** Cut to `length` (default 30), ending with `omission` (default `'...'`). */
    truncate(text?: string, options?: TruncateOptions): string;
    /** The inverse of `escape`. */
    unescape(text?: string): string;
    /** `'fooBar'` → `'FOO BAR'`. */
    upperCase(text?: string): string;
    /** First letter upper case. */
    upperFirst(text?: string): string;
    /** The words of `text` (or matches of `pattern`). */
    words(text?: string, pattern?: string | RegExp): string[];

    // ---- Util ----
    /** Calls `fn(...args)`; the result, or the error it threw. */
    attempt<R>(fn: (...args: any[]) => R, ...args: unknown[]): R | Error;
    /** Binds the named methods of `object` to it (in place). */
    bindAll<T>(object: T, ...methodNames: Array<Many<string>>): T;
    /** A function returning the result of the first `[predicate, fn]` pair whose predicate passes. */
    cond<A extends unknown[], R>(pairs: Array<[(...args: A) => unknown, (...args: A) => R]>): (...args: A) => R | undefined;
    /** A predicate: each property of `source` (a predicate) accepts the value's. */
    conforms<T>(source: { [K in keyof T]?: (value: T[K]) => boolean }): (value: T) => boolean;
    /** A function returning `value`. */
    constant<T>(value: T): () => T;
    /** `value`, or `defaultValue` when it is null, undefined or NaN. */
    defaultTo<T, D>(value: T | null | undefined, defaultValue: D): T | D;
    /** The functions composed left to right. */
    flow(...fns: Array<Many<AnyFunction>>): AnyFunction;
    /** The functions composed right to left. */
    flowRight(...fns: Array<Many<AnyFunction>>): AnyFunction;
    /** Returns its first argument. */
    identity<T>(value: T): T;
    /** The function an iteratee shorthand stands for. */
    iteratee(shorthand?: unknown): AnyFunction;
    /** A predicate: true when a value has all of `source`'s property values. */
    matches<T>(source: T): (value: unknown) => boolean;
    /** A predicate: true when a value's `path` equals `srcValue` (deep). */
    matchesProperty(path: PropertyPath, srcValue: unknown): (value: unknown) => boolean;
    /** A function calling the method at `path` of its argument. */
    method(path: PropertyPath, ...args: unknown[]): (object: unknown) => any;
    /** A function calling the method at its argument's path of `object`. */
    methodOf(object: object, ...args: unknown[]): (path: PropertyPath) => any;
    /** Adds the functions of `source` to lodash (or `object`). */
    mixin(object: object, source?: Dictionary<AnyFunction>, options?: { chain?: boolean }): any;
    /** Throws in a driver: lodash is not a browser global here. */
    noConflict(): Lodash;
    /** Does nothing; returns undefined. */
    noop(...args: unknown[]): void;
    /** A function returning its `n`th argument. */
    nthArg(n?: number): (...args: any[]) => any;
    /** A function returning the results of each function for its arguments. */
    over<R>(...fns: Array<Many<(...args: any[]) => R>>): (...args: any[]) => R[];
    /** A predicate: every predicate passes. */
    overEvery(...predicates: Array<Many<AnyFunction>>): (...args: any[]) => boolean;
    /** A predicate: some predicate passes. */
    overSome(...predicates: Array<Many<AnyFunction>>): (...args: any[]) => boolean;
    /** A function reading `path` of its argument. */
    property(path: PropertyPath): (object: unknown) => any;
    /** A function reading its argument (a path) of `object`. */
    propertyOf(object: unknown): (path: PropertyPath) => any;
    /** Numbers from `start` (0) up to, not including, `end`, by `step`. */
    range(end: number): number[];
    range(start: number, end: number, step?: number): number[];
    /** Like `range`, descending. */
    rangeRight(end: number): number[];
    rangeRight(start: number, end: number, step?: number): number[];
    /** A fresh lodash (optionally on another global context). */
    runInContext(context?: object): Lodash;
    /** Returns a new empty array. */
    stubArray(): any[];
    /** Returns false. */
    stubFalse(): false;
    /** Returns a new empty object. */
    stubObject(): any;
    /** Returns `''`. */
    stubString(): string;
    /** Returns true. */
    stubTrue(): true;
    /** `iteratee(i)` for i from 0 to n - 1 (the indexes, without an iteratee). */
    times<R>(n: number, iteratee: (index: number) => R): R[];
    times(n: number): number[];
    /** A property path as an array of keys. */
    toPath(value: unknown): string[];
    /** A unique id, with `prefix`. */
    uniqueId(prefix?: string): string;
  }
}
