/** PatchStream's pacing: the first change after a pause goes out in the next task, the rest at most every FLUSH_MS, merged. */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { FLUSH_MS, PatchStream } from '../../../../extension/chat/patchStream.ts';
import type { IpcMessage } from '../../../../webview-ui/contract.ts';
import { emptySessionView } from '../../../../webview-ui/viewModel.ts';

test('the first change after a pause is sent at once; changes inside the window wait for it, merged', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  try {
    const posted: IpcMessage[] = [];
    const stream = new PatchStream();
    stream.attach((m) => posted.push(m));
    stream.ready((seq) => ({ seq, session: emptySessionView(), items: [] }));
    const patches = () => posted.filter((m) => m.method === 'chat/patch').map((m) => (m as { params: { ops: unknown[] } }).params.ops);
    const append = (text: string) => stream.queue({ ops: [{ op: 'append', id: 'a', field: 'text', text }] });

    append('one ');
    append('two ');
    assert.equal(patches().length, 0, 'changes of the same task share the patch');
    mock.timers.tick(0);
    assert.deepEqual(patches(), [[{ op: 'append', id: 'a', field: 'text', text: 'one two ' }]]);

    mock.timers.tick(2);
    append('three ');
    mock.timers.tick(0);
    append('four ');
    mock.timers.tick(FLUSH_MS - 3);
    assert.equal(patches().length, 1, 'a second patch waits until FLUSH_MS after the first');
    mock.timers.tick(1);
    assert.deepEqual(patches()[1], [{ op: 'append', id: 'a', field: 'text', text: 'three four ' }]);

    mock.timers.tick(FLUSH_MS * 3);
    append('after a pause');
    mock.timers.tick(0);
    assert.equal(patches().length, 3);
  } finally {
    mock.timers.reset();
  }
});
