import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endpointUrl, isLoopbackHost } from '../../../../bridge/remote/address.ts';

test('isLoopbackHost: loopback names and addresses', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1']) {
    assert.equal(isLoopbackHost(host), true, host);
  }
});

test('isLoopbackHost: wildcard and routable addresses are not loopback', () => {
  for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '::ffff:10.0.0.1', '128.0.0.1']) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test('endpointUrl brackets IPv6 literals', () => {
  assert.equal(endpointUrl('127.0.0.1', 8378, '/acp'), 'ws://127.0.0.1:8378/acp');
  assert.equal(endpointUrl('::1', 9000, '/acp'), 'ws://[::1]:9000/acp');
});
