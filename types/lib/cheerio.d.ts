// D.htmlParse: cheerio 1.x's `load`, bundled into the runtime. A parsed document is a tree of
// DomNode; one flat node type (rather than a union of element / text / comment) keeps
// everyday driver code such as `el.children[0].data` free of false errors in plain .js files.

declare namespace Driverbox {
  /** A node of a parsed document: an element, text, comment, CDATA, directive or the document root. */
  interface DomNode {
    /** `'tag'`, `'script'`, `'style'`, `'text'`, `'comment'`, `'cdata'`, `'directive'` or `'root'`. */
    type: 'tag' | 'script' | 'style' | 'text' | 'comment' | 'cdata' | 'directive' | 'root';
    /** The DOM node type: 1 element, 3 text, 4 CDATA, 8 comment, 9 document, 1 directive. */
    nodeType: number;
    /** Parent node, or `null` at the root. */
    parent: DomNode | null;
    /** Same as `parent`. */
    parentNode: DomNode | null;
    /** Previous sibling, or `null`. */
    prev: DomNode | null;
    /** Same as `prev`. */
    previousSibling: DomNode | null;
    /** Next sibling, or `null`. */
    next: DomNode | null;
    /** Same as `next`. */
    nextSibling: DomNode | null;
    /** Where the node starts in the source, when the parser tracked it; else `null`. */
    startIndex: number | null;
    /** Where the node ends in the source, when the parser tracked it; else `null`. */
    endIndex: number | null;
    /** A copy of the node (with its children when `recursive`). */
    cloneNode(recursive?: boolean): DomNode;

    /** Elements and directives: the tag name, e.g. `'td'`. */
    name?: string;
    /** Elements: same as `name`. */
    tagName?: string;
    /** Elements: attributes by name. */
    attribs?: { [name: string]: string };
    /** Elements: attributes as a list. */
    attributes?: Array<{ name: string; value: string; namespace?: string; prefix?: string }>;
    /** Elements: the namespace URI (HTML documents). */
    namespace?: string;
    /** Elements: attribute namespaces (HTML documents). */
    'x-attribsNamespace'?: { [name: string]: string | undefined };
    /** Elements: attribute prefixes (HTML documents). */
    'x-attribsPrefix'?: { [name: string]: string | undefined };
    /** Elements, CDATA and the document: child nodes. */
    children?: DomNode[];
    /** Same as `children`. */
    childNodes?: DomNode[];
    /** First child, or `null`. */
    firstChild?: DomNode | null;
    /** Last child, or `null`. */
    lastChild?: DomNode | null;
    /** Text, comments and directives: their content. */
    data?: string;
    /** Same as `data`. */
    nodeValue?: string;
    /** The document: its quirks mode. */
    'x-mode'?: 'no-quirks' | 'quirks' | 'limited-quirks';
  }

  /** Options of `D.htmlParse`. */
  interface CheerioOptions {
    /** Parse as XML (`true`, or the XML parser's options). @defaultValue `false` */
    xml?: boolean | XmlParserOptions;
    /** Same as `xml: true`. */
    xmlMode?: boolean;
    /** Base URL for `prop('href')` / `prop('src')`. */
    baseURI?: string;
    /** Match selectors as a quirks-mode document does. */
    quirksMode?: boolean;
    /** Run `<noscript>` contents as text (HTML parser). @defaultValue `true` */
    scriptingEnabled?: boolean;
    /** Record where each node is in the source (HTML parser). */
    sourceCodeLocationInfo?: boolean;
  }

  /** The options a selection keeps: those given to `D.htmlParse`, as cheerio completed them. */
  interface CheerioParsedOptions extends CheerioOptions {
    /** The HTML parser's tree adapter (cheerio internals). */
    treeAdapter?: object;
  }

  /** Options of the XML parser (`xml: { … }`). */
  interface XmlParserOptions {
    /** @defaultValue `true` */
    xmlMode?: boolean;
    /** Decode entities such as `&amp;`. @defaultValue `true` */
    decodeEntities?: boolean;
    /** Lower-case tag names. */
    lowerCaseTags?: boolean;
    /** Lower-case attribute names. */
    lowerCaseAttributeNames?: boolean;
    /** Read `<![CDATA[…]]>` as CDATA. */
    recognizeCDATA?: boolean;
    /** Honour self-closing tags. */
    recognizeSelfClosing?: boolean;
    /** Keep the source positions (`startIndex` / `endIndex`). */
    withStartIndices?: boolean;
    /** Keep the source end positions. */
    withEndIndices?: boolean;
  }

  /** What selection methods accept as content or as a place: HTML text, nodes or a selection. */
  type CheerioContent = string | DomNode | DomNode[] | Cheerio<DomNode>;

  /** A filter: a selector, a node test, a node or a selection. */
  type CheerioFilter = string | ((this: DomNode, index: number, el: DomNode) => boolean) | DomNode | DomNode[] | Cheerio<DomNode>;

  /** What one key of an `extract` map reads: a selector's text, an attribute / property, or a nested map. */
  type ExtractDescriptor = string | { selector: string; value?: string | ((el: DomNode, key: string) => unknown) | ExtractMap };

  /** `extract`'s map: key → what to read (wrapped in `[ ]` to read every match). */
  type ExtractMap = { [key: string]: ExtractDescriptor | [ExtractDescriptor] };

  /** What one descriptor reads. */
  type ExtractedValue<V> = V extends string
    ? string
    : V extends { value: (...args: any[]) => infer R }
      ? R
      : V extends { value: infer N extends ExtractMap }
        ? Extracted<N>
        : string;

  /** The result of `extract(map)`. */
  type Extracted<M> = { [K in keyof M]: M[K] extends [infer V] ? Array<ExtractedValue<V>> : ExtractedValue<M[K]> | undefined };

  /** A selection of nodes (or, after `map`, of values), like a jQuery object. */
  interface Cheerio<T = DomNode> {
    /** The selected items. */
    [index: number]: T;
    /** How many are selected. */
    length: number;
    /** The options the document was parsed with. */
    options: CheerioParsedOptions;
    /** The selection this one was made from, or undefined. */
    prevObject: Cheerio<DomNode> | undefined;
    /** The library's version tag, `'[cheerio object]'`. */
    cheerio: '[cheerio object]';
    /** Array-like splice (so consoles show a selection as an array). */
    splice(start: number, deleteCount?: number, ...items: T[]): T[];
    /** Iterates the selected items. */
    [Symbol.iterator](): Iterator<T>;

    // attributes
    /** The first element's attribute `name`, or undefined. */
    attr(name: string): string | undefined;
    /** All attributes of the first element. */
    attr(): { [name: string]: string } | undefined;
    /** Sets (or with `null` removes) attributes on every element. */
    attr(name: string, value: string | number | null | ((this: DomNode, index: number, current: string) => string | null)): Cheerio<T>;
    attr(values: { [name: string]: string | null }): Cheerio<T>;
    /** The first element's tag name, upper case. */
    prop(name: 'tagName' | 'nodeName'): string | undefined;
    /** The first element's HTML or text. */
    prop(name: 'innerHTML' | 'outerHTML' | 'innerText' | 'textContent'): string | null;
    /** The first element's `href` / `src`, resolved against `baseURI` when given. */
    prop(name: 'href' | 'src'): string | undefined;
    /** The first element's property `name` (its type depends on the property). */
    prop(name: string): any;
    /** Sets a property on every element. */
    prop(name: string, value: unknown): Cheerio<T>;
    prop(values: { [name: string]: unknown }): Cheerio<T>;
    /** The first element's `data-*` values (all, or the one named). */
    data(): { [name: string]: unknown };
    data(name: string): unknown;
    /** Sets `data-*` values. */
    data(name: string, value: unknown): Cheerio<T>;
    data(values: { [name: string]: unknown }): Cheerio<T>;
    /** The value of the first input, select or textarea. */
    val(): string | string[] | undefined;
    /** Sets the value of every input, select or textarea. */
    val(value: string | string[]): Cheerio<T>;
    /** Removes attribute(s) (space-separated names) from every element. */
    removeAttr(name: string): Cheerio<T>;
    /** True when any element has the class. */
    hasClass(className: string): boolean;
    /** Adds class(es). */
    addClass(value?: string | ((this: DomNode, index: number, className: string) => string | undefined)): Cheerio<T>;
    /** Removes class(es); all of them without an argument. */
    removeClass(value?: string | ((this: DomNode, index: number, className: string) => string | undefined)): Cheerio<T>;
    /** Toggles class(es), or sets them when `state` is given. */
    toggleClass(value?: string | ((this: DomNode, index: number, className: string, state?: boolean) => string), state?: boolean): Cheerio<T>;
    /** Inline style of the first element (all, some or one property). */
    css(names?: string[]): { [property: string]: string } | undefined;
    css(name: string): string | undefined;
    /** Sets inline style. */
    css(name: string, value: string | ((this: DomNode, index: number, current: string) => string | undefined)): Cheerio<T>;
    css(values: { [property: string]: string }): Cheerio<T>;

    // traversing
    /** Descendants matching `selector` (or the given nodes, when they are descendants). */
    find(selector?: string | DomNode | Cheerio<DomNode>): Cheerio<DomNode>;
    /** Parent of each, optionally filtered. */
    parent(selector?: string): Cheerio<DomNode>;
    /** Ancestors of each, optionally filtered. */
    parents(selector?: string): Cheerio<DomNode>;
    /** Ancestors up to (not including) the one matching `selector`. */
    parentsUntil(selector?: string | DomNode | Cheerio<DomNode> | null, filter?: string): Cheerio<DomNode>;
    /** The closest ancestor-or-self matching `selector`. */
    closest(selector?: CheerioFilter): Cheerio<DomNode>;
    /** Next sibling element of each, optionally filtered. */
    next(selector?: string): Cheerio<DomNode>;
    /** All following sibling elements. */
    nextAll(selector?: string): Cheerio<DomNode>;
    /** Following siblings up to (not including) the one matching `selector`. */
    nextUntil(selector?: string | DomNode | Cheerio<DomNode> | null, filter?: string): Cheerio<DomNode>;
    /** Previous sibling element of each, optionally filtered. */
    prev(selector?: string): Cheerio<DomNode>;
    /** All preceding sibling elements. */
    prevAll(selector?: string): Cheerio<DomNode>;
    /** Preceding siblings up to (not including) the one matching `selector`. */
    prevUntil(selector?: string | DomNode | Cheerio<DomNode> | null, filter?: string): Cheerio<DomNode>;
    /** Sibling elements, optionally filtered. */
    siblings(selector?: string): Cheerio<DomNode>;
    /** Child elements, optionally filtered. */
    children(selector?: string): Cheerio<DomNode>;
    /** All child nodes, text and comments included. */
    contents(): Cheerio<DomNode>;
    /** Calls `fn` for each item; returning `false` stops. */
    each(fn: (this: T, index: number, el: T) => void | boolean): Cheerio<T>;
    /** A selection of what `fn` returns for each item (arrays are flattened; null / undefined left out). */
    map<M>(fn: (this: T, index: number, el: T) => M | M[] | null | undefined): Cheerio<M>;
    /** The items matching `match`. */
    filter(match: string | ((this: T, index: number, el: T) => boolean) | DomNode | DomNode[] | Cheerio<DomNode>): Cheerio<T>;
    /** The nodes of `nodes` matching `match` (used by `filter`). */
    filterArray<N>(nodes: N[], match: string | ((this: N, index: number, el: N) => boolean) | N | N[], xmlMode?: boolean, root?: DomNode): N[];
    /** True when any item matches. */
    is(selector?: string | ((this: T, index: number, el: T) => boolean) | DomNode | DomNode[] | Cheerio<DomNode>): boolean;
    /** The items not matching `match`. */
    not(match: string | ((this: T, index: number, el: T) => boolean) | DomNode | DomNode[] | Cheerio<DomNode>): Cheerio<T>;
    /** The elements having a descendant matching `selector`. */
    has(selector: string | DomNode | Cheerio<DomNode>): Cheerio<T>;
    /** The first item. */
    first(): Cheerio<T>;
    /** The last item. */
    last(): Cheerio<T>;
    /** The item at `index` (negative counts from the end). */
    eq(index: number): Cheerio<T>;
    /** The item at `index` (negative counts from the end), or undefined. */
    get(index: number): T | undefined;
    /** All items, as an array. */
    get(): T[];
    /** All items, as an array. */
    toArray(): T[];
    /** Position of the first item among its siblings, or of `needle` in this selection. */
    index(needle?: string | DomNode | Cheerio<DomNode>): number;
    /** Items `start` to `end`. */
    slice(start?: number, end?: number): Cheerio<T>;
    /** The selection before the last traversal. */
    end(): Cheerio<DomNode>;
    /** This selection plus `other`. */
    add(other: string | DomNode | DomNode[] | Cheerio<DomNode>, context?: string | Cheerio<DomNode>): Cheerio<DomNode>;
    /** This selection plus the previous one (optionally filtered). */
    addBack(selector?: string): Cheerio<DomNode>;

    // manipulation
    /** Inserts content at the end of each element. */
    append(...content: Array<CheerioContent | ((this: DomNode, index: number, html: string) => CheerioContent)>): Cheerio<T>;
    /** Inserts content at the start of each element. */
    prepend(...content: Array<CheerioContent | ((this: DomNode, index: number, html: string) => CheerioContent)>): Cheerio<T>;
    /** Moves the items to the end of `target`. */
    appendTo(target: CheerioContent): Cheerio<T>;
    /** Moves the items to the start of `target`. */
    prependTo(target: CheerioContent): Cheerio<T>;
    /** Inserts content after each item. */
    after(...content: Array<CheerioContent | ((this: DomNode, index: number, html: string) => CheerioContent)>): Cheerio<T>;
    /** Moves the items after `target`. */
    insertAfter(target: CheerioContent): Cheerio<T>;
    /** Inserts content before each item. */
    before(...content: Array<CheerioContent | ((this: DomNode, index: number, html: string) => CheerioContent)>): Cheerio<T>;
    /** Moves the items before `target`. */
    insertBefore(target: CheerioContent): Cheerio<T>;
    /** Wraps each item in `wrapper`. */
    wrap(wrapper: CheerioContent | ((this: DomNode, index: number, el: DomNode) => CheerioContent)): Cheerio<T>;
    /** Wraps the contents of each item in `wrapper`. */
    wrapInner(wrapper: CheerioContent | ((this: DomNode, index: number, el: DomNode) => CheerioContent)): Cheerio<T>;
    /** Wraps all items together in one `wrapper`. */
    wrapAll(wrapper: CheerioContent | ((this: DomNode, index: number, el: DomNode) => CheerioContent)): Cheerio<T>;
    /** Replaces each item's parent by the item (when the parent matches `selector`). */
    unwrap(selector?: string): Cheerio<T>;
    /** Removes the items (those matching `selector`) from the document. */
    remove(selector?: string): Cheerio<T>;
    /** Replaces each item by `content`. */
    replaceWith(content: CheerioContent | ((this: DomNode, index: number, el: DomNode) => CheerioContent)): Cheerio<T>;
    /** Removes the children of each element. */
    empty(): Cheerio<T>;
    /** Copies of the items. */
    clone(): Cheerio<T>;

    // rendering
    /** Inner HTML of the first item, or null when none. */
    html(): string | null;
    /** Sets the inner HTML of each element. */
    html(content: string | Cheerio<DomNode>): Cheerio<T>;
    /** The combined text of the items and their descendants. */
    text(): string;
    /** Sets the text of each element. */
    text(content: string | ((this: DomNode, index: number, text: string) => string)): Cheerio<T>;
    /** Outer HTML of the items. */
    toString(): string;
    /** Form controls as a URL-encoded string. */
    serialize(): string;
    /** Form controls as `{ name, value }` pairs. */
    serializeArray(): Array<{ name: string; value: string }>;
    /** Reads several values at once, e.g. `{ title: 'h1', links: [{ selector: 'a', value: 'href' }] }`. */
    extract<M extends ExtractMap>(map: M): Extracted<M>;
  }

  /** `$` of a parsed document: selects nodes, and has cheerio's static helpers. */
  interface CheerioAPI {
    /** Nodes matching `selector` (within `context`), or a selection of the given nodes. */
    (selector?: CheerioContent | null, context?: CheerioContent | null, root?: string | DomNode, options?: CheerioOptions): Cheerio<DomNode>;
    /** The whole document's HTML, or the given nodes' outer HTML. */
    html(dom?: CheerioContent | CheerioOptions, options?: CheerioOptions): string;
    /** The whole document (or the given nodes) as XML. */
    xml(dom?: CheerioContent): string;
    /** The text of the whole document, or of the given nodes. */
    text(nodes?: ArrayLike<DomNode>): string;
    /** Parses an HTML fragment into nodes (scripts dropped unless `keepScripts`). */
    parseHTML(data: string, context?: unknown, keepScripts?: boolean): DomNode[];
    parseHTML(data?: '' | null): null;
    /** The document root, as a selection. */
    root(): Cheerio<DomNode>;
    /** True when `contained` is a descendant of `container`. */
    contains(container: DomNode, contained: DomNode): boolean;
    /** Reads several values from the document at once (see `Cheerio.extract`). */
    extract<M extends ExtractMap>(map: M): Extracted<M>;
    /** Appends the items of `second` to `first` (array-likes); returns `first`. */
    merge<N>(first: ArrayLike<N>, second: ArrayLike<N>): ArrayLike<N> | undefined;
    /** Parses another document, like `D.htmlParse`. */
    load(content: string | Buffer | DomNode | DomNode[], options?: CheerioOptions | null, isDocument?: boolean): CheerioAPI;
    /** The prototype of selections (to add methods). */
    fn: Cheerio<DomNode>;
  }
}
