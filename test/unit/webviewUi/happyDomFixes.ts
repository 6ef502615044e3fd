/**
 * happy-dom gaps that matter to DOMPurify, fixed for the tests so the sanitiser runs its real
 * algorithm (as in Chromium) instead of failing open or closed:
 *
 * 1. A spec-conformant, live `NodeIterator`.
 * Why: happy-dom's NodeIterator is a TreeWalker underneath and ignores the DOM standard's
 * "NodeIterator pre-removing steps", so an iterator whose current node is removed stops early.
 * DOMPurify removes nodes while iterating (and relies on the standard behaviour, as every browser
 * implements it), so under plain happy-dom it silently leaves `<script>` and handlers in place.
 *    (https://dom.spec.whatwg.org/#interface-nodeiterator)
 * 2. Polymorphic `Node.prototype` getters. In browsers `Object.getOwnPropertyDescriptor(
 *    Node.prototype, 'nodeName').get.call(element)` gives "DIV"; happy-dom's base getters return
 *    "" because subclasses override them. DOMPurify reads nodeName/textContent through those base
 *    getters (so that DOM clobbering cannot fool it), and would then treat every element as "".
 */

type N = Node & { [key: symbol]: unknown };

const live = new Set<WeakRef<SpecNodeIterator>>();

function following(node: Node, root: Node): Node | null {
  if (node.firstChild) return node.firstChild;
  return followingSkippingChildren(node, root);
}

function followingSkippingChildren(node: Node, root: Node): Node | null {
  for (let n: Node | null = node; n && n !== root; n = n.parentNode) if (n.nextSibling) return n.nextSibling;
  return null;
}

function preceding(node: Node, root: Node): Node | null {
  if (node === root) return null;
  let prev = node.previousSibling;
  if (!prev) return node.parentNode;
  while (prev.lastChild) prev = prev.lastChild;
  return prev;
}

class SpecNodeIterator {
  private reference: Node;
  private pointerBeforeReference = true;
  constructor(
    readonly root: Node,
    readonly whatToShow: number,
    readonly filter: NodeFilter | ((node: Node) => number) | null,
    private readonly NodeFilterConst: { FILTER_ACCEPT: number },
  ) {
    this.reference = root;
    live.add(new WeakRef(this));
  }
  get referenceNode(): Node {
    return this.reference;
  }
  get pointerBeforeReferenceNode(): boolean {
    return this.pointerBeforeReference;
  }
  private accept(node: Node): boolean {
    if (!((1 << (node.nodeType - 1)) & this.whatToShow)) return false;
    if (!this.filter) return true;
    const result = typeof this.filter === 'function' ? this.filter(node) : this.filter.acceptNode(node);
    return result === this.NodeFilterConst.FILTER_ACCEPT;
  }
  private traverse(next: boolean): Node | null {
    let node: Node | null = this.reference;
    let before = this.pointerBeforeReference;
    for (;;) {
      if (next) {
        if (!before) {
          node = following(node!, this.root);
          if (!node) return null;
        } else before = false;
      } else if (before) {
        node = preceding(node!, this.root);
        if (!node) return null;
      } else before = true;
      if (this.accept(node!)) break;
    }
    this.reference = node!;
    this.pointerBeforeReference = before;
    return node;
  }
  nextNode(): Node | null {
    return this.traverse(true);
  }
  previousNode(): Node | null {
    return this.traverse(false);
  }
  detach(): void {}
  /** The standard's pre-removing steps. */
  preRemove(toBeRemoved: Node): void {
    if (toBeRemoved === this.root || !toBeRemoved.contains(this.reference) || !this.root.contains(toBeRemoved)) return;
    if (this.pointerBeforeReference) {
      const next = followingSkippingChildren(toBeRemoved, this.root);
      if (next) {
        this.reference = next;
        return;
      }
      this.pointerBeforeReference = false;
    }
    this.reference = preceding(toBeRemoved, this.root) ?? this.root;
  }
}

function notifyRemoval(node: Node): void {
  for (const ref of live) {
    const it = ref.deref();
    if (!it) live.delete(ref);
    else it.preRemove(node);
  }
}

function ownerOf(obj: object, key: string | symbol): Record<string | symbol, unknown> | undefined {
  for (let o: object | null = obj; o; o = Object.getPrototypeOf(o)) if (Object.prototype.hasOwnProperty.call(o, key)) return o as Record<string | symbol, unknown>;
  return undefined;
}

/**
 * Replaces `createNodeIterator` and hooks happy-dom's internal child removal, on the prototypes
 * that actually define them (happy-dom has per-window subclasses above the base classes).
 */
export function installSpecNodeIterator(document: Document, NodeFilterConst: { FILTER_ACCEPT: number }): void {
  const element = document.createElement('div');
  const removeSymbol = (() => {
    for (let o: object | null = element; o; o = Object.getPrototypeOf(o)) {
      const s = Object.getOwnPropertySymbols(o).find((x) => x.description === 'removeChild');
      if (s) return s;
    }
    return undefined;
  })();
  if (!removeSymbol) throw new Error('happy-dom internals changed: no removeChild symbol');
  // Every class's removal ends in the base Node implementation (overrides call super).
  let base: Record<symbol, unknown> | undefined;
  for (let o: object | null = element; o; o = Object.getPrototypeOf(o)) if (Object.prototype.hasOwnProperty.call(o, removeSymbol)) base = o as Record<symbol, unknown>;
  if (!base) throw new Error('happy-dom internals changed: removeChild not found');
  const original = base[removeSymbol] as (this: N, child: Node) => Node;
  base[removeSymbol] = function (this: N, child: Node): Node {
    if (live.size) notifyRemoval(child);
    return original.call(this, child);
  };
  const docProto = ownerOf(document, 'createNodeIterator');
  if (!docProto) throw new Error('happy-dom internals changed: no createNodeIterator');
  docProto.createNodeIterator = function (root: Node, whatToShow = 0xffffffff, filter: NodeFilter | null = null) {
    return new SpecNodeIterator(root, whatToShow, filter, NodeFilterConst);
  };
}

/** Makes the base getters of `names` dispatch to the most derived getter, like browsers' IDL attributes do. */
export function installPolymorphicGetters(document: Document, names: string[] = ['nodeName', 'textContent']): void {
  const element = document.createElement('div');
  for (const name of names) {
    let base: object | undefined;
    for (let o: object | null = element; o; o = Object.getPrototypeOf(o)) if (Object.prototype.hasOwnProperty.call(o, name)) base = o;
    if (!base) continue;
    const baseDescriptor = Object.getOwnPropertyDescriptor(base, name)!;
    Object.defineProperty(base, name, {
      configurable: true,
      enumerable: baseDescriptor.enumerable,
      get(this: object) {
        for (let o: object | null = Object.getPrototypeOf(this); o && o !== base; o = Object.getPrototypeOf(o)) {
          const d = Object.getOwnPropertyDescriptor(o, name);
          if (d?.get) return d.get.call(this);
        }
        return baseDescriptor.get?.call(this);
      },
      set(this: object, value: unknown) {
        for (let o: object | null = Object.getPrototypeOf(this); o && o !== base; o = Object.getPrototypeOf(o)) {
          const d = Object.getOwnPropertyDescriptor(o, name);
          if (d?.set) return d.set.call(this, value);
        }
        baseDescriptor.set?.call(this, value);
      },
    });
  }
}
