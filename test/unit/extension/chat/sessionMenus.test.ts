/**
 * Each session's slash menu kept for the chat (extension/chat/sessionMenus.ts): the last one per
 * session, the newest twenty sessions, a copy per read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionMenus } from '../../../../extension/chat/sessionMenus.ts';

const command = (name: string) => ({ name, description: name });

test('the last menu of a session wins; an unknown session has none; reads are copies', () => {
  const menus = new SessionMenus();
  assert.deepEqual(menus.of('s1'), []);
  menus.remember('s1', [command('compact')]);
  menus.remember('s1', [command('compact'), command('mcp')]);
  assert.deepEqual(menus.of('s1').map((c) => c.name), ['compact', 'mcp']);
  menus.of('s1').push(command('stray'));
  assert.equal(menus.of('s1').length, 2);
});

test('only the newest twenty sessions are kept; remembering again makes a session newest', () => {
  const menus = new SessionMenus();
  for (let i = 0; i < 20; i++) menus.remember(`s${i}`, [command(`c${i}`)]);
  menus.remember('s0', [command('again')]);
  menus.remember('s20', [command('c20')]);
  assert.deepEqual(menus.of('s1'), [], 'the oldest one went');
  assert.deepEqual(menus.of('s0').map((c) => c.name), ['again']);
  assert.deepEqual(menus.of('s20').map((c) => c.name), ['c20']);
});
