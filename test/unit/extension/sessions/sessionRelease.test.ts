/**
 * sessionRelease.ts with an in-memory host and session list: a session is closed once no chat shows
 * it, no prompt runs in it, no form of it waits, none of its background tasks runs and no load is
 * on its way — and only then.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BackgroundTasksNotification } from '../../../../bridge/acp/extensions/contractDescriptors.ts';
import { SessionRelease, type ReleasableSessions, type SessionReleaseHost } from '../../../../extension/sessions/sessionRelease.ts';
import { Emitter } from '../../../helpers/emitter.ts';

class FakeHost implements SessionReleaseHost {
  loading = false;
  readonly busy = new Set<string>();
  readonly settled = new Emitter<void>();
  readonly ext = new Emitter<{ method: string; params: unknown }>();
  onDidSettle = this.settled.event;
  onExtNotification = this.ext.event;
  isBusy(sessionId: string): boolean {
    return this.busy.has(sessionId);
  }
  /** Ends the session's prompt or form, as the real host does. */
  settle(sessionId: string): void {
    this.busy.delete(sessionId);
    this.settled.fire();
  }
  tasks(sessionId: string, status: string): void {
    this.ext.fire({ method: BackgroundTasksNotification.method, params: { sessionId, tasks: [{ id: 't1', kind: 'shell', description: 'build', status }] } });
  }
}

class FakeSessions implements ReleasableSessions {
  readonly open = new Set<string>();
  readonly closed: string[] = [];
  readonly active = new Emitter<string | undefined>();
  activeSessionId: string | undefined;
  onDidChangeActiveSession = this.active.event;
  get openSessions(): ReadonlySet<string> {
    return new Set(this.open);
  }
  async closeSession(sessionId: string): Promise<void> {
    if (this.open.delete(sessionId)) this.closed.push(sessionId);
  }
  show(sessionId: string): void {
    this.open.add(sessionId);
    this.activeSessionId = sessionId;
    this.active.fire(sessionId);
  }
}

function setup() {
  const host = new FakeHost();
  const sessions = new FakeSessions();
  const tabs = new Set<string>();
  const logged: string[] = [];
  const release = new SessionRelease(host, sessions, (id) => sessions.activeSessionId === id || tabs.has(id), (m) => logged.push(m));
  return { host, sessions, tabs, release, logged };
}

describe('SessionRelease', () => {
  test('leaving a session closes it; the one shown stays open', () => {
    const { sessions } = setup();
    sessions.show('a');
    assert.deepEqual(sessions.closed, []);
    sessions.show('b');
    assert.deepEqual(sessions.closed, ['a']);
    assert.deepEqual([...sessions.open], ['b']);
  });

  test('a session shown in a tab is not closed; closing the tab (a sweep) closes it', () => {
    const { sessions, tabs, release } = setup();
    sessions.open.add('tab');
    tabs.add('tab');
    sessions.show('a');
    assert.deepEqual(sessions.closed, []);
    tabs.delete('tab');
    release.sweep();
    assert.deepEqual(sessions.closed, ['tab']);
  });

  test('a session left while its turn runs (or a form waits) is closed when that ends', () => {
    const { host, sessions } = setup();
    sessions.show('a');
    host.busy.add('a');
    sessions.show('b');
    assert.deepEqual(sessions.closed, []);
    host.settle('a');
    assert.deepEqual(sessions.closed, ['a']);
  });

  test('a session shown again before its turn ended is not closed', () => {
    const { host, sessions } = setup();
    sessions.show('a');
    host.busy.add('a');
    sessions.show('b');
    sessions.show('a');
    host.settle('a');
    assert.deepEqual(sessions.closed, ['b']);
  });

  test('a running background task keeps its session open until the list says it ended', () => {
    const { host, sessions } = setup();
    sessions.show('a');
    host.tasks('a', 'running');
    sessions.show('b');
    assert.deepEqual(sessions.closed, []);
    host.tasks('a', 'completed');
    assert.deepEqual(sessions.closed, ['a']);
  });

  test('nothing is closed while a load is on its way (a failed load shows the previous session again)', () => {
    const { host, sessions } = setup();
    sessions.show('a');
    host.loading = true;
    sessions.show('b');
    assert.deepEqual(sessions.closed, []);
    host.loading = false;
    host.settled.fire();
    assert.deepEqual(sessions.closed, ['a']);
  });

  test('a failed close is logged, not thrown', async () => {
    const { sessions, logged } = setup();
    sessions.closeSession = async () => {
      throw new Error('bridge gone');
    };
    sessions.show('a');
    sessions.show('b');
    await new Promise((r) => setImmediate(r));
    assert.match(logged.join('\n'), /could not close session a: bridge gone/);
  });
});
