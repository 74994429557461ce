/**
 * Every regular expression that reads request or response text outside the card-number rule, the redactors, the
 * XML codec and the JSON text scanners (tested in their own files: test/node/common/json-text.test.ts and
 * card-fields.test.ts read a megabyte of hostile JSON), run on its worst-case input: each must answer within BOUND_MS.
 * Functions are called directly with ~100 KB; what only arrives in headers is sent over HTTP to a real sandbox at
 * just under Node's 16 KiB header limit.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Request } from 'express';
import { readableUrl } from '../../../server/common/url-pans.js';
import { checkReturnTarget, mountUrl } from '../../../server/helper/charges/redirects.js';
import { createHostVerifier } from '../../../server/helper/host-auth.js';
import { chargeRead } from '../../../server/helper/provider-answers.js';
import { parseRetryAfter } from '../../../server/provider/http/backoff.js';
import { fieldFromCode } from '../../../server/provider/http/response.js';
import { wellSpaced } from '../../../server/provider/schemas/legacy.js';
import { resolveBaseUrl, trimTrailingSlashes } from '../../../server/provider/urls.js';
import { controlHostProblem, controlHostRule } from '../../../server/sandbox/core/control-hosts.js';
import { maskText, maskValue } from '../../../server/sandbox/core/mask.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { cspOriginOf } from '../../../server/sandbox/legacy/three-ds.js';
import { hostName } from '../../../server/sandbox/oauth/host.js';
import { toAsciiDigits } from '../../../shared/card/format.js';
import { isLoopbackHost } from '../../../shared/url.js';
import { fastestMsSync } from '../../support/timing.js';

const N = 100_000;
/**
 * Well above what a linear pass over N characters takes (the slowest case, 50 code-point steps per digit, takes
 * 0.3 s; the fastest of three runs counts, test/support/timing.ts), and far below a superlinear one: N² = 10¹⁰ steps
 * take minutes.
 */
const BOUND_MS = 2_000;

/** A charge read back from the provider with the id `id`, the rest of it as the helper reads it. */
const readBack = (id: string) =>
  ({
    data: { id, status: 'Captured' },
    status: 200,
    requestId: undefined,
    version: undefined,
    etag: undefined,
    idempotencyKey: undefined,
  }) as unknown as Parameters<typeof chargeRead>[0];

const direct: [string, () => unknown][] = [
  [
    'urls: trailing slashes of a base URL (was /\\/+$/)',
    () => resolveBaseUrl('f', 'baseUrl', `http://127.0.0.1:4010/${'/'.repeat(N)}a`),
  ],
  ['urls: trimTrailingSlashes', () => assert.equal(trimTrailingSlashes(`a${'/'.repeat(N)}`), 'a')],
  [
    'shared card: toAsciiDigits /\\p{Nd}/gu, each digit the last of 50 adjacent ones (the longest walk back)',
    () => assert.equal(toAsciiDigits('𝟿'.repeat(N / 2)), '9'.repeat(N / 2)),
  ],
  ['shared card: toAsciiDigits over text with no digit', () => toAsciiDigits('a'.repeat(N))],
  ['shared url: isLoopbackHost /^127\\.\\d{1,3}…$/', () => isLoopbackHost(`127.${'1'.repeat(N)}`)],
  ['shared url: isLoopbackHost bracket strip', () => isLoopbackHost('['.repeat(N))],
  ['shared url: isLoopbackHost trailing garbage', () => isLoopbackHost(`127.0.0.${'1'.repeat(N)}x`)],
  ['legacy schema: wellSpaced GROUPED, digits then junk', () => assert.equal(wellSpaced(`${'1'.repeat(N)}x`), false)],
  [
    'legacy schema: wellSpaced GROUPED, spaced groups then junk',
    () => assert.equal(wellSpaced(`${'1 '.repeat(N / 2)}-`), false),
  ],
  [
    'legacy schema: wellSpaced GROUPED, dashed groups then junk',
    () => assert.equal(wellSpaced(`${'1-'.repeat(N / 2)} `), false),
  ],
  ['backoff: Retry-After digits then a letter', () => assert.equal(parseRetryAfter(`${'1'.repeat(N)}x`), undefined)],
  ['backoff: Retry-After letters', () => parseRetryAfter('a'.repeat(N))],
  ['url pans: readableUrl over broken escapes', () => readableUrl(`${'%4'.repeat(N / 2)}%`)],
  [
    'url pans: readableUrl over one long run of escapes, broken at the end',
    () => readableUrl(`${'%C3'.repeat(N / 3)}%C`),
  ],
  [
    'accounts error code: field from code, underscores then junk',
    () => assert.equal(fieldFromCode(`${'_'.repeat(N)}x`), ''),
  ],
  [
    'accounts error code: field from code, near-miss problems at every underscore',
    () => assert.equal(fieldFromCode(`${'a_not_in_futur'.repeat(N / 14)}_invalid`).length > 0, true),
  ],
  [
    '3-D Secure page: CSP origin, a long host with a ";" at the end',
    () => assert.equal(cspOriginOf(`https://${'a'.repeat(N)};x/`), undefined),
  ],
  [
    '3-D Secure page: CSP origin, a long host of dots and dashes',
    () => assert.equal(cspOriginOf(`https://${'a.-'.repeat(N / 3)}'/`), undefined),
  ],
  [
    'return target: a path of slashes, and one escaped N/2 deep (decoded at most 9 times, each pass linear)',
    () => {
      const own = 'https://shop.example';
      assert.equal(checkReturnTarget('successUrl', `${own}${'/'.repeat(N)}x`, own, []), '/x');
      assert.throws(() => checkReturnTarget('successUrl', `/%${'25'.repeat(N / 2)}41`, own, []), /successUrl/);
      assert.equal(checkReturnTarget('successUrl', `/a${'%2'.repeat(N / 2)}`, own, []), `/a${'%2'.repeat(N / 2)}`);
    },
  ],
  [
    'provider answers: a charge id, charge_ then letters then a bad character',
    () => assert.throws(() => chargeRead(readBack(`charge_${'a'.repeat(N)}!`)), /valid `id`/),
  ],
  ['oauth host: /:\\d*$/ over colons', () => hostName(`${':'.repeat(N)}x`)],
  ['oauth host: /:\\d*$/ over colon-digit runs', () => hostName(`${':1'.repeat(N / 2)}x`)],
  ['host name: /^:\\d*$/ after a bracket', () => hostName(`[::1]${':1'.repeat(N / 2)}x`)],
  ['host name: a bracket never closed', () => hostName(`[${':'.repeat(N)}`)],
  ['sandbox control hosts: isIP and labels over colon-digit runs', () => controlRule(`${'1:'.repeat(N / 2)}x`)],
  ['sandbox control hosts: many labels, *.localhost near miss', () => controlRule(`${'a.'.repeat(N / 2)}.localhost`)],
  ['sandbox control hosts: bracketed near-IPv6', () => controlRule(`[${'0:'.repeat(N / 2)}]`)],
  [
    'sandbox control hosts: an option of many labels, then a bad character',
    () => controlHostProblem(`${'a.'.repeat(N / 2)}!`),
  ],
  [
    'request log: CVV_KEY /cvv|cvc|csc|security.?code/ over a long key',
    () => maskValue({ [`${'security'.repeat(N / 8)}x`]: 'a' }),
  ],
  [
    'request log: NUMBER_KEY and CVV_LIKE',
    () => maskValue({ number: `${' '.repeat(N)}1x`, cvv: `${' '.repeat(N)}12x` }),
  ],
  ['request log: maskText', () => maskText('1 '.repeat(N / 2))],
  [
    'helper: mountUrl HOST /^(?:\\[…\\]|[A-Za-z0-9.-]{1,253})(?::[0-9]{1,5})?$/, name then a bad port',
    () => assert.throws(() => mountUrl(hostRequest(`${'a'.repeat(N)}:1x`), undefined), /Host header/),
  ],
  [
    'helper: mountUrl HOST, a bracket literal that never closes',
    () => assert.throws(() => mountUrl(hostRequest(`[${':'.repeat(N)}`), undefined), /Host header/),
  ],
  [
    'helper: mountUrl HOST, dots and dashes then a space',
    () => assert.throws(() => mountUrl(hostRequest(`${'.-'.repeat(N / 2)} `), undefined), /Host header/),
  ],
  [
    // verify() runs the header's regex before its first await: timed here whole.
    'helper: host auth /^Bearer +([A-Za-z0-9_.~+/=-]{1,8192})$/, spaces then a bad character',
    () => void hostVerify(`Bearer${' '.repeat(N)}!`).catch(() => undefined),
  ],
  [
    'helper: host auth, token characters past the 8 KiB bound',
    () => void hostVerify(`Bearer ${'a'.repeat(N)}`).catch(() => undefined),
  ],
];

/** The sandbox controls' Host rule, with a configured name (docs/decisions/sandbox.md#sandbox-controls). */
const controlRule = controlHostRule(['sandbox.internal']);

/** A host-token verifier with a configured key (no JWKS to fetch). */
const hostVerify = createHostVerifier(
  {
    issuer: 'https://issuer.example',
    audience: 'tessera',
    algorithms: ['ES256'],
    key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string,
  },
  Date.now,
  { debug() {}, info() {}, warn() {}, error() {} },
);

/** Just what `mountUrl` reads of a request. */
function hostRequest(host: string): Request {
  return { get: () => host, protocol: 'http', baseUrl: '/payments' } as unknown as Request;
}

describe('regular expressions on worst-case input (direct)', () => {
  for (const [name, fn] of direct) {
    it(name, () => {
      const ms = fastestMsSync(fn, BOUND_MS);
      assert.ok(ms < BOUND_MS, `${name} took ${Math.round(ms)} ms`);
    });
  }
});

describe('regular expressions on worst-case headers and paths (sandbox over HTTP)', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());
  const H = 15_000;
  const cases: [string, () => [string, RequestInit], number][] = [
    [
      'body: charset parameter /;\\s*charset\\s*=…/',
      () => [
        `${sb.url}/api2/v2/tokens/card`,
        {
          method: 'POST',
          headers: {
            authorization: sb.credentials.publicKey,
            'content-type': `application/json;${' ;'.repeat(H / 2)}charset="x`,
          },
          body: '{}',
        },
      ],
      415,
    ],
    [
      'respond: Accept parameters /;\\s*(?!q=)[^;,]*/',
      () => [
        `${sb.url}/api2/v2/charges/x`,
        { headers: { accept: `application/json;${' '.repeat(H)}q=`, authorization: sb.credentials.secretKey } },
      ],
      -1,
    ],
    [
      'router: a long path against /^…\\/([^/]+)\\/?$/',
      () => [`${sb.url}/api2/v2/charges/${'a/'.repeat(H / 2)}x`, {}],
      -1,
    ],
    [
      'oauth: Basic credentials /^Basic +([A-Za-z0-9+/=]+)$/',
      () => [
        `${sb.url}/oauth/token`,
        { method: 'POST', headers: { authorization: `Basic ${' '.repeat(H / 2)}${'A'.repeat(H / 2)}!` } },
      ],
      -1,
    ],
    [
      'bearer: /^Bearer +([\\x21-\\x7e]+)$/ and /^Bearer\\s+/',
      () => [
        `${sb.url}/accounts/entities`,
        { headers: { authorization: `Bearer ${' '.repeat(H / 2)}${'a'.repeat(H / 2)} ` } },
      ],
      -1,
    ],
    [
      'oauth host: Host header /:\\d*$/',
      () => [`${sb.url}/oauth/token`, { method: 'POST', headers: { 'x-forwarded-host': `${':1'.repeat(H / 2)}x` } }],
      -1,
    ],
  ];
  for (const [name, make, status] of cases) {
    it(name, async () => {
      const [url, init] = make();
      const start = performance.now();
      const r = await fetch(url, init);
      await r.arrayBuffer();
      const ms = performance.now() - start;
      assert.ok(r.status >= 400 && r.status < 500, `${name}: ${r.status}`);
      if (status !== -1) assert.equal(r.status, status);
      assert.ok(ms < BOUND_MS, `${name} took ${Math.round(ms)} ms`);
      // And the server answers the next request at once.
      const next = performance.now();
      assert.equal((await fetch(`${sb.url}/_sandbox/clock`)).status, 200);
      assert.ok(performance.now() - next < BOUND_MS);
    });
  }
});
