import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it, type TestContext } from 'node:test';
import { inspect } from 'node:util';
import { gzipSync } from 'node:zlib';
import {
  AuthenticationError,
  createAccountsClient,
  createLegacyClient,
  createTokenSource,
  InvalidResponseError,
  PermissionError,
  ProviderError,
} from '../../../server/provider/index.js';
import { TOKEN_OPERATION } from '../../../server/provider/oauth/token-source.js';
import { captureLogger as pinoLogger } from '../helper/support.js';
import { bareServer, captureLogger } from './support.js';

// The clients against an upstream that answers like an enemy (a broken provider, or whatever sits at its address):
// whatever it echoes of the request, in a header, a request id or a body the client cannot read, no secret and no
// card number reaches an error the client throws (its message, fields, `cause` or JSON) or a log line.

const SECRET = 'sk_test_hostile_0123456789abcdef';
const PAN = '4242424242424242';
/** A client secret with every character the form encoding changes. */
const CLIENT_SECRET = 'cs+hostile/secret=x&y z~0123456789';
const CLIENT_ID = 'cli_hostile1234';

/** Every text a merchant could see of `value`: its message, fields, JSON, cause (message and stack) and `String()`. */
function seen(value: unknown): string {
  const e = value as { message?: unknown; cause?: { message?: unknown; stack?: unknown } } | undefined;
  let json: string;
  try {
    json = JSON.stringify(value && typeof value === 'object' ? { ...value } : value) ?? '';
  } catch {
    json = '';
  }
  return [String(value), e?.message, json, e?.cause?.message, e?.cause?.stack, String(e?.cause)].join('\n');
}

/** The first run of `length` characters of `secret` (any of its windows) that `text` holds, if any. */
function pieceOf(text: string, secret: string, length = 10): string | undefined {
  for (let i = 0; i + length <= secret.length; i++) {
    const piece = secret.slice(i, i + length);
    if (text.includes(piece)) return piece;
  }
  return undefined;
}

/** The ways a secret may be echoed: as sent in a form body, URL-encoded, and as it is (in any case: compared folded). */
function echoes(secret: string): string[] {
  return [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
}

/** Fails when `text` holds a piece of an echo of a secret, in any case (`SK_TEST_…`, `%2b` for `%2B`). */
function assertClean(where: string, text: string, secrets: readonly string[]): void {
  const folded = text.toLowerCase();
  for (const secret of secrets) {
    for (const echo of echoes(secret)) {
      const piece = pieceOf(folded, echo.toLowerCase());
      assert.equal(piece, undefined, `${where}: ${JSON.stringify(piece)} of a secret in ${text.slice(0, 3000)}`);
    }
  }
}

async function hostile(t: TestContext, handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const server = await bareServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handler(req, body, res));
  });
  t.after(() => server.close());
  return server;
}

/** An answer of a token endpoint to the form it was sent: status, content type, body. */
type TokenAnswer = (form: string) => [number, string, string];

/**
 * The errors of a token source (with {@link CLIENT_SECRET}, bodies logged) whose endpoint answers each request with the
 * next of `answers`, one per answer, and its log lines.
 */
async function tokenErrors(
  t: TestContext,
  answers: TokenAnswer[],
): Promise<{ errors: ProviderError[]; lines: string[] }> {
  const server = await hostile(t, (_req, form, res) => {
    const [status, type, body] = answers.shift()!(form);
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  const { lines, logger } = captureLogger();
  const tokens = createTokenSource({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    authUrl: server.url,
    logger,
    logBodies: true,
    maxRetries: 0,
  });
  t.after(() => tokens.close());
  const errors: ProviderError[] = [];
  while (answers.length > 0) {
    const error = await tokens.token(['accounts']).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderError, `answer ${errors.length}: ${String(error)}`);
    errors.push(error);
  }
  return { errors, lines };
}

function legacyOf(t: TestContext, url: string) {
  const { lines, logger } = captureLogger();
  const client = createLegacyClient({ secretKey: SECRET, baseUrl: url, logger, maxRetries: 0 });
  t.after(() => client.close());
  return { client, lines };
}

describe('a hostile upstream echoing secrets where the clients did not look', () => {
  it('keeps a secret or a card number out of the request id, headers and ETag of a result, an error and the log', async (t) => {
    // Each answer echoes the request's Authorization (the secret key) or a card number where the core reads it: the
    // request id header (logged on every provider.response line, carried by results and errors), a request id in the
    // error body, a WWW-Authenticate challenge, an ETag.
    const answers: [number, (auth: string) => Record<string, string>, string][] = [
      [200, (auth) => ({ 'svc-request-id': auth }), '{"id":"charge_a"}'],
      [500, () => ({ 'svc-request-id': PAN }), '{}'],
      [500, () => ({}), JSON.stringify({ requestId: SECRET })],
      [400, () => ({}), JSON.stringify({ request_id: `req ${PAN}` })],
      [401, (auth) => ({ 'www-authenticate': `Basic realm="api", key="${auth}"` }), '{}'],
      [412, (auth) => ({ etag: `"${auth}"`, 'x-debug-card': PAN }), '{}'],
    ];
    let next = 0;
    const server = await hostile(t, (req, _body, res) => {
      const [status, headers, body] = answers[next++]!;
      res.writeHead(status, { 'content-type': 'application/json', ...headers(String(req.headers.authorization)) });
      res.end(body);
    });
    const { client, lines } = legacyOf(t, server.url);
    for (let i = 0; i < answers.length; i++) {
      const outcome = await client.charges.retrieve('charge_abc').catch((e: unknown) => e);
      if (i > 0) assert.ok(outcome instanceof ProviderError, String(outcome));
      assertClean(`answer ${i}`, seen(outcome), [SECRET, PAN]);
    }
    assertClean('log', lines.join('\n'), [SECRET, PAN]);
  });

  it('quotes nothing of a body it cannot read in the error or its cause: no piece of an echoed secret or card number', async (t) => {
    // JSON.parse's message quotes the text around the fault ("{"a": sk_test_ho"... is not valid JSON): a piece of a
    // secret that no redactor recognises, in the message of the error and of its cause (and the cause's stack).
    const bodies = [
      `{"a": ${SECRET}}`,
      `{"card": ${PAN}x}`,
      `{"card": "${PAN}`,
      `${PAN}-${PAN}`,
      `<html>${SECRET}</html>`,
    ];
    const server = await hostile(t, (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(bodies.shift());
    });
    const { client, lines } = legacyOf(t, server.url);
    for (let i = 0; bodies.length > 0; i++) {
      const error = await client.charges.retrieve('charge_abc').catch((e: unknown) => e);
      assert.ok(error instanceof InvalidResponseError, String(error));
      assert.match(error.message, /could not be read: the body is not valid JSON/);
      assert.equal(error.outcomeKnown, true);
      assertClean(`body ${i}`, seen(error), [SECRET, PAN]);
    }
    assertClean('log', lines.join('\n'), [SECRET, PAN]);
  });

  it('keeps an echoed secret out of the cause of an XML body it cannot read, as pino and util.inspect write it', async (t) => {
    // The XML codec's refusal of a declared encoding quotes the encoding's name; the error's message was redacted, but
    // its `cause`, the codec's own error, was kept as thrown: pino's error serializer appends a cause's message to the
    // error's, and util.inspect prints it whole.
    const server = await hostile(t, (req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="${String(req.headers.authorization)}"?><response><id>x</id></response>`);
    });
    const { client, lines } = legacyOf(t, server.url);
    const error = await client.charges.retrieve('charge_abc').catch((e: unknown) => e);
    assert.ok(error instanceof InvalidResponseError, String(error));
    assert.match(error.message, /names the encoding "\[redacted\]"/);
    const cause = error.cause as { code?: unknown; message: string };
    assert.equal(cause.code, 'xml_encoding');
    // A real pino logger with its default serializers: what a merchant's own log line of the error holds.
    const { logger, log } = pinoLogger();
    logger.error({ err: error }, 'charge lookup failed');
    assertClean('error', `${seen(error)}\n${inspect(error, { depth: 8 })}\n${log.text()}`, [SECRET]);
    assertClean('log', lines.join('\n'), [SECRET]);
  });

  it('cuts the text of a body it keeps after redacting it: no piece of a secret or card number at the cut', async (t) => {
    // The text of a body that is not JSON is kept, its first 2,000 characters; cut first and redacted after, a secret
    // or card number across the cut was no longer whole, so nothing recognised its first characters.
    const answers: [number, string][] = [
      [400, `${'x'.repeat(1988)}${SECRET}`],
      [502, `${'x'.repeat(1990)}${PAN}`],
      [200, `${'x'.repeat(1988)}${SECRET}`],
      [200, `${'x'.repeat(1990)}${PAN}`],
    ];
    const server = await hostile(t, (_req, _body, res) => {
      const [status, text] = answers.shift()!;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(text);
    });
    const { client } = legacyOf(t, server.url);
    for (let i = 0; answers.length > 0; i++) {
      const error = await client.charges.retrieve('charge_abc').catch((e: unknown) => e);
      assert.ok(error instanceof ProviderError, String(error));
      assert.equal(typeof error.body, 'string');
      assert.ok((error.body as string).length <= 2000, `body ${i}: ${(error.body as string).length} characters`);
      assertClean(`body ${i}`, seen(error), [SECRET, PAN]);
    }
  });

  it('keeps the client secret out of a token error that echoes the form it was sent, as JSON or as text', async (t) => {
    // The token request is a form (`client_secret=cs%2Bhostile%2Fsecret…`): an endpoint that echoes it gives the
    // secret form-encoded, which the redactor, knowing the secret only as it is, did not recognise.
    const answers: TokenAnswer[] = [
      (form) => [
        400,
        'application/json',
        JSON.stringify({ error: 'invalid_client', error_description: `got ${form}` }),
      ],
      (form) => [401, 'text/plain', `unauthorized: ${form}`],
      (form) => [200, 'application/json', `{"echo": ${form}}`],
      (form) => [200, 'application/json', JSON.stringify({ token_type: 'Bearer', expires_in: 60, echo: form })],
    ];
    const { errors, lines } = await tokenErrors(t, answers);
    for (const [i, error] of errors.entries()) {
      assert.equal(error.operation, TOKEN_OPERATION);
      assertClean(`answer ${i}`, seen(error), [CLIENT_SECRET]);
    }
    assertClean('log', lines.join('\n'), [CLIENT_SECRET]);
  });
});

describe('a hostile upstream echoing secrets in another case', () => {
  /** `%2B` → `%2b`: what a server that normalizes escapes to lower case, or another stack's form encoder, writes. */
  const lowerEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());

  it('keeps the secret key out of errors and the log when the upstream echoes it upper-cased', async (t) => {
    // The redactor matched a secret exactly: `SK_TEST_HOSTILE_…` in a request id, a header or a body passed it (the
    // key's `sk_` shape rule is lower-case only).
    const answers: [number, (auth: string) => Record<string, string>, (auth: string) => string][] = [
      [200, (auth) => ({ 'svc-request-id': auth.toUpperCase() }), () => '{"id":"charge_a"}'],
      [500, () => ({}), (auth) => JSON.stringify({ requestId: auth.toUpperCase() })],
      [401, (auth) => ({ 'www-authenticate': `Basic key="${auth.toUpperCase()}"` }), () => '{}'],
      [400, () => ({ 'content-type': 'text/plain' }), (auth) => `bad key ${auth.toUpperCase()}`],
      [
        400,
        () => ({}),
        (auth) => JSON.stringify({ message: `bad key ${auth.slice(0, 8)}${auth.slice(8).toUpperCase()}` }),
      ],
    ];
    let next = 0;
    const server = await hostile(t, (req, _body, res) => {
      const [status, headers, body] = answers[next++]!;
      const auth = String(req.headers.authorization);
      res.writeHead(status, { 'content-type': 'application/json', ...headers(auth) });
      res.end(body(auth));
    });
    const { client, lines } = legacyOf(t, server.url);
    for (let i = 0; i < answers.length; i++) {
      const outcome = await client.charges.retrieve('charge_abc').catch((e: unknown) => e);
      if (i > 0) assert.ok(outcome instanceof ProviderError, String(outcome));
      assertClean(`answer ${i}`, seen(outcome), [SECRET]);
    }
    assertClean('log', lines.join('\n'), [SECRET]);
  });

  it('keeps the client secret out of a token error that echoes the form with lower-case escapes or upper-cased', async (t) => {
    // `client_secret=cs%2bhostile%2fsecret…`: the redactor knew the form only with encodeURIComponent's upper-case
    // escapes; `CS%2BHOSTILE%2FSECRET…`: only in the secret's own case.
    const answers: TokenAnswer[] = [
      (form) => [
        400,
        'application/json',
        JSON.stringify({ error: 'invalid_client', error_description: lowerEscapes(form) }),
      ],
      (form) => [401, 'text/plain', `unauthorized: ${lowerEscapes(form)}`],
      (form) => [401, 'text/plain', `UNAUTHORIZED: ${form.toUpperCase()}`],
      (form) => [401, 'text/plain', `unauthorized: ${lowerEscapes(form.toUpperCase())}`],
      (form) => [400, 'text/plain', `CLIENT ${new URLSearchParams(form).get('client_secret')?.toUpperCase()} REFUSED`],
    ];
    const { errors, lines } = await tokenErrors(t, answers);
    for (const [i, error] of errors.entries()) {
      assertClean(`answer ${i}`, seen(error), [CLIENT_SECRET]);
      // Read as the secret, not merely missed: the error's message or kept body has it cut.
      assert.match(`${error.message}\n${String(error.body)}`, /\[redacted\]/, `answer ${i}: ${seen(error)}`);
    }
    assertClean('log', lines.join('\n'), [CLIENT_SECRET]);
  });

  it('keeps an issued access token out of errors and the log when the upstream echoes it in another case', async (t) => {
    const ACCESS_TOKEN = 'Opaque0Access0Token0MixedCase';
    const echoes: ((auth: string) => string)[] = [
      (auth) => auth.toUpperCase(),
      (auth) => auth.toLowerCase(),
      (auth) => lowerEscapes(encodeURIComponent(auth.toUpperCase())),
    ];
    let next = 0;
    const server = await hostile(t, (req, _body, res) => {
      if (req.url === '/connect/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600 }));
        return;
      }
      const echo = echoes[next++]!(String(req.headers.authorization));
      res.writeHead(400, { 'content-type': 'text/plain', 'svc-request-id': echo });
      res.end(`refused ${echo}`);
    });
    const { lines, logger } = captureLogger();
    const client = createAccountsClient({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      baseUrl: server.url,
      authUrl: server.url,
      logger,
      maxRetries: 0,
    });
    t.after(() => client.close());
    while (next < echoes.length) {
      const error = await client.members.list('ent_abc').catch((e: unknown) => e);
      assert.ok(error instanceof ProviderError, String(error));
      assertClean(`echo ${next}`, seen(error), [ACCESS_TOKEN, CLIENT_SECRET]);
    }
    assertClean('log', lines.join('\n'), [ACCESS_TOKEN, CLIENT_SECRET]);
  });
});

describe('a compressed answer', () => {
  it('asks for none and decodes none: a gzip bomb is bytes that are not JSON, never inflated', async (t) => {
    // 64 MiB of JSON in 64 KiB of gzip: inflated, it would pass the 4 MiB an answer may take from a small body.
    const bomb = gzipSync(Buffer.from(`{"pad":"${'a'.repeat(64 * 1024 * 1024)}"}`));
    let acceptEncoding: string | undefined;
    const server = await hostile(t, (req, _body, res) => {
      acceptEncoding = req.headers['accept-encoding'];
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const { client } = legacyOf(t, server.url);
    const error = await client.charges.retrieve('charge_abc').catch((e: unknown) => e);
    assert.ok(error instanceof InvalidResponseError, String(error));
    assert.match(error.message, /not valid JSON/);
    assert.equal(acceptEncoding, undefined);
    assert.equal(client.heldResponseBytes, 0);
  });
});

describe('a hostile token endpoint', () => {
  it('refuses an access token too short to keep out of logs or too long for a header, and uses the next good one', async (t) => {
    // A 3-character token passed, and the redactor (which replaces secrets of 6 characters or more) then let it through
    // wherever an upstream echoed it; a 100 KB one was cached and sent with every call, which every server refuses.
    const answers = ['abc', 'x'.repeat(100_000), 'tok_good_one'];
    const server = await hostile(t, (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: answers.shift(), token_type: 'Bearer', expires_in: 3600 }));
    });
    const tokens = createTokenSource({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      authUrl: server.url,
      maxRetries: 0,
    });
    t.after(() => tokens.close());
    for (const length of [3, 100_000]) {
      const error = await tokens.token(['accounts']).catch((e: unknown) => e);
      assert.ok(error instanceof InvalidResponseError, `${length}: ${String(error)}`);
      assert.equal(error.outcomeKnown, true);
      assert.match(error.message, /access_token \(6 to 8192 visible ASCII characters\)/);
    }
    assert.equal(await tokens.token(['accounts']), 'tok_good_one');
  });

  it('uses a token at most a day, whatever expires_in says, and refreshes it then', async (t) => {
    // expires_in 1e300: the token was cached for ever, used until some call was refused.
    let issued = 0;
    const server = await hostile(t, (_req, _body, res) => {
      issued++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `tok_forever_${issued}`, token_type: 'Bearer', expires_in: 1e300 }));
    });
    let clock = Date.parse('2030-01-01T00:00:00Z');
    const tokens = createTokenSource({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      authUrl: server.url,
      now: () => clock,
      maxRetries: 0,
    });
    t.after(() => tokens.close());
    assert.equal(await tokens.token(['accounts']), 'tok_forever_1');
    clock += (24 * 3600 - 61) * 1000;
    assert.equal(await tokens.token(['accounts']), 'tok_forever_1');
    // Refreshed 60 s (the default margin) ahead of the day's end.
    clock += 2000;
    assert.equal(await tokens.token(['accounts']), 'tok_forever_2');
  });

  it('renews the access token once after a 401 and never after a 403, whatever the provider keeps answering', async (t) => {
    // 401: the token was refused, a new one is worth one more try; 403: valid credentials without the permission
    // (account-services-api.md "Errors"), which a new token does not change.
    let tokensIssued = 0;
    let calls = 0;
    let status = 401;
    const server = await hostile(t, (req, _body, res) => {
      if (req.url === '/connect/token') {
        tokensIssued++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: `tok_issued_${tokensIssued}`, token_type: 'Bearer', expires_in: 3600 }));
        return;
      }
      calls++;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const client = createAccountsClient({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      baseUrl: server.url,
      authUrl: server.url,
      maxRetries: 0,
    });
    t.after(() => client.close());
    const refused = await client.members.list('ent_abc').catch((e: unknown) => e);
    assert.ok(refused instanceof AuthenticationError, String(refused));
    assert.deepEqual([tokensIssued, calls], [2, 2]);
    status = 403;
    const forbidden = await client.members.list('ent_abc').catch((e: unknown) => e);
    assert.ok(forbidden instanceof PermissionError, String(forbidden));
    assert.deepEqual([tokensIssued, calls], [2, 3]);
  });
});
