// Reading a WS-Management message: a strict, streaming XML parser (saxes) fed as the bytes
// arrive, keeping only the elements asked for. Linear in the message's size whatever its shape
// (no regular expression rescans it), no DTD and no entity but XML's five predefined ones, so a
// hostile device's answer costs the host what its bytes cost. Elements are matched by local
// name: servers' namespace prefixes vary.
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export interface XmlElement {
  /** Attributes by local name (a prefix such as xml: dropped), as the parser decoded them. */
  attributes: Record<string, string>;
  /** The text inside, entities decoded; '' for elements read without text. */
  text: string;
}

export interface XmlNames {
  /** Elements read with their text (and that of their descendants). */
  withText: readonly string[];
  /** Elements read for their attributes only (containers such as a fault). */
  withoutText?: readonly string[];
}

/** The elements found, by local name, in document order. */
export class XmlDocument {
  constructor(
    readonly root: string,
    private readonly found: Map<string, XmlElement[]>,
  ) {}

  all(name: string): XmlElement[] {
    return this.found.get(name) ?? [];
  }

  first(name: string): XmlElement | null {
    return this.found.get(name)?.[0] ?? null;
  }
}

/** Why a message is not well-formed XML (the parser's line:column and reason). */
export class XmlMalformedError extends Error {}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * Feed `write` as text arrives, then `end` for the document. A malformed message stops the
 * parse at its first error (later text is ignored), and `end` throws it.
 */
export class XmlReader {
  readonly #parser = new SaxesParser({ xmlns: false, position: true });
  readonly #text: Set<string>;
  readonly #marks: Set<string>;
  readonly #found = new Map<string, XmlElement[]>();
  #depth = 0;
  #root: string | null = null;
  /** The element whose text is being gathered; those inside it are read as part of its text. */
  #open: { element: XmlElement; depth: number; parts: string[] } | null = null;
  #error: string | null = null;

  constructor(names: XmlNames) {
    this.#text = new Set(names.withText);
    this.#marks = new Set(names.withoutText ?? []);
    const parser = this.#parser;
    parser.on('error', (error) => {
      throw new XmlMalformedError(error.message);
    });
    // SOAP forbids a document type declaration (SOAP 1.2 part 1, 5); refusing it means no DTD entities at all.
    parser.on('doctype', () => {
      throw new XmlMalformedError('a SOAP message may not have a document type declaration');
    });
    parser.on('opentag', (tag: SaxesTagPlain) => this.#openTag(tag));
    parser.on('closetag', () => this.#closeTag());
    parser.on('text', (text) => this.#open?.parts.push(text));
    parser.on('cdata', (text) => this.#open?.parts.push(text));
  }

  #openTag(tag: SaxesTagPlain): void {
    this.#depth++;
    const name = localName(tag.name);
    this.#root ??= name;
    if (this.#open) return;
    const withText = this.#text.has(name);
    if (!withText && !this.#marks.has(name)) return;
    // A null prototype: attribute names are the device's, "__proto__" included.
    const attributes: Record<string, string> = Object.create(null);
    for (const [key, value] of Object.entries(tag.attributes)) attributes[localName(key)] = value;
    const element: XmlElement = { attributes, text: '' };
    let list = this.#found.get(name);
    if (!list) this.#found.set(name, (list = []));
    list.push(element);
    if (withText && !tag.isSelfClosing) this.#open = { element, depth: this.#depth, parts: [] };
  }

  #closeTag(): void {
    if (this.#open && this.#open.depth === this.#depth) {
      this.#open.element.text = this.#open.parts.join('');
      this.#open = null;
    }
    this.#depth--;
  }

  /** Parses the next piece of the message (a string: the caller decodes bytes across chunks). */
  write(text: string): void {
    if (this.#error !== null || text === '') return;
    try {
      this.#parser.write(text);
    } catch (error) {
      this.#error = error instanceof XmlMalformedError ? error.message : `the XML parser failed: ${(error as Error).message}`;
    }
  }

  /** The document, or XmlMalformedError when the message was not one well-formed XML document. */
  end(): XmlDocument {
    if (this.#error === null) {
      try {
        this.#parser.close();
      } catch (error) {
        this.#error = error instanceof XmlMalformedError ? error.message : `the XML parser failed: ${(error as Error).message}`;
      }
    }
    if (this.#error !== null) throw new XmlMalformedError(this.#error);
    return new XmlDocument(this.#root!, this.#found);
  }
}

/** A whole message read at once. */
export function readXml(xml: string, names: XmlNames): XmlDocument {
  const reader = new XmlReader(names);
  reader.write(xml);
  return reader.end();
}
