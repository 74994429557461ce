import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  AuthenticationError,
  createTokenSource,
  InvalidResponseError,
  ProviderError,
  ProviderServerError,
  type TokenSource,
  ValidationError,
} from '../../../server/provider/index.js';
import { TOKEN_OPERATION } from '../../../server/provider/oauth/token-source.js';
import type { RunningSandbox } from '../../../server/sandbox/index.js';
import { FAST_RETRY, fault, requests, reset, sandbox } from './support.js';

describe('OAuth token source against the sandbox', () => {
  let sb: RunningSandbox;
  let clock: number;
  let tokens: TokenSource;
  const tokenRequests = async () => (await requests(sb, '/connect/token')).length;

  before(async () => {
    sb = await sandbox();
  });
  after(() => sb.close());
  beforeEach(async () => {
    await reset(sb);
    clock = Date.parse('2030-01-01T00:00:00Z');
    tokens = createTokenSource({
      clientId: sb.credentials.clientId,
      clientSecret: sb.credentials.clientSecret,
      authUrl: sb.url,
      now: () => clock,
      ...FAST_RETRY,
    });
  });

  it('gets a token with client credentials and caches it per scope set', async () => {
    const a = await tokens.token(['accounts']);
    const b = await tokens.token(['accounts', 'accounts']);
    assert.match(a, /^eyJ/);
    assert.equal(a, b);
    assert.equal(await tokenRequests(), 1);
    const c = await tokens.token(['vault:real-time-account-updater', 'accounts']);
    const d = await tokens.token(['accounts', 'vault:real-time-account-updater']);
    assert.notEqual(c, a);
    assert.equal(c, d);
    assert.equal(await tokenRequests(), 2);
  });

  it('shares one token request among concurrent callers', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => tokens.token(['accounts'])));
    assert.equal(new Set(all).size, 1);
    assert.equal(await tokenRequests(), 1);
  });

  it('reads expires_in as seconds and refreshes 60 s ahead of expiry', async () => {
    const first = await tokens.token(['accounts']);
    clock += (3600 - 61) * 1000; // the sandbox issues 3600 s tokens: still outside the margin
    assert.equal(await tokens.token(['accounts']), first);
    assert.equal(await tokenRequests(), 1);
    clock += 2000; // now inside the 60 s margin
    sb.clock.advance(3600 - 59);
    const second = await tokens.token(['accounts']);
    assert.notEqual(second, first);
    assert.equal(await tokenRequests(), 2);
  });

  it('throws AuthenticationError for a wrong client secret, without the secret in the message', async () => {
    const wrong = 'definitely-the-wrong-secret-42';
    const bad = createTokenSource({ clientId: sb.credentials.clientId, clientSecret: wrong, authUrl: sb.url });
    const error = await bad.token(['accounts']).catch((e: unknown) => e);
    assert.ok(error instanceof AuthenticationError);
    assert.equal(error.code, 'TESSERA_AUTHENTICATION');
    assert.equal(error.status, 401);
    assert.match(error.requestId ?? '', /^req_/);
    assert.equal((error.body as { error: string }).error, 'invalid_client');
    assert.ok(!error.message.includes(wrong));
    assert.ok(!JSON.stringify(error.body).includes(wrong));
    await bad.close();
  });

  it('throws ValidationError for a scope the client may not have', async () => {
    const error = await tokens.token(['payments:everything']).catch((e: unknown) => e);
    assert.ok(error instanceof ValidationError);
    assert.equal(error.status, 400);
    assert.match(error.message, /invalid_scope/);
  });

  it('retries a token request the provider failed with 503, and gives up after maxRetries', async () => {
    await fault(sb, { path: '/connect/token', status: 503, count: 2 });
    assert.match(await tokens.token(['accounts']), /^eyJ/);
    assert.deepEqual(
      (await requests(sb, '/connect/token')).map((r) => r.status),
      [503, 503, 200],
    );
    await reset(sb);
    await fault(sb, { path: '/connect/token', status: 503, count: 3 });
    const error = await tokens.token(['vault:real-time-account-updater']).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderServerError);
    assert.equal(error.attempts, 3);
    // A POST, but one that changes nothing: its failure leaves nothing unknown, unlike a charge's.
    assert.equal(error.outcomeKnown, true);
    assert.equal(error.operation, TOKEN_OPERATION);
  });

  it('says a token request answered with a body it cannot read changed nothing', async () => {
    await reset(sb);
    await fault(sb, { path: '/connect/token', stallBody: true, count: 1 });
    const { clientId, clientSecret } = sb.credentials;
    const quick = createTokenSource({ clientId, clientSecret, authUrl: sb.url, timeoutMs: 300, maxRetries: 0 });
    const error = await quick.token(['accounts']).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.outcomeKnown, true);
    await quick.close();
  });

  it('refuses an access token that cannot be sent in a header (CR LF, control character, space), and does not keep it', async () => {
    // A broken token endpoint, not the sandbox: the sandbox never issues such a token.
    const answers = ['abc\r\nX-Injected: 1', 'a\u0001b', 'two words', 'tok_good'];
    const endpoint = createServer((_req, res) => {
      const access_token = answers.shift();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token, token_type: 'Bearer', expires_in: 3600 }));
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const { clientId, clientSecret } = sb.credentials;
    const authUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    const broken = createTokenSource({ clientId, clientSecret, authUrl, maxRetries: 0 });
    try {
      for (let i = 0; i < 3; i++) {
        const error = await broken.token(['accounts']).catch((e: unknown) => e);
        assert.ok(error instanceof InvalidResponseError, String(error));
        assert.equal(error.outcomeKnown, true);
        assert.equal(error.operation, TOKEN_OPERATION);
        assert.match(error.message, /access_token/);
      }
      // Nothing bad was cached: the next answer is asked for and used.
      assert.equal(await broken.token(['accounts']), 'tok_good');
    } finally {
      await broken.close();
      endpoint.closeAllConnections();
      endpoint.close();
    }
  });

  it('stops reading a token answer past 4 MiB, streamed or announced, whatever its status: InvalidResponseError', async () => {
    // A hostile token endpoint: an answer that never ends unless the reader hangs up.
    const MiB = 1024 * 1024;
    let written = 0;
    const endpoint = createServer((req, res) => {
      req.resume();
      res.on('error', () => {});
      const mode = answers.shift()!;
      res.writeHead(mode.status, {
        'content-type': 'application/json',
        ...(mode.announced ? { 'content-length': String(1024 * MiB) } : {}),
      });
      res.write('{"access_token":"');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && written < 256 * MiB) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('","token_type":"Bearer","expires_in":3600}');
      };
      pump();
    });
    const answers: { status: number; announced: boolean }[] = [];
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const { clientId, clientSecret } = sb.credentials;
    const authUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    const hostile = createTokenSource({ clientId, clientSecret, authUrl, maxRetries: 0 });
    try {
      for (const mode of [
        { status: 200, announced: false },
        { status: 200, announced: true },
        { status: 401, announced: false },
      ]) {
        answers.push(mode);
        written = 0;
        const error = await hostile.token(['accounts']).catch((e: unknown) => e);
        assert.ok(error instanceof InvalidResponseError, `${JSON.stringify(mode)}: ${String(error)}`);
        assert.equal(error.operation, TOKEN_OPERATION);
        assert.equal(error.outcomeKnown, true);
        assert.match(error.message, /larger than 4194304 bytes/);
        assert.ok(written < 64 * MiB, `${JSON.stringify(mode)}: ${written} bytes were written before the reader left`);
      }
    } finally {
      await hostile.close();
      endpoint.closeAllConnections();
      endpoint.close();
    }
  });

  it('rejects scopes that are not OAuth scope tokens with a TypeError', async () => {
    await assert.rejects(tokens.token(['two words']), TypeError);
    await assert.rejects(tokens.token('accounts' as never), TypeError);
  });
});
