// What the running zcode can do, as the extension tracks it (extension/zcodeFeatures.ts): asked
// once zcode is up, followed by the bridge's change notification, turned into the context keys
// that enable the palette's Steer / Rewind / Retry / Fork-from-reply entries.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CapabilitiesChangedNotification, CapabilitiesRequest } from '../../../bridge/acp/extensions/contractDescriptors.ts';
import type { ExtensionRequest, ResultOf, ZcodeCapabilities } from '../../../bridge/acp/extensions/contractDescriptors.ts';
import { parseNotification, parseResult } from '../../../bridge/acp/extensions/contractSchemas.ts';
import { blockedReason, contextKeys, FEATURE_CONTEXT_KEYS, unknownCapabilities, ZcodeFeatures, type FeaturesHost } from '../../../extension/zcodeFeatures.ts';
import { allAvailable } from '../../helpers/capabilities.ts';

const yes = { available: true };
const no = (reason: string) => ({ available: false, reason });

/** A v4 build: everything available. */
function v4(): ZcodeCapabilities {
  return allAvailable({ modes: ['build', 'plan'] });
}

/** A build without v4: only checkpoint forks. */
function legacy(): ZcodeCapabilities {
  const missing = no('not supported by this zcode build');
  return {
    ...v4(),
    v4: false,
    steer: missing,
    rewindLatestPrompt: missing,
    rewindWithFiles: missing,
    rewindEarlier: missing,
    fileRewind: missing,
    retryTurn: missing,
    rename: missing,
    forkAssistant: missing,
    queueEdit: missing,
  };
}

type Listener<E> = (e: E) => unknown;

/** The host seam: state changes and notifications are driven by the test, each call answered by it. */
class FakeHost implements FeaturesHost {
  state = 'notStarted';
  readonly calls: { method: string; answer: (value: ZcodeCapabilities) => void; fail: (error: Error) => void }[] = [];
  private readonly notificationListeners = new Set<Listener<{ method: string; params: unknown }>>();
  private readonly stateListeners = new Set<Listener<string>>();

  call<D extends ExtensionRequest>(descriptor: D): Promise<ResultOf<D>> {
    return new Promise<ResultOf<D>>((answer, fail) => this.calls.push({ method: descriptor.method, answer: (value) => answer(parseResult(descriptor, value)), fail }));
  }
  onExtNotification = (listener: Listener<{ method: string; params: unknown }>) => {
    this.notificationListeners.add(listener);
    return { dispose: () => this.notificationListeners.delete(listener) };
  };
  onDidChangeState = (listener: Listener<string>) => {
    this.stateListeners.add(listener);
    return { dispose: () => this.stateListeners.delete(listener) };
  };
  setState(state: string): void {
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }
  notify(capabilities: ZcodeCapabilities): void {
    for (const l of this.notificationListeners) l({ method: CapabilitiesChangedNotification.method, params: capabilities });
  }
}

const options = { notStartedReason: 'zcode has not started yet', stoppedReason: 'zcode is not running', noReason: 'not available with this zcode' };

describe('ZcodeFeatures', () => {
  test('before zcode starts nothing is asked and every feature says why it is unavailable', () => {
    const host = new FakeHost();
    const features = new ZcodeFeatures(host, options);
    assert.equal(host.calls.length, 0, 'asking would create the bridge during activation');
    assert.deepEqual(features.availability('steer'), { available: false, reason: 'zcode has not started yet' });
    assert.equal(features.capabilities.probed, false);
  });

  test('once zcode is up it asks the bridge and reports the answer', async () => {
    const host = new FakeHost();
    const features = new ZcodeFeatures(host, options);
    const seen: ZcodeCapabilities[] = [];
    features.onDidChange((c) => seen.push(c));
    host.setState('ready');
    assert.deepEqual(host.calls.map((c) => c.method), [CapabilitiesRequest.method]);
    host.calls[0].answer(legacy());
    await features.refresh();
    assert.equal(seen.length, 1);
    assert.deepEqual(features.availability('steer'), { available: false, reason: 'not supported by this zcode build' });
    assert.equal(features.availability('forkCheckpoint').available, true);
  });

  test('the change notification replaces what is known; an older answer arriving later does not overwrite it', async () => {
    const host = new FakeHost();
    const features = new ZcodeFeatures(host, options);
    host.setState('ready');
    host.notify(v4());
    assert.equal(features.availability('steer').available, true);
    // The request was sent before the notification: its (older) answer is stale.
    host.calls[0].answer(unknownCapabilities('zcode has not been started yet'));
    await features.refresh();
    assert.equal(host.calls.length, 1, 'the pending request was shared, not repeated');
    assert.equal(features.availability('steer').available, true);
  });

  test('a crash makes everything unknown until zcode answers again', () => {
    const host = new FakeHost();
    const features = new ZcodeFeatures(host, options);
    host.notify(v4());
    host.setState('crashed');
    assert.deepEqual(features.availability('rewindLatestPrompt'), { available: false, reason: 'zcode is not running' });
  });

  test('an identical notification fires no change; a malformed one is ignored', () => {
    const host = new FakeHost();
    const features = new ZcodeFeatures(host, options);
    let changes = 0;
    features.onDidChange(() => changes++);
    host.notify(v4());
    host.notify(v4());
    // The ACP client parses every `_zcode/*` notification at its boundary and passes on only what
    // the contract accepts (extension/acpClient.ts): a malformed one never reaches the listeners.
    const malformed = parseNotification({ method: CapabilitiesChangedNotification.method, params: { probed: 'yes' } });
    for (const l of (host as unknown as { notificationListeners: Set<Listener<unknown>> }).notificationListeners) {
      if (malformed) l(malformed);
    }
    assert.equal(changes, 1);
    assert.equal(features.capabilities.v4, true);
  });
});

describe('blockedReason', () => {
  test('a probed build without the feature gives the reason; with it, none', () => {
    assert.equal(blockedReason(legacy(), 'steer'), 'not supported by this zcode build');
    assert.equal(blockedReason(v4(), 'steer'), undefined);
  });

  test('an unavailable feature without a reason is still blocked', () => {
    assert.equal(blockedReason({ ...v4(), retryTurn: { available: false } }, 'retryTurn'), '');
  });

  test('nothing is blocked before zcode was probed', () => {
    assert.equal(blockedReason(unknownCapabilities('not started'), 'rewindLatestPrompt'), undefined);
  });
});

describe('contextKeys', () => {
  test('a v4 build enables every palette entry', () => {
    assert.deepEqual(contextKeys(v4()), {
      [FEATURE_CONTEXT_KEYS.steer]: true,
      [FEATURE_CONTEXT_KEYS.rewind]: true,
      [FEATURE_CONTEXT_KEYS.retryTurn]: true,
      [FEATURE_CONTEXT_KEYS.forkAssistant]: true,
      [FEATURE_CONTEXT_KEYS.zcodeRename]: true,
    });
  });

  test('a build without v4 disables Steer, Rewind, Retry and Fork from reply', () => {
    const keys = contextKeys(legacy());
    assert.deepEqual(Object.values(keys), [false, false, false, false, false]);
  });

  test('before zcode was probed every entry stays enabled: the bridge answers the click', () => {
    const keys = contextKeys(unknownCapabilities('zcode has not started yet'));
    assert.deepEqual(Object.values(keys), [true, true, true, true, true]);
  });

  test('Rewind is enabled when any kind of rewind works', () => {
    const onlyFiles = { ...legacy(), fileRewind: yes };
    assert.equal(contextKeys(onlyFiles)[FEATURE_CONTEXT_KEYS.rewind], true);
    const onlyEarlier = { ...legacy(), rewindEarlier: yes };
    assert.equal(contextKeys(onlyEarlier)[FEATURE_CONTEXT_KEYS.rewind], true);
  });
});
