/**
 * The webview's copy of the host's state: a snapshot plus numbered patches, applied with the
 * `applyTranscriptOps` of transcriptOps.ts (the same function the host uses). Subscribers are notified at
 * most once per frame, so 10k streamed deltas cost at most one render per frame.
 */
import { DEFAULT_CHAT_SETTINGS, type ChatSettings } from './contract.ts';
import { emptySessionView, type ChatSnapshot, type SessionView, type TranscriptItem } from './viewModel.ts';
import { applyTranscriptOps, itemList, type ChatPatch, type ItemList } from './transcriptOps.ts';

export interface ChatState {
  /** false until the first snapshot arrived. */
  ready: boolean;
  seq: number;
  session: SessionView;
  items: TranscriptItem[];
  settings: ChatSettings;
}

/** Runs `callback` later (requestAnimationFrame in the webview; synchronous in tests). */
export type Scheduler = (callback: () => void) => void;

const frameScheduler: Scheduler = (callback) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => callback());
  else setTimeout(callback, 16);
};

export class ChatStore {
  private list: ItemList = itemList();
  private state: ChatState = { ready: false, seq: 0, session: emptySessionView(), items: [], settings: DEFAULT_CHAT_SETTINGS };
  private readonly listeners = new Set<(state: ChatState) => void>();
  private scheduled = false;

  constructor(private readonly schedule: Scheduler = frameScheduler) {}

  get current(): ChatState {
    return this.state;
  }

  subscribe(listener: (state: ChatState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  applySnapshot(snapshot: ChatSnapshot): void {
    this.list = itemList(snapshot.items.slice());
    this.state = { ...this.state, ready: true, seq: snapshot.seq, session: snapshot.session, items: this.list.items };
    this.changed();
  }

  /** Applies a patch; returns false when it does not follow the current seq (ask for a snapshot). */
  applyPatch(patch: ChatPatch): boolean {
    if (!this.state.ready) return false;
    if (patch.seq <= this.state.seq) return true; // already part of the snapshot
    if (patch.seq !== this.state.seq + 1) return false;
    applyTranscriptOps(this.list, patch.ops);
    this.state = {
      ...this.state,
      ready: true,
      seq: patch.seq,
      session: patch.session ? { ...this.state.session, ...patch.session } : this.state.session,
      items: this.list.items,
    };
    this.changed();
    return true;
  }

  applySettings(settings: ChatSettings): void {
    this.state = { ...this.state, settings };
    this.changed();
  }

  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      for (const listener of [...this.listeners]) listener(this.state);
    });
  }
}
