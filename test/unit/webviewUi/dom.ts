/**
 * A happy-dom window installed as the global DOM for component tests. Import this module FIRST
 * in a test file (ES modules evaluate in import order), then render with `mount()`.
 */
import { after } from 'node:test';
import { Window } from 'happy-dom';
import { render, type ComponentChild } from 'preact';
import { act } from 'preact/test-utils';
import { installPolymorphicGetters, installSpecNodeIterator } from './happyDomFixes.ts';

const happy = new Window({ url: 'https://webview.invalid/', width: 800, height: 600 });
const win = happy as unknown as Record<string, unknown>;
const g = globalThis as Record<string, unknown>;
// DOM classes and functions Node lacks; Node's own Event family and File/Blob are replaced because
// happy-dom only accepts its own (dispatchEvent, DataTransfer, FileReader).
const FORCE = new Set(['Event', 'CustomEvent', 'EventTarget', 'KeyboardEvent', 'MouseEvent', 'InputEvent', 'FocusEvent', 'MessageEvent', 'ClipboardEvent', 'navigator', 'File', 'Blob', 'FileReader', 'DataTransfer']);
const names = new Set<string>();
for (let o: object | null = happy; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) for (const k of Object.getOwnPropertyNames(o)) names.add(k);
for (const k of names) {
  if (k in g && !FORCE.has(k)) continue;
  if (k === 'constructor' || k.startsWith('_')) continue;
  try {
    const v = win[k];
    const value = typeof v === 'function' && !/^[A-Z]/.test(k) ? (v as (...a: unknown[]) => unknown).bind(happy) : v;
    Object.defineProperty(g, k, { value, configurable: true, writable: true });
  } catch {
    // a getter that throws outside a browsing context: not needed
  }
}
g.window = happy;
installSpecNodeIterator(happy.document as unknown as Document, happy.NodeFilter as unknown as { FILTER_ACCEPT: number });
installPolymorphicGetters(happy.document as unknown as Document);

after(async () => {
  await happy.happyDOM.abort();
  await happy.happyDOM.close();
});

export const document = happy.document as unknown as Document;

/** Renders into a fresh container attached to the body; effects are flushed. */
export function mount(vnode: ComponentChild): HTMLElement {
  const container = document.createElement('div');
  document.body.appendChild(container);
  act(() => render(vnode, container));
  return container;
}

export function unmount(container: HTMLElement): void {
  act(() => render(null, container));
  container.remove();
}

/** Runs a DOM interaction and flushes Preact's re-render. */
export function interact(run: () => void): void {
  act(run);
}

export function setValue(el: Element | null, value: string, event: 'input' | 'change' = 'input'): void {
  if (!el) throw new Error('element not found');
  act(() => {
    (el as HTMLInputElement).value = value;
    el.dispatchEvent(new Event(event, { bubbles: true }));
  });
}

export function setChecked(el: Element | null, checked: boolean): void {
  if (!el) throw new Error('element not found');
  act(() => {
    (el as HTMLInputElement).checked = checked;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

export function click(el: Element | null): void {
  if (!el) throw new Error('element not found');
  act(() => (el as HTMLElement).click());
}

export function key(el: Element | null, keyName: string, init: KeyboardEventInit = {}): KeyboardEvent {
  if (!el) throw new Error('element not found');
  const event = new KeyboardEvent('keydown', { key: keyName, bubbles: true, cancelable: true, ...init });
  act(() => void el.dispatchEvent(event));
  return event;
}

/** A button by its visible text. */
export function button(root: ParentNode, text: string | RegExp): HTMLButtonElement {
  const all = [...root.querySelectorAll('button')];
  const found = all.find((b) => (typeof text === 'string' ? b.textContent?.trim() === text : text.test(b.textContent ?? '')));
  if (!found) throw new Error(`no button ${String(text)} among: ${all.map((b) => JSON.stringify(b.textContent?.trim())).join(', ')}`);
  return found as HTMLButtonElement;
}
