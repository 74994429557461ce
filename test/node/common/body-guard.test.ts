import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { type BodyReadError, collectBody, findShapeProblem } from '../../../server/common/body-guard.js';

describe('findShapeProblem', () => {
  it('passes a clean body', () => {
    assert.equal(findShapeProblem({ a: [{ b: 1 }, 'x'], c: null }, 32), undefined);
  });
  it('names the dotted path of a forbidden key at any depth, arrays included', () => {
    assert.deepEqual(findShapeProblem(JSON.parse('{"a":[{"b":{"__proto__":{}}}]}'), 32), {
      kind: 'forbidden_key',
      field: 'a.0.b.__proto__',
      key: '__proto__',
      message: 'the key "__proto__" is not allowed',
    });
    assert.deepEqual(findShapeProblem({ constructor: 1 }, 32), {
      kind: 'forbidden_key',
      field: 'constructor',
      key: 'constructor',
      message: 'the key "constructor" is not allowed',
    });
  });
  it('stops at the first level deeper than the limit', () => {
    assert.deepEqual(findShapeProblem({ a: { b: { c: 1 } } }, 2), {
      kind: 'too_deep',
      field: 'a.b.c',
      message: 'the body is nested deeper than 2 levels',
    });
    assert.equal(findShapeProblem({ a: { b: 1 } }, 2), undefined);
  });
});

/** A request stream with these headers that sends `chunks`, then ends (or fails with `error`). */
function fakeRequest(chunks: string[], headers: Record<string, string> = {}, error?: Error): IncomingMessage {
  const stream = new PassThrough() as unknown as IncomingMessage & PassThrough;
  stream.headers = headers;
  setImmediate(() => {
    for (const c of chunks) stream.write(Buffer.from(c));
    if (error) stream.destroy(error);
    else stream.end();
  });
  return stream;
}

function collect(
  req: IncomingMessage,
  limit: number,
): Promise<{ err: BodyReadError | null; body?: Buffer; calls: number }> {
  return new Promise((resolve) => {
    let calls = 0;
    collectBody(req, limit, (err, body) => {
      calls++;
      // Wait a turn: a second call would show up here.
      setImmediate(() => resolve({ err, body, calls }));
    });
  });
}

describe('collectBody', () => {
  it('joins a body sent in several chunks, and gives an empty body as an empty buffer', async () => {
    const many = await collect(fakeRequest(['{"a":', '1,', '"b":2}']), 100);
    assert.equal(many.err, null);
    assert.equal(many.body!.toString(), '{"a":1,"b":2}');
    assert.equal(many.calls, 1);
    const none = await collect(fakeRequest([]), 100);
    assert.equal(none.body!.length, 0);
  });
  it('refuses a body over the limit, declared or streamed, once', async () => {
    const declared = await collect(fakeRequest(['x'], { 'content-length': '101' }), 100);
    assert.equal(declared.err?.reason, 'too_large');
    const streamed = await collect(fakeRequest(['x'.repeat(60), 'y'.repeat(60)]), 100);
    assert.equal(streamed.err?.reason, 'too_large');
    assert.equal(streamed.calls, 1);
  });
  it('reports a stream that fails as unreadable', async () => {
    const failed = await collect(fakeRequest(['{"a"'], {}, new Error('socket hang up')), 100);
    assert.equal(failed.err?.reason, 'unreadable');
    assert.match(failed.err!.message, /socket hang up/);
  });
});
