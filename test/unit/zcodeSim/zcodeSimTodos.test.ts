/**
 * Self-test of the simulator's todo lists against zcode's own schema: every profile's `session/read`
 * (and, for current builds, the snapshots of resume and subscribe) carries todos that zcode's strict
 * session todo item accepts — `{content, status, priority}` and nothing else (jimpablo/ZCode
 * packages/shared/src/zcode-protocol/index.ts, the session todo item schema), whatever the TodoWrite
 * input held.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Sim, type Msg } from '../../helpers/simWire.ts';

after(() => Sim.killAll());

/** zcode's session todo item, field by field (strict: an extra key such as `id` is rejected). */
const ZcodeTodo = z.strictObject({
  content: z.string().trim().min(1),
  status: z.enum(['pending', 'in_progress', 'completed']),
  priority: z.enum(['high', 'medium', 'low']),
});

function assertTodos(todos: unknown, where: string): void {
  const parsed = z.array(ZcodeTodo).safeParse(todos);
  assert.ok(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`);
  assert.deepEqual(
    parsed.data.map((t) => t.status),
    ['completed', 'in_progress', 'pending'],
    `${where}: the scenario's three todos`,
  );
}

for (const profile of ['0.15.2', '0.16.5', 'desktop-3.12', 'desktop-3.15']) {
  test(`${profile}: todos after TodoWrite validate against zcode's session todo item`, async () => {
    const sim = new Sim(['--profile', profile]);
    const ws = `/tmp/ws-todos-${profile}`;
    const sessionId = await sim.session(ws);
    await sim.turn(sessionId, '[scenario:todo] plan it');
    const read: Msg = await sim.result('session/read', { sessionId });
    assertTodos(read.todos, 'session/read');
    if (sim.current) {
      const subscribed: Msg = await sim.result('session/subscribe', { sessionId, deliveryKind: 'desktop-continuous', includeSnapshot: true });
      assertTodos(subscribed.snapshot.todos, 'subscribe snapshot');
      const resumed: Msg = await sim.result('session/resume', { sessionId });
      assertTodos(resumed.todos, 'resume snapshot');
    }
    assert.equal(await sim.close(), 0);
  });
}
