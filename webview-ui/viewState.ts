/**
 * View-only state the webview keeps across hide/reload (through `vscode.setState`): the composer
 * draft and which cards the user expanded or collapsed. Nothing here is authoritative.
 */
import { createContext } from 'preact';
import { useContext, useReducer } from 'preact/hooks';
import type { Attachment } from './viewModel.ts';

export interface PersistedViewState {
  draft: string;
  /** Attachments without images (image bytes are not worth persisting). */
  attachments: Attachment[];
  /** Item-part keys the user toggled, with the state they chose. */
  toggled: Record<string, boolean>;
  /** The session shown: a chat in an editor tab is restored to it after a window reload. */
  sessionId?: string;
}

const MAX_TOGGLED = 500;

export class ViewState {
  private state: PersistedViewState;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    initial: unknown,
    private readonly save: (state: PersistedViewState) => void = () => {},
  ) {
    const s = (typeof initial === 'object' && initial !== null ? initial : {}) as Partial<PersistedViewState>;
    this.state = {
      draft: typeof s.draft === 'string' ? s.draft : '',
      attachments: Array.isArray(s.attachments) ? s.attachments.filter((a) => a && a.kind !== 'image') : [],
      toggled: typeof s.toggled === 'object' && s.toggled !== null ? s.toggled : {},
      ...(typeof s.sessionId === 'string' ? { sessionId: s.sessionId } : {}),
    };
  }

  get draft(): string {
    return this.state.draft;
  }

  get attachments(): Attachment[] {
    return this.state.attachments;
  }

  isOpen(key: string, defaultOpen: boolean): boolean {
    return this.state.toggled[key] ?? defaultOpen;
  }

  setOpen(key: string, open: boolean): void {
    const toggled = { ...this.state.toggled };
    delete toggled[key];
    toggled[key] = open;
    // Keep the most recent choices only (old sessions' cards are gone anyway).
    const keys = Object.keys(toggled);
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_TOGGLED))) delete toggled[old];
    this.state.toggled = toggled;
    this.persist();
  }

  setSession(sessionId: string | undefined): void {
    if (sessionId === this.state.sessionId) return;
    this.state.sessionId = sessionId;
    this.persist();
  }

  setDraft(draft: string, attachments: Attachment[]): void {
    this.state.draft = draft;
    this.state.attachments = attachments.filter((a) => a.kind !== 'image');
    this.persist();
  }

  private persist(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save(this.state), 300);
  }
}

export const ViewStateContext = createContext<ViewState>(new ViewState(undefined));

/** Open/closed state of a collapsible part, remembered across reloads. */
export function useToggle(key: string, defaultOpen: boolean): [boolean, () => void] {
  const view = useContext(ViewStateContext);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const open = view.isOpen(key, defaultOpen);
  return [
    open,
    () => {
      view.setOpen(key, !open);
      rerender(0);
    },
  ];
}
