// Bounds on what a YAML inventory may make the loader do, checked on the parsed document before
// it is turned into values: a few aliases that each repeat the one before ("billion laughs")
// expand a small file exponentially; the yaml library resolves each alias by scanning every
// anchor and alias (quadratic in their count); deep nesting overflows the stack. One walk,
// linear in the document's nodes, answers the first bound crossed with its line and column.
import { isAlias, isCollection, isPair, isScalar, type Document, type LineCounter, type Node } from 'yaml';

export const INVENTORY_YAML_BOUNDS = {
  /** Alias nodes (`*name`) in one document. */
  maxAliases: 10_000,
  /** Values of the document with every alias expanded (an inventory of 50,000 devices has ~1M). */
  maxExpandedNodes: 2_000_000,
  /** Collections inside collections. */
  maxDepth: 100,
} as const;

/** The first bound the document crosses, as an inventory problem ("line L, column C: …"), or null. */
export function yamlBoundProblem(doc: Document, lines: LineCounter): string | null {
  const { maxAliases, maxExpandedNodes, maxDepth } = INVENTORY_YAML_BOUNDS;
  const at = (node: unknown) => {
    const range = (node as { range?: [number, number, number] }).range;
    if (!range) return '';
    const pos = lines.linePos(range[0]);
    return `line ${pos.line}, column ${pos.col}: `;
  };
  // Expanded size of each anchored node by anchor name (the latest one wins, as YAML resolves).
  const anchorSize = new Map<string, number>();
  let aliases = 0;
  let expanded = 0;
  // Iterative post-order walk: a frame per collection, so depth costs no stack.
  interface Frame { node: Node; children: unknown[]; next: number; size: number }
  const stack: Frame[] = [];
  const enter = (value: unknown): number | string | null => {
    // Answers the size of a leaf, null after pushing a collection, or a problem.
    if (value === null || value === undefined) return 0;
    if (isAlias(value)) {
      aliases += 1;
      if (aliases > maxAliases) return `${at(value)}more than ${maxAliases} aliases (*name); an inventory may use at most ${maxAliases}`;
      const size = anchorSize.get(value.source) ?? 0;
      expanded += size;
      if (expanded > maxExpandedNodes) {
        return `${at(value)}the alias *${value.source} expands the document past ${maxExpandedNodes} values (aliases repeating aliases); an inventory may expand to at most ${maxExpandedNodes}`;
      }
      return size;
    }
    if (isScalar(value)) {
      expanded += 1;
      if (value.anchor) anchorSize.set(value.anchor, 1);
      return 1;
    }
    if (isCollection(value)) {
      if (stack.length >= maxDepth) return `${at(value)}nested more than ${maxDepth} levels deep; an inventory may nest at most ${maxDepth}`;
      expanded += 1;
      const children: unknown[] = [];
      for (const item of value.items as unknown[]) {
        if (isPair(item)) children.push(item.key, item.value);
        else children.push(item);
      }
      stack.push({ node: value, children, next: 0, size: 1 });
      return null;
    }
    return 0;
  };
  const first = enter(doc.contents);
  if (typeof first === 'string') return first;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next < frame.children.length) {
      const child = enter(frame.children[frame.next++]);
      if (typeof child === 'string') return child;
      if (child !== null) frame.size += child;
      continue;
    }
    stack.pop();
    const anchor = (frame.node as { anchor?: string }).anchor;
    if (anchor) anchorSize.set(anchor, frame.size);
    if (stack.length > 0) stack[stack.length - 1]!.size += frame.size;
  }
  return null;
}

/** The yaml library's own words for a stack overflow while composing, said as the bound it is. */
export function isStackOverflowMessage(message: string): boolean {
  return /Maximum call stack size exceeded/i.test(message);
}
