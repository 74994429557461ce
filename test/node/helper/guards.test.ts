import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { get, request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { deflateSync, gzipSync } from 'node:zlib';
import express, { type Request, type Response } from 'express';
import pino from 'pino';
import {
  MOUNT_PARAM_CHARS,
  MOUNT_PARAMS_MAX,
  mountParams,
  resultKey,
  threeDsKey,
} from '../../../server/helper/charges/records.js';
import {
  loadWidgetAsset,
  MemoryStore,
  redactingLogger,
  tesseraHelper,
  WIDGET_FILE,
  widgetVersion,
} from '../../../server/helper/index.js';
import { allowedMethods } from '../../../server/helper/methods.js';
import { containsPan, findPan } from '../../../server/helper/pan-guard.js';
import { type RunningSandbox, startSandbox } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { fastestMsSync } from '../../support/timing.js';
import {
  answerChallenge,
  captureLogger,
  cardToken,
  fault,
  legacyHelperOptions,
  NO_RATE_LIMITS,
  type RunningHelper,
  requiredMethods,
  serveApp,
  startHelper,
} from './support.js';

const options = {
  publicKey: 'pk_sbox_tessera0demo0public0key0000001',
  secretKey: 'sk_sbox_tessera0demo0secret0key0000001',
  resolveCharge: () => ({ amount: 100, currency: 'EUR' as const }),
  corsOrigins: ['https://shop.example'],
};

const SECRET = 'sk_sbox_tessera0demo0secret0key0000001';
const CARD = '4242 4242 4242 4242';
const JWT = 'eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl';
const URL_WITH_PASSWORD = 'redis://default:hunter2hunter2@redis.example:6379/0';
const URL_CUT = 'redis://default:[redacted]@redis.example:6379/0';
const UNREADABLE = '[a value that could not be read]';

/** The logger setups a merchant's server has: pino as it comes, and with pino's std `err` serializers set. */
const LOGGER_SETUPS: [string, pino.LoggerOptions][] = [
  ['pino() as it comes', {}],
  ['pino({ serializers: { err: pino.stdSerializers.err } })', { serializers: { err: pino.stdSerializers.err } }],
  ['pino({ serializers: pino.stdSerializers })', { serializers: pino.stdSerializers }],
];

/** An Error as a log line writes it. */
interface Logged {
  type: string;
  message: string;
  stack?: string;
  errors?: Logged[];
  cause?: Logged;
  [field: string]: unknown;
}

/** `logged` and its causes without their stacks (which name this machine's paths), for an exact comparison. */
function withoutStacks(logged: Logged): Record<string, unknown> {
  const { stack: _stack, cause, errors, ...rest } = logged;
  return {
    ...rest,
    ...(errors ? { errors: errors.map(withoutStacks) } : {}),
    ...(cause ? { cause: withoutStacks(cause) } : {}),
  };
}

/** Each error of the chain has its own stack, which starts with its type and message (cleaned as they are). */
function assertStacks(logged: Logged): void {
  assert.ok(logged.stack?.startsWith(`${logged.type}: ${logged.message}\n    at `), JSON.stringify(logged.stack));
  for (const e of logged.errors ?? []) assertStacks(e);
  if (logged.cause) assertStacks(logged.cause);
}

function assertNothingSecret(text: string): void {
  for (const secret of [SECRET, '4242 4242', JWT, 'hunter2hunter2']) assert.ok(!text.includes(secret), text);
}

describe('card-number guard', () => {
  it('finds Luhn-valid 12–19 digit runs with or without separators, and nothing else', () => {
    const yes = [
      '4242424242424242',
      '4242 4242 4242 4242',
      '4242-4242-4242-4242',
      'card: 5555555555554444 thanks',
      'order 12 4242 4242 4242 4242',
      '378282246310005',
      '6759649826438453',
      '4242424242424242424'.slice(0, 16),
      '0 4242 4242 4242 4242 1',
      '４２４２４２４２４２４２４２４２',
      '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢',
      '۴۲۴۲۴۲۴۲۴۲۴۲۴۲۴۲',
      '४२४२४२४२४२४२४२४२',
      '𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐',
      '4242\n4242\n4242\n4242',
      '4242\r\n4242\r\n4242\r\n4242',
      '4242\t4242\u00a04242\u202f4242',
      '4242 - 4242 - 4242 - 4242',
      '4242–4242—4242‑4242',
      '4242.4242.4242.4242',
      '4242/4242/4242/4242',
      '3782.822463.10005',
      '4242.4242.4242.4242.428',
    ];
    const no = [
      '4242424242424241',
      '12345678901',
      'order-2024-0001',
      '2026-11-22 14:00',
      '00000000000000000000000',
      'phone +44 20 7946 0958',
      '+4242424242424242',
      '0049 30 1234 5678',
      'ref 000000004242424242424242',
      '０４２４２４２４２４２４２４２４２',
      '+٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢',
      '192.168.100.200',
      '1234567890.12',
      '/orders/2026/11/22/12345',
      '2026/11/22 14:00:00',
      'https://10.20.30.40:8443/shop/42/done',
    ];
    for (const s of yes) assert.equal(containsPan(s), true, s);
    for (const s of no) assert.equal(containsPan(s), false, s);
  });

  it('names the path of a card number anywhere in a value, keys and numbers included', () => {
    assert.equal(findPan({ a: { b: ['x', 'pay 4242424242424242'] } }), 'a.b.1');
    assert.equal(findPan({ n: 4242424242424242 }), 'n');
    // A key is named by its place, never by itself: the refusal must not echo the number back.
    assert.equal(findPan({ '4242424242424242': 1 }), '[key]');
    assert.equal(findPan({ a: 'fine', b: [1, 2, 3] }), undefined);
    assert.equal(findPan({ a: { '４２４２４２４２４２４２４２４２': 'x' } }), 'a.[key]');
    assert.equal(findPan({ note: 'card 4242.4242.4242.4242 please' }), 'note');
  });
});

describe('helper basics over HTTP', () => {
  let h: RunningHelper;
  before(async () => {
    h = await startHelper(options);
  });
  after(() => h.close());

  it('lets ordinary ids through in URLs and refuses card numbers there, however they are spelled', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const uuid = randomUUID();
      ids.push(uuid, uuid.replaceAll('-', ''), `${Date.now() + i}`, `hreq_${uuid}`);
    }
    for (const id of ids) {
      const r = await call(`${h.url}/config?orderReference=${encodeURIComponent(id)}`);
      assert.equal(r.status, 200, `${id}: ${r.text}`);
    }
    for (const pan of ['4242 4242 4242 4242', '4242x4242y4242z4242', '4242\u200b4242\u200b4242\u200b4242']) {
      const r = await call(`${h.url}/config?q=${encodeURIComponent(pan)}`);
      assert.equal(r.status, 400, pan);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED');
      assert.ok(!r.text.includes('4242'), r.text);
    }
  });

  it('GET /config answers what the widget needs and nothing more', async () => {
    const r = await call(`${h.url}/config`);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json).sort(), ['cardTokenUrl', 'environment', 'publicKey', 'widgetIntegrity']);
    assert.equal(r.json.publicKey, options.publicKey);
    assert.equal(r.json.environment, 'sandbox');
    assert.equal(r.json.cardTokenUrl, h.helper.cardTokenUrl);
    assert.equal(r.json.widgetIntegrity, loadWidgetAsset().integrity);
    assert.ok(!r.text.includes(options.secretKey));
  });

  it('GET /widget.js serves the bundle, immutable only at its current version', async () => {
    const asset = loadWidgetAsset();
    const current = await call(`${h.url}/widget.js?v=${widgetVersion(asset.integrity)}`);
    assert.equal(current.status, 200);
    assert.equal(current.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(current.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(current.text, asset.body.toString('utf8'));
    const bare = await call(`${h.url}/widget.js`);
    assert.equal(bare.headers.get('cache-control'), 'no-cache');
    const etag = bare.headers.get('etag')!;
    // fetch() adds `Cache-Control: no-cache` to conditional requests, so ask the way a browser cache does.
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(`${h.url}/widget.js`, { headers: { 'if-none-match': etag } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject),
    );
    assert.equal(status, 304);
  });

  it("serves the bundle's source map where the bundle's sourceMappingURL points, so developer tools find it", async () => {
    const bundle = await call(`${h.url}/widget.js`);
    const named = /\n\/\/# sourceMappingURL=(\S+)\n?$/.exec(bundle.text)?.[1];
    assert.ok(named, 'the bundle names its source map');
    const map = await call(new URL(named, `${h.url}/widget.js`).href);
    assert.equal(map.status, 200, map.text.slice(0, 200));
    assert.equal(map.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(map.headers.get('cache-control'), 'no-cache');
    assert.match(map.headers.get('etag') ?? '', /^"[\w-]{27}"$/);
    assert.equal(map.json.version, 3);
    assert.equal(map.json.file, WIDGET_FILE);
    assert.ok(map.json.sources.includes('../../widget/card-form/card-form.ts'), map.json.sources.join());
    const put = await call(new URL(named, `${h.url}/widget.js`).href, { method: 'PUT' });
    assert.equal(put.status, 405);
  });

  it('serves the widget locale files beside the bundle, and nothing else from that folder', async () => {
    const manifest = await call(`${h.url}/locales/manifest.json`);
    assert.equal(manifest.status, 200);
    assert.equal(manifest.headers.get('cache-control'), 'no-cache');
    const de = await call(`${h.url}/locales/de.json`);
    assert.equal(de.status, 200);
    assert.equal(typeof de.json, 'object');
    for (const bad of ['xx.json', '..%2Fpackage.json', 'de.js', '%2e%2e%2f%2e%2e%2fpackage.json']) {
      const r = await call(`${h.url}/locales/${bad}`);
      assert.equal(r.status, 404, bad);
      assert.equal(r.json.code, 'TESSERA_ROUTE_NOT_FOUND', bad);
    }
  });

  it('puts helmet headers and a request id on every response, errors included', async () => {
    for (const path of ['/config', '/nowhere']) {
      const r = await call(`${h.url}${path}`);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(r.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'", path);
      assert.ok(r.headers.get('strict-transport-security'), path);
      assert.equal(r.headers.get('x-powered-by'), null, path);
      assert.match(r.headers.get('x-request-id') ?? '', /^hreq_[0-9a-f-]{36}$/, path);
    }
    const missing = await call(`${h.url}/nowhere`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'TESSERA_ROUTE_NOT_FOUND');
    assert.equal(missing.json.requestId, missing.headers.get('x-request-id'));
  });

  it('answers a known path asked with another method 405 with the Allow its routes take; an unknown path stays 404', async () => {
    const wrong: [string, string, string][] = [
      ['GET', '/charges', 'POST'],
      ['DELETE', '/charges', 'POST'],
      ['PUT', '/charges/', 'POST'],
      ['HEAD', '/charges', 'POST'],
      ['POST', '/config', 'GET, HEAD'],
      ['DELETE', '/widget.js', 'GET, HEAD'],
      ['POST', '/charges/3ds-return?cko-payment-token=pay_tok_x', 'GET, HEAD'],
      ['PATCH', '/locales/de.json', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of wrong) {
      const r = await call(`${h.url}${path}`, { method });
      assert.equal(r.status, 405, `${method} ${path}: ${r.text}`);
      assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
      assert.equal(r.headers.get('cache-control'), 'no-store', `${method} ${path}`);
      if (method === 'HEAD') continue;
      assert.deepEqual(r.json, {
        code: 'TESSERA_METHOD_NOT_ALLOWED',
        message: `${method} is not allowed here; use ${allow}`,
        field: 'method',
        requestId: r.headers.get('x-request-id'),
      });
    }
    // No route takes these paths for any method (the dashboard routes need `clientId`, which this helper lacks); a
    // route that took the method and passed the request on (an unknown locale) is no wrong method either.
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['DELETE', '/nowhere'],
      ['GET', '/charges/elsewhere'],
      ['GET', '/entities/ent_a/payment-instruments'],
      ['PUT', '/entities/ent_a/payment-instruments/ppi_a'],
      ['POST', '/account-updater'],
      ['GET', '/locales/xx.json'],
      ['HEAD', '/locales/xx.json'],
    ]) {
      const r = await call(`${h.url}${path}`, { method });
      assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
      assert.equal(r.headers.get('allow'), null, `${method} ${path}`);
      if (method !== 'HEAD') assert.equal(r.json.code, 'TESSERA_ROUTE_NOT_FOUND', `${method} ${path}`);
    }
    // OPTIONS is as it was: a listed origin's preflight is 204 with CORS headers; any other OPTIONS is 404.
    const plain = await call(`${h.url}/charges`, { method: 'OPTIONS' });
    assert.equal(plain.status, 404);
    assert.equal(plain.headers.get('allow'), null);
    const preflight = await call(`${h.url}/charges`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('allow'), null);
  });

  it('takes Allow from the routes a router has, on the Express it runs on', () => {
    const router = express.Router();
    const ok = (_req: Request, res: Response) => res.end();
    router.get('/a', ok);
    router.post('/a', ok);
    router.patch('/a/:id', ok);
    router.delete('/a/:id', ok);
    router.all('/any', ok);
    assert.deepEqual(allowedMethods(router, '/a'), ['GET', 'HEAD', 'POST']);
    assert.deepEqual(allowedMethods(router, '/a/'), ['GET', 'HEAD', 'POST']);
    assert.deepEqual(allowedMethods(router, '/a/1'), ['DELETE', 'PATCH']);
    assert.deepEqual(allowedMethods(router, '/b'), []);
    // A route that takes every method has nothing to refuse.
    assert.deepEqual(allowedMethods(router, '/any'), []);
  });

  it('refuses a card number in the query before any route, and does not log it', async () => {
    const r = await call(`${h.url}/config?note=4242%204242%204242%204242`);
    assert.equal(r.status, 400);
    assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED');
    assert.equal(r.json.message, 'card data must not be sent to this server');
    assert.ok(!/4242.?4242.?4242.?4242/.test(h.log.text()));
  });

  it('reads the URL as a route would: + as space, %XX decoded around a broken escape, any script of digits', async () => {
    for (const query of [
      '?note=4242+4242+4242+4242',
      '?bad=%ZZ&note=%34%32%34%32%34%32%34%32%34%32%34%32%34%32%34%32',
      `?note=${encodeURIComponent('４２４２４２４２４２４２４２４２')}`,
      '?note=4242.4242.4242.4242',
    ]) {
      const r = await call(`${h.url}/config${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', query);
      assert.equal(r.json.field, 'query', query);
    }
    const phone = await call(`${h.url}/config?phone=%2B4242424242424242`);
    assert.equal(phone.status, 200);
  });

  it('refuses a card number whose groups form encoding or percent-encoding parted, in the URL and in a body', async () => {
    // Decoded once, each is still encoded: `4242+4242+…` (a form-encoded value put in a query again), `%20`, `%2D`.
    // The `+` after each group was read as a phone number's and the escapes put digits between the groups: all got
    // through (the form body to `req.body`, where the merchant's hooks and logs read it).
    for (const query of [
      '?next=pan%3D4242%2B4242%2B4242%2B4242',
      '?q=4242%25204242%25204242%25204242',
      '?q=4242%252D4242%252D4242%252D4242',
    ]) {
      const r = await call(`${h.url}/config${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', query);
      assert.equal(r.json.field, 'query', query);
    }
    for (const [field, value] of [
      ['form', 'pan=4242+4242+4242+4242&exp=12%2F34'],
      ['returnUrl', 'https://shop.example/pay?card=5555%205555%205555%204444'],
      ['note', '4242%2D4242%2D4242%2D4242'],
      // A sentence as form encoding writes it: the `+` before the first group follows a letter (it was taken for a
      // phone number's, so only three groups were left).
      ['message', 'msg=my+card+is+4242+4242+4242+4242'],
    ]) {
      const r = await call(`${h.url}/charges`, {
        body: { cardToken: 'card_tok_abcdefgh', orderReference: 'o-1', [field!]: value },
      });
      assert.equal(r.status, 400, `${field}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', field);
      assert.equal(r.json.field, field);
      assert.ok(!r.text.includes('4242') && !r.text.includes('5555'), r.text);
    }
    // A phone number's `+` follows no digit: written or percent-encoded, it still passes.
    for (const query of [
      '?phone=%2B44%2020%207946%200958',
      '?phone=%252B1-202-555-0143',
      '?to=%252B4242424242424242',
    ]) {
      const r = await call(`${h.url}/config${query}`);
      assert.equal(r.status, 200, `${query}: ${r.text}`);
    }
  });

  it('refuses a card number whose groups percent-encoded UTF-8 parts, or whose digits it writes, in the URL and in a body', async () => {
    // A shopper's copy of a formatted number (no-break, thin, ideographic or zero-width spaces, full-width digits),
    // put in a query by a page. Decoded once, the URL still held the escapes when encoded twice (a return URL), and a
    // JSON string holding a URL was never decoded: the escapes put digits between the groups, and all got through.
    const logged = h.log.lines.length;
    for (const query of [
      '?q=4242%C2%A04242%C2%A04242%C2%A04242',
      '?next=pan%3D4242%25C2%25A04242%25C2%25A04242%25C2%25A04242',
      '?next=pan%3D5555%25E2%2580%25895555%25E2%2580%25895555%25E2%2580%25894444',
      '?next=pan%3D4242%25E3%2580%25804242%25E3%2580%25804242%25E3%2580%25804242',
      `?next=${encodeURIComponent(encodeURIComponent('４２４２ ４２４２ ４２４２ ４２４２'))}`,
    ]) {
      const r = await call(`${h.url}/config${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', query);
      assert.equal(r.json.field, 'query', query);
    }
    for (const [field, value] of [
      ['returnUrl', 'https://shop.example/pay?card=4242%C2%A04242%C2%A04242%C2%A04242'],
      ['note', '5555%E2%80%8B5555%E2%80%8B5555%E2%80%8B4444'],
      ['memo', 'q=%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92%E3%80%804242%E3%80%804242%E3%80%804242'],
      ['form', 'pan=4242%25C2%25A04242%25C2%25A04242%25C2%25A04242'],
    ]) {
      const r = await call(`${h.url}/charges`, {
        body: { cardToken: 'card_tok_abcdefgh', orderReference: 'o-1', [field!]: value },
      });
      assert.equal(r.status, 400, `${field}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', field);
      assert.equal(r.json.field, field);
    }
    // Only what the request could put there: a random request id, a time or a duration may hold `4242` by chance.
    const lines = JSON.stringify(
      h.log.lines.slice(logged).map(({ requestId, time, pid, hostname, durationMs, ...fromRequest }) => fromRequest),
    );
    assert.ok(lines.includes('TESSERA_CARD_DATA_REFUSED'), lines);
    assert.ok(!/(4242|5555|4444|%EF%BC%94)/i.test(lines), lines);
    // Ordinary encoded text passes: names, emoji, CJK text, an order id after a letter that is no separator.
    for (const query of [
      `?name=${encodeURIComponent('Renée Müller')}&order=4242424242424241`,
      `?q=${encodeURIComponent('café ☕ 😀 你好')}`,
      `?next=${encodeURIComponent(`/thanks?name=${encodeURIComponent('Zoë')}&ref=o-12345`)}`,
    ]) {
      const r = await call(`${h.url}/config${query}`);
      assert.equal(r.status, 200, `${query}: ${r.text}`);
    }
  });

  it('refuses a body whose card number follows a literal `%` that would close a UTF-8 escape, as before', async () => {
    // `%E2%80%81` is U+2001 and `%25E2%2580%2599` a `’` encoded twice; with the last `%` literal, a card number follows.
    for (const note of [
      'x%E2%80%8171 0000 0000 0006',
      'x%25E2%2580%2599000000000003',
      'x%25E2%2580%2599-0000-0000-0003',
    ]) {
      const r = await call(`${h.url}/charges`, {
        body: { cardToken: 'card_tok_abcdefgh', orderReference: 'o-1', note },
      });
      assert.equal(r.status, 400, `${note}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', note);
      assert.equal(r.json.field, 'note');
    }
  });

  it('refuses a card number written with HTML or JavaScript character references, in a body and in the URL', async () => {
    // A note stored at the provider shows as a card number once a dashboard decodes it to HTML; each was accepted,
    // the references' digits sitting between the groups.
    const logged = h.log.lines.length;
    for (const [field, value] of [
      ['note', '4242&#32;4242&#32;4242&#32;4242'],
      ['note', '&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;'],
      ['memo', 'card 5555&nbsp;5555&nbsp;5555&nbsp;4444'],
      ['memo', '5555\\u00a05555\\u00a05555\\u00a04444'],
      ['form', 'pan=4242%26%2332%3B4242%26%2332%3B4242%26%2332%3B4242'],
      ['note', `${'&#xAEA;'.repeat(15)}&#xAEE;`],
      // A reference to a letter parts groups as the letter does in the decoded text, its digits unread.
      ['note', '4242&#233;4242&#233;4242&#233;4242'],
      // Past U+10FFFF a browser shows U+FFFD, but the text itself holds the number in clear: read as written too.
      ['note', 'card &#4242424242424242 thanks'],
      ['memo', 'x&amp;#x5555555555554444;'],
    ]) {
      const r = await call(`${h.url}/charges`, {
        body: { cardToken: 'card_tok_abcdefgh', orderReference: 'o-1', [field!]: value },
      });
      assert.equal(r.status, 400, `${value}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', value);
      assert.equal(r.json.field, field, value);
    }
    // Decoded once by the URL guard, the percent-encoded reference is read; encoded twice, it is read as it stands.
    for (const query of [
      '?note=4242%26%2332%3B4242%26%2332%3B4242%26%2332%3B4242',
      '?next=pan%3D4242%2526%252332%253B4242%2526nbsp%253B4242%2526%2523x20%253B4242',
      '?q=4242%5Cu00204242%5Cu00204242%5Cu00204242',
      '?q=%26%234242424242424242',
    ]) {
      const r = await call(`${h.url}/config${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', query);
      assert.equal(r.json.field, 'query', query);
    }
    const lines = JSON.stringify(
      h.log.lines.slice(logged).map(({ requestId, time, pid, hostname, durationMs, ...fromRequest }) => fromRequest),
    );
    assert.ok(lines.includes('TESSERA_CARD_DATA_REFUSED'), lines);
    assert.ok(!/(4242|5555|4444|&#52;)/i.test(lines), lines);
    // Ordinary HTML and JavaScript in a note, ids beside references, are no card data: the charge's own checks answer.
    for (const note of [
      '&#39;order 4242424242424241&#39; &amp; &lt;b&gt;5f1d7c2a9b3e4d6f8a0b1c2d3e4f5a6b&lt;/b&gt;',
      'ref&nbsp;&ndash;&nbsp;123456789012 \\u0022a4242424242424242b\\u0022',
      'x=0&#46;4242424242424242 to=&#43;4242424242424242',
      // A Hindi word as references, then a 12-digit id: the last reference's digits (2352) made a card number of it.
      '&#2310;&#2343;&#2366;&#2352; 1234 5678 9010',
    ]) {
      const r = await call(`${h.url}/charges`, { body: { cardToken: 'nope', orderReference: 'o-1', note } });
      assert.equal(r.json.field, 'cardToken', `${note}: ${r.text}`);
    }
  });

  /** POST /charges with `raw` as its JSON body, as written (duplicate keys and escapes kept). */
  const charge = (raw: string) => call(`${h.url}/charges`, { raw, headers: { 'content-type': 'application/json' } });

  it('refuses a card number in a value a later duplicate key overwrote, which the parsed body no longer holds', async () => {
    // `JSON.parse` keeps the last of two equal keys: the card number in the first was in the body the helper read, but
    // not in `req.body` it checked, and the charge went on (201 behind the sandbox). Keys and escapes alike.
    for (const raw of [
      '{"email":"4242424242424242","email":"a@b.co","cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
      '{"note":{"pan":"4242 4242 4242 4242"},"note":1,"cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
      '{"a":"\\u0034242424242424242","a":"x","cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
      '{"x":{"5555555555554444":1},"x":2,"cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
    ]) {
      const r = await charge(raw);
      assert.equal(r.status, 400, `${raw}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', raw);
      assert.equal(r.json.field, 'body', raw);
    }
    // A hex id or a UUID in a string passes to the charge's own checks; duplicate keys without a card number are
    // refused as such (docs/decisions/helper.md#helper-duplicate-keys), naming the key.
    const ok = `{"ref":"${randomUUID()}","id":"5f1d7c2a9b3e4d6f8a0b1c2d3e4f5a6b","cardToken":"nope","orderReference":"o-1"}`;
    const r = await charge(ok);
    assert.equal(r.json.field, 'cardToken', r.text);
    const twice = await charge(ok.replace('{', '{"email":"x","email":"a@b.co",'));
    assert.equal(twice.json.code, 'TESSERA_BODY_DUPLICATE_KEY', twice.text);
    assert.equal(twice.json.field, 'email', twice.text);
  });

  it('refuses a security code in a value a later duplicate key overwrote with a blank', async () => {
    // `{"cvv":"123","cvv":""}` parses to a blank `cvv`, which carries nothing: the code itself was in the body the
    // helper read, but not in `req.body` it checked, and the charge went on. Nested, escaped and spaced alike.
    for (const raw of [
      '{"cvv":"123","cvv":"","cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
      '{"card":{"security_code" : 123, "security_code":null},"cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
      '{"\u0063vc":"999","cvc":null,"cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
      '{"CVV2":{"v":"123"},"CVV2":"","cardToken":"card_tok_abcdefgh","orderReference":"o-1"}',
    ]) {
      const r = await charge(raw);
      assert.equal(r.status, 400, `${raw}: ${r.text}`);
      assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', raw);
      assert.equal(r.json.field, 'body', raw);
    }
    // A blank code, a value that only names a code, and `cid` pass to the charge's own checks; given twice, they carry
    // no card data, so the duplicate is what is refused (docs/decisions/helper.md#helper-duplicate-keys).
    for (const [raw, code, field] of [
      [
        '{"cvv" : null ,"note":"cvv","x":{"cid":"c-42"},"cardToken":"nope","orderReference":"o-1"}',
        'TESSERA_INVALID_REQUEST',
        'cardToken',
      ],
      ['{"a":["cvv",":","123"],"cardToken":"nope","orderReference":"o-1"}', 'TESSERA_INVALID_REQUEST', 'cardToken'],
      ['{"cvv":"","cvv":null,"cardToken":"nope","orderReference":"o-1"}', 'TESSERA_BODY_DUPLICATE_KEY', 'cvv'],
      [
        '{"x":{"cid":"c-42","cid":""},"cardToken":"nope","orderReference":"o-1"}',
        'TESSERA_BODY_DUPLICATE_KEY',
        'x.cid',
      ],
    ] as const) {
      const r = await charge(raw);
      assert.equal(r.json.code, code, `${raw}: ${r.text}`);
      assert.equal(r.json.field, field, `${raw}: ${r.text}`);
    }
  });

  it("names no field whose keys, joined, spell a card number, and names a card number's path by its cleaned keys", async () => {
    // Each key is harmless alone; the dotted path of a repeated, forbidden or too-deep key, or of a card number, put
    // `4242.4242.4242.4242` (a card layout the guard refuses in a body) in the answer. Named `body` instead.
    const fields = '"cardToken":"card_tok_abcdefgh","orderReference":"o-1"';
    const deep = (key: string, depth: number, inner: string) =>
      `${`{"${key}":`.repeat(depth)}${inner}${'}'.repeat(depth)}`;
    for (const [raw, code] of [
      [`{${fields},"4242":${deep('4242', 3, '{"x":1,"x":2}')}}`, 'TESSERA_BODY_DUPLICATE_KEY'],
      [`{${fields},"4242 4242":{"4242 4242":1,"4242 4242":2}}`, 'TESSERA_BODY_DUPLICATE_KEY'],
      [`{${fields},"4242":${deep('4242', 3, '{"__proto__":1}')}}`, 'TESSERA_FORBIDDEN_KEY'],
      [`{${fields},"x":${deep('4242', 40, '1')}}`, 'TESSERA_BODY_TOO_DEEP'],
      [`{${fields},"4242 4242":{"4242 4242":{"n":"4242424242424242"}}}`, 'TESSERA_CARD_DATA_REFUSED'],
      // Keys that hold the text of an escape the guard reads as a space (`\u0020`, `\x20`): the field writes their
      // `\` escaped (`4242\u005Cu00204242`), which spells nothing, but the keys as sent do.
      [`{${fields},"4242\\\\u00204242":{"4242\\\\u00204242":1,"4242\\\\u00204242":2}}`, 'TESSERA_BODY_DUPLICATE_KEY'],
      [`{${fields},"4242\\\\x204242":{"4242\\\\x204242":{"__proto__":1}}}`, 'TESSERA_FORBIDDEN_KEY'],
      [`{${fields},"4242\\\\u00204242":${deep('4242\\\\u00204242', 40, '1')}}`, 'TESSERA_BODY_TOO_DEEP'],
      [`{${fields},"4242\\\\u00204242":{"4242\\\\u00204242":{"n":"4242424242424242"}}}`, 'TESSERA_CARD_DATA_REFUSED'],
    ] as const) {
      const r = await charge(raw);
      assert.equal(r.json.code, code, `${raw}: ${r.text}`);
      assert.equal(r.json.field, 'body', `${raw}: ${r.text}`);
      assert.ok(!r.text.includes('4242'), r.text);
    }
    // The keys on the way to a card number are written as other fields write them: escaped, cut after 32 characters.
    for (const [key, field] of [
      ['a\\u202e\\u0000b', 'a\\u202E\\u0000b'],
      ['k'.repeat(5_000), `${'k'.repeat(32)}…`],
    ]) {
      // On the way to a card number, and to a security code (whose path was the keys as sent, a 5,000-character
      // field and a right-to-left override included).
      for (const [inner, last] of [
        ['{"n":"4242424242424242"}', 'n'],
        ['{"cvv":"123"}', 'cvv'],
      ]) {
        const r = await charge(`{${fields},"${key}":${inner}}`);
        assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', r.text);
        assert.equal(r.json.field, `${field}.${last}`, r.text);
      }
    }
  });

  it('answers a path parameter that is not valid percent-encoding with 400 naming the path, not a 500', async () => {
    for (const path of ['/locales/%ZZ.json', '/locales/%E0%A4%A.json']) {
      const r = await call(`${h.url}${path}`);
      assert.equal(r.status, 400, path);
      assert.equal(r.json.code, 'TESSERA_INVALID_REQUEST', path);
      assert.equal(r.json.field, 'path', path);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    }
    assert.ok(!h.log.text().includes('TESSERA_INTERNAL'));
  });

  it('answers CORS only for allowlisted origins', async () => {
    const allowed = await call(`${h.url}/config`, { headers: { origin: 'https://shop.example' } });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://shop.example');
    assert.match(allowed.headers.get('vary') ?? '', /Origin/);
    const other = await call(`${h.url}/config`, { headers: { origin: 'https://evil.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    assert.equal(other.headers.get('access-control-expose-headers'), null);
    const preflight = await call(`${h.url}/charges`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, PATCH');
    // No credentials mode: a cookie-bound host token needs the helper on the page's origin (docs/helper.md "Binding
    // host tokens to the session" says so).
    assert.equal(preflight.headers.get('access-control-allow-credentials'), null);
    const badPreflight = await call(`${h.url}/charges`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(badPreflight.headers.get('access-control-allow-origin'), null);
    // The helper's early refusals carry them too: the listed page can read why it was refused.
    const refused = await call(`${h.url}/config?note=4242%204242%204242%204242`, {
      headers: { origin: 'https://shop.example' },
    });
    assert.equal(refused.json.code, 'TESSERA_CARD_DATA_REFUSED');
    assert.equal(refused.headers.get('access-control-allow-origin'), 'https://shop.example');
  });

  it('lets a listed origin read Retry-After and X-Request-Id, which are not CORS-safelisted response headers', async () => {
    const limited = await startHelper({
      ...options,
      rateLimits: { ...NO_RATE_LIMITS, requestsPerIp: { max: 1, windowMs: 60_000 } },
    });
    try {
      const headers = { origin: 'https://shop.example' };
      await call(`${limited.url}/charges`, { headers, body: {} });
      const r = await call(`${limited.url}/charges`, { headers, body: {} });
      assert.equal(r.status, 429);
      assert.ok(r.headers.get('retry-after'));
      assert.equal(r.headers.get('access-control-allow-origin'), 'https://shop.example');
      // Without this a browser hides both headers from the page's script (Fetch standard, CORS-safelisted names).
      const exposed = (r.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      assert.ok(exposed.includes('retry-after'), String(exposed));
      assert.ok(exposed.includes('x-request-id'), String(exposed));
    } finally {
      await limited.close();
    }
  });

  it('sends no CORS headers at all when no allowlist is configured', async () => {
    const plain = await startHelper({ ...options, corsOrigins: undefined });
    try {
      const r = await call(`${plain.url}/config`, { headers: { origin: 'https://shop.example' } });
      assert.equal(r.headers.get('access-control-allow-origin'), null);
    } finally {
      await plain.close();
    }
  });
});

describe('helper behind an app-wide express.json()', () => {
  it('checks the already-parsed body instead of waiting for the stream', async () => {
    const app = express();
    app.use(express.json());
    app.use('/payments', tesseraHelper({ ...options, logger: captureLogger().logger }));
    const server = await serveApp(app);
    const url = `${server.base}/payments/charges`;
    try {
      const pan = await call(url, { body: { cardToken: 'card_tok_abcdefgh', orderReference: '4242424242424242' } });
      assert.equal(pan.status, 400);
      assert.equal(pan.json.code, 'TESSERA_CARD_DATA_REFUSED');
      assert.equal(pan.json.field, 'orderReference');
      const bad = await call(url, { body: { cardToken: 'nope', orderReference: 'o', email: 'a@b.co' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.field, 'cardToken');
      // The app's parser allows 100 kB; the helper's bodyLimitBytes (16 KiB) still holds for what it is given.
      const big = await call(url, {
        body: { cardToken: 'card_tok_abcdefgh', orderReference: 'o', pad: 'x'.repeat(20_000) },
      });
      assert.equal(big.status, 413, big.text);
      assert.equal(big.json.code, 'TESSERA_BODY_TOO_LARGE');
      assert.equal(big.json.field, 'body');
    } finally {
      await server.close();
    }
  });

  it('refuses a card number of 17 to 19 digits sent as a JSON number, which the parser rounded', async () => {
    const app = express();
    app.use(express.json());
    app.use('/payments', tesseraHelper({ ...options, logger: captureLogger().logger }));
    const server = await serveApp(app);
    const url = `${server.base}/payments/charges`;
    const fields = '"cardToken":"nope","orderReference":"o","email":"a@b.co"';
    try {
      // Luhn-valid 19-digit Visa, Discover and UnionPay numbers: parsed, each loses its last digits (…089800 is
      // …089700), so the parsed body held no card number to find and the charge went on with the first 16 in it.
      for (const pan of ['4329363667431089800', '6011420513553634317', '6224784994011790173']) {
        assert.ok(containsPan(pan) && !containsPan(String(JSON.parse(pan))), pan);
        const r = await call(url, { raw: `{${fields},"ref":${pan}}`, headers: { 'content-type': 'application/json' } });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', pan);
        assert.equal(r.json.field, 'ref', pan);
      }
      // Other large integers (a snowflake id, a nanosecond timestamp) start like no card brand: still taken.
      for (const id of ['1234567890123456789', '-1732645312000000000']) {
        const r = await call(url, { raw: `{${fields},"ref":${id}}`, headers: { 'content-type': 'application/json' } });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.field, 'cardToken', id);
      }
    } finally {
      await server.close();
    }
  });
  it('refuses a rounded card number as the helper reading the body itself does, with the same field', async () => {
    // What a browser's JSON.stringify writes for a 19-digit card number held as a Number (its last digits rounded),
    // the same in exponent form, and the exact digits: the helper reading the body itself took the first two and
    // charged (the card's first 16 digits in req.body), and named the last `body`, where express.json() said `ref`.
    const texts = ['4329363667431089700', '4.3293636674310898e18', '43293636674310898000e-1', '-4329363667431089800'];
    const fields = '"cardToken":"nope","orderReference":"o","email":"a@b.co"';
    const servers = [];
    for (const parser of [undefined, express.json()]) {
      const app = express();
      if (parser) app.use(parser);
      app.use('/payments', tesseraHelper({ ...options, logger: captureLogger().logger }));
      servers.push(await serveApp(app));
    }
    try {
      for (const server of servers) {
        const url = `${server.base}/payments/charges`;
        for (const text of texts) {
          const r = await call(url, {
            raw: `{${fields},"ref":${text}}`,
            headers: { 'content-type': 'application/json' },
          });
          assert.equal(r.status, 400, r.text);
          assert.equal(r.json.code, 'TESSERA_CARD_DATA_REFUSED', text);
          assert.equal(r.json.field, 'ref', text);
        }
        // Large integers of no card brand still pass to the charge's own checks.
        const id = await call(url, {
          raw: `{${fields},"ref":1732645312000000000}`,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(id.json.field, 'cardToken', id.text);
      }
    } finally {
      for (const server of servers) {
        await server.close();
      }
    }
  });
});

describe('helper behind an app-wide parser of other media types', () => {
  it('refuses a form or text body another parser read, as it refuses one it reads itself (a cross-site form sends those without a preflight)', async () => {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use(express.text());
    app.use(express.json({ type: ['application/json', 'application/csp-report'] }));
    app.use('/payments', tesseraHelper({ ...options, logger: captureLogger().logger }));
    const server = await serveApp(app);
    const url = `${server.base}/payments/charges`;
    const fields = { cardToken: 'card_tok_abcdefgh', orderReference: 'order-1', email: 'a@b.co' };
    try {
      const bodies: [string, string][] = [
        ['application/x-www-form-urlencoded', new URLSearchParams(fields).toString()],
        ['text/plain', JSON.stringify(fields)],
        ['application/csp-report', JSON.stringify(fields)],
      ];
      for (const [type, raw] of bodies) {
        const r = await call(url, { raw, headers: { 'content-type': type } });
        assert.equal(r.status, 415, `${type}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_UNSUPPORTED_MEDIA_TYPE', type);
        assert.equal(r.json.field, 'content-type', type);
      }
      // JSON another parser read is still taken: the check is on the media type, not on who parsed it.
      const json = await call(url, { body: { ...fields, cardToken: 'nope' } });
      assert.equal(json.status, 400, json.text);
      assert.equal(json.json.field, 'cardToken');
    } finally {
      await server.close();
    }
  });
});

/**
 * The helper at `/payments` behind a bridge from another framework: it reads the stream, then leaves `req.body` a getter
 * with no setter, the one `getter(bytes)` gives for the request (one that parses lazily, throws, or gives the text).
 */
function behindBodyGetter(
  sb: RunningSandbox,
  getter: (bytes: Buffer) => () => unknown,
  logger: pino.Logger = captureLogger().logger,
) {
  return behindBridge(
    sb,
    (req, bytes) => Object.defineProperty(req, 'body', { configurable: true, enumerable: true, get: getter(bytes) }),
    logger,
  );
}

/** The helper at `/payments` behind a bridge that reads the stream, then puts `req.body` in place as `define` does. */
function behindBridge(
  sb: RunningSandbox,
  define: (req: Request, bytes: Buffer) => void,
  logger: pino.Logger = captureLogger().logger,
) {
  const app = express();
  app.use((req, _res, next) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      define(req, Buffer.concat(chunks));
      next();
    });
  });
  app.use(
    '/payments',
    tesseraHelper({
      ...legacyHelperOptions(sb),
      startupKeyCheck: false,
      resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
      logger,
    }),
  );
  return serveApp(app);
}

/** An app-wide parser that reads every body and leaves `as(bytes)` in `req.body`. */
function bytesParser(as: (bytes: Buffer) => unknown): express.RequestHandler {
  return (req, _res, next) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      req.body = as(Buffer.concat(chunks));
      next();
    });
  };
}

describe('helper behind an app-wide parser that leaves bytes, text or an inflated body', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await startSandbox();
  });
  after(() => sb.close());

  /** A merchant's app with `parser` in front of the helper at /payments; its own error handler renders HTML. */
  async function shop(parser: express.RequestHandler) {
    const app = express();
    app.use(parser);
    app.use(
      '/payments',
      tesseraHelper({
        ...legacyHelperOptions(sb),
        startupKeyCheck: false,
        resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
        logger: captureLogger().logger,
      }),
    );
    app.use((_err: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
      res.status(500).type('html').send('<h1>Something went wrong</h1>');
    });
    const server = await serveApp(app);
    return { url: `${server.base}/payments/charges`, close: server.close };
  }

  /** POSTs `body` chunked (no Content-Length), as a client that streams it does. */
  function chunked(url: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      for (let i = 0; i < body.length; i += 4096) req.write(body.slice(i, i + 4096));
      req.end();
    });
  }

  const refusals: [string, string, number, string, string][] = [
    [
      'a card number',
      '{"cardToken":"4242424242424242","orderReference":"o"}',
      400,
      'TESSERA_CARD_DATA_REFUSED',
      'cardToken',
    ],
    ['malformed JSON', '{"cardToken":', 400, 'TESSERA_BODY_MALFORMED', 'body'],
    ['an array', '[1]', 400, 'TESSERA_BODY_NOT_OBJECT', 'body'],
    ['null', 'null', 400, 'TESSERA_BODY_NOT_OBJECT', 'body'],
    ['a forbidden key', '{"__proto__":{"x":1}}', 400, 'TESSERA_FORBIDDEN_KEY', '__proto__'],
  ];

  for (const [name, parser] of [
    ["express.raw({ type: 'application/json' })", express.raw({ type: 'application/json' })],
    ["express.raw({ type: '*/*' })", express.raw({ type: '*/*' })],
    ["express.text({ type: 'application/json' })", express.text({ type: 'application/json' })],
    // A bridge from a fetch-style framework leaves the bytes as a Uint8Array or an ArrayBuffer, not a Buffer.
    ['a parser that leaves a Uint8Array', bytesParser((b) => new Uint8Array(b))],
    ['a parser that leaves an ArrayBuffer', bytesParser((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.length))],
  ] as const) {
    it(`reads the body ${name} left unparsed by its own rules: charges a good one, refuses a bad one`, async () => {
      const app = await shop(parser);
      try {
        // Before, the helper took the bytes or text for the parsed body: a good charge was 400 (`cardToken is
        // required` or `the body must be a JSON object`), and a card number in it was not refused as card data.
        const token = await cardToken(sb);
        const good = await call(app.url, { body: { cardToken: token, orderReference: 'o-1', email: 'a@b.co' } });
        assert.equal(good.status, 201, good.text);
        for (const [what, raw, status, code, field] of refusals) {
          const r = await call(app.url, { raw, headers: { 'content-type': 'application/json' } });
          assert.equal(r.status, status, `${what}: ${r.text}`);
          assert.equal(r.json.code, code, what);
          assert.equal(r.json.field, field, what);
        }
        // A chunked body has no Content-Length to check first: its bytes are measured against bodyLimitBytes.
        const big = await chunked(app.url, JSON.stringify({ cardToken: token, pad: 'x'.repeat(20_000) }));
        assert.equal(big.status, 413, JSON.stringify(big.json));
        assert.equal(big.json.code, 'TESSERA_BODY_TOO_LARGE');
        // A form is still refused by its media type before anything is read.
        const form = await call(app.url, {
          raw: 'cardToken=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        assert.equal(form.status, 415, form.text);
      } finally {
        app.close();
      }
    });
  }

  it('refuses a compressed body an app-wide express.json() inflated, as it refuses one it reads itself (415, content-encoding)', async () => {
    const app = await shop(express.json());
    try {
      // 90 kB of JSON in about 200 bytes of gzip: its Content-Length was all bodyLimitBytes (16 KiB) was held to.
      const padded = JSON.stringify({
        cardToken: await cardToken(sb),
        orderReference: 'o-1',
        email: 'a@b.co',
        pad: ' '.repeat(90_000),
      });
      for (const [encoding, raw] of [
        ['gzip', gzipSync(padded)],
        ['deflate', deflateSync('{}')],
      ] as const) {
        const r = await call(app.url, {
          raw,
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        });
        assert.equal(r.status, 415, `${encoding}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_UNSUPPORTED_MEDIA_TYPE', encoding);
        assert.equal(r.json.field, 'content-encoding', encoding);
      }
    } finally {
      app.close();
    }
  });

  it('holds a body an app-wide parser read without a declared length to bodyLimitBytes, in work bounded by it too', async () => {
    // express.json({ limit: '1mb' }) is common; a chunked body has no Content-Length for the helper to check first.
    // Before, a 40 kB chunked body was charged where the helper reading it itself answered 413.
    const app = await shop(express.json({ limit: '1mb' }));
    try {
      const token = await cardToken(sb);
      const big = await chunked(
        app.url,
        JSON.stringify({ cardToken: token, orderReference: 'o-1', email: 'a@b.co', pad: 'x'.repeat(40_000) }),
      );
      assert.equal(big.status, 413, JSON.stringify(big.json));
      assert.equal(big.json.code, 'TESSERA_BODY_TOO_LARGE');
      assert.equal(big.json.field, 'body');
      // Many small values count too, not only long strings.
      const many = await chunked(
        app.url,
        JSON.stringify({ cardToken: token, ids: Array.from({ length: 9_000 }, () => 1) }),
      );
      assert.equal(many.status, 413, JSON.stringify(many.json));
      // Under the limit, chunked, it is charged.
      const good = await chunked(app.url, JSON.stringify({ cardToken: token, orderReference: 'o-1', email: 'a@b.co' }));
      assert.equal(good.status, 201, JSON.stringify(good.json));
    } finally {
      app.close();
    }
    // A bridge's parser may share one object in many places: 40 levels of { a: x, b: x } are 2^40 leaves to walk
    // (before, the guards walked every one: 20 levels took seconds, 40 would not end); counted as written, it is 413.
    const bridged = await shop((req, _res, next) => {
      req.resume();
      req.on('end', () => {
        let x: unknown = { s: 'leaf' };
        for (let i = 0; i < 40; i++) x = { a: x, b: x };
        req.body = { cardToken: 'card_tok_abcdefgh', orderReference: 'o', x };
        next();
      });
    });
    try {
      const r = await call(bridged.url, { raw: '{}', headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 413, r.text);
      assert.equal(r.json.code, 'TESSERA_BODY_TOO_LARGE');
    } finally {
      bridged.close();
    }
  });

  it('answers a body whose req.body getter throws (a bridge that parses lazily) 400 naming body, and logs why', async () => {
    // A bridge from another framework: it reads the stream, then parses on first use of req.body and throws on bytes it
    // cannot parse, as JSON.parse does (its message quotes the start of the body: never logged unredacted).
    const { logger, log: logs } = captureLogger();
    const server = await behindBodyGetter(sb, (bytes) => () => JSON.parse(bytes.toString()), logger);
    try {
      const url = `${server.base}/payments/charges`;
      for (const raw of ['{"cardToken": 4242424242424242', '{"orderReference": "4242 4242 4242 4242" oops}', '{']) {
        const r = await call(url, { raw, headers: { 'content-type': 'application/json' } });
        assert.equal(r.status, 400, `${raw}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_BODY_UNREADABLE', r.text);
        assert.equal(r.json.field, 'body', r.text);
      }
      const lines = logs.lines.filter((l) => l.event === 'tessera.body.unreadable');
      assert.equal(lines.length, 3, JSON.stringify(logs.lines));
      assert.match(JSON.stringify(lines[0]), /SyntaxError/);
      assert.ok(!logs.text().replace(/\D/g, '').includes('4242424242424242'), 'no card number in the log');
      assert.ok(!logs.lines.some((l) => l.event === 'tessera.error'), 'not the helper failing');
      // A body the getter can parse is read as any other parser's.
      const ok = await call(url, { body: { cardToken: 'nope', orderReference: 'o', email: 'a@b.co' } });
      assert.equal(ok.status, 400, ok.text);
      assert.equal(ok.json.field, 'cardToken');
    } finally {
      await server.close();
    }
  });

  it('answers a req.body that is a Promise (a bridge that parses asynchronously) 400 naming body, and logs why', async () => {
    // Read as an object with no fields, it was answered "cardToken is required": the sender was told to fix a field it
    // had sent. A rejected one must not become an unhandled rejection either.
    const { logger, log: logs } = captureLogger();
    const kinds = ['resolved', 'rejected', 'thenable'] as const;
    let next = 0;
    const server = await behindBodyGetter(
      sb,
      (bytes) => {
        const kind = kinds[next++ % kinds.length];
        const parse = () => JSON.parse(bytes.toString()) as unknown;
        if (kind === 'resolved') return () => Promise.resolve(parse());
        if (kind === 'rejected') {
          return () => Promise.reject(new Error('the bridge could not parse the body'));
        }
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise is the case under test
        return () => ({ then: (resolve: (v: unknown) => void) => resolve(parse()) });
      },
      logger,
    );
    try {
      for (const kind of kinds) {
        const r = await call(`${server.base}/payments/charges`, {
          body: { cardToken: 'card_tok_x', orderReference: 'o', email: 'a@b.co' },
        });
        assert.equal(r.status, 400, `${kind}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_BODY_UNREADABLE', `${kind}: ${r.text}`);
        assert.equal(r.json.field, 'body', `${kind}: ${r.text}`);
      }
      const lines = logs.lines.filter((l) => l.event === 'tessera.body.unreadable');
      assert.equal(lines.length, kinds.length, JSON.stringify(logs.lines));
      for (const line of lines) assert.equal(line.reason, 'promise', JSON.stringify(line));
      assert.ok(!logs.lines.some((l) => l.event === 'tessera.error'), 'not the helper failing');
    } finally {
      await server.close();
    }
  });

  it('answers a Promise of another realm, a thenable over a rejected Promise and a Promise with a hostile then 400, with no unhandled rejection', async () => {
    // Only a Promise of this realm had its rejection handled: one made in a vm context, or a thenable wrapping the
    // bridge's own Promise, rejected unhandled (a crash under Node's default --unhandled-rejections=throw), and a
    // Promise whose own `then` or `catch` threw was 500 TESSERA_INTERNAL.
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const { logger, log: logs } = captureLogger();
    const hostile = (name: 'then' | 'catch') => {
      const p = Promise.reject(new Error('the bridge could not parse the body'));
      Object.defineProperty(p, name, {
        value: () => {
          throw new Error(`hostile ${name}`);
        },
      });
      return p;
    };
    const kinds = {
      'another realm': () => runInNewContext('Promise.reject(new Error("the bridge could not parse the body"))'),
      'a thenable over a rejected Promise': () => {
        const parsing = Promise.reject(new Error('the bridge could not parse the body'));
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise is the case under test
        return { then: (ok: (v: unknown) => unknown, ko: (e: unknown) => unknown) => parsing.then(ok, ko) };
      },
      'a thenable whose then throws': () => ({
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise is the case under test
        then: () => {
          throw new Error('hostile then');
        },
      }),
      'a thenable that never settles': () => ({
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise is the case under test
        then: () => {},
      }),
      'a Promise with a hostile own then': () => hostile('then'),
      'a Promise with a hostile own catch': () => hostile('catch'),
    } as const;
    const names = Object.keys(kinds) as (keyof typeof kinds)[];
    let next = 0;
    const server = await behindBodyGetter(sb, () => kinds[names[next++]!], logger);
    try {
      for (const kind of names) {
        const r = await call(`${server.base}/payments/charges`, {
          body: { cardToken: 'card_tok_x', orderReference: 'o', email: 'a@b.co' },
        });
        assert.equal(r.status, 400, `${kind}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_BODY_UNREADABLE', `${kind}: ${r.text}`);
        assert.equal(r.json.field, 'body', `${kind}: ${r.text}`);
      }
      // Unhandled rejections are reported once the microtasks and the next macrotask have run.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        rejections.map((r) => String(r)),
        [],
      );
      const lines = logs.lines.filter((l) => l.event === 'tessera.body.unreadable');
      assert.equal(lines.length, names.length, JSON.stringify(logs.lines));
      assert.ok(!logs.lines.some((l) => l.event === 'tessera.error'), JSON.stringify(logs.lines));
    } finally {
      process.off('unhandledRejection', onRejection);
      await server.close();
    }
  });

  it('logs no card number a req.body getter threw as a number, a bigint or in a number field', async () => {
    const { logger, log: logs } = captureLogger();
    const thrown: unknown[] = [
      4242424242424242,
      -4242424242424242,
      4242424242424242n,
      { errors: [{ path: 'cardNumber', received: 4242424242424242 }] },
      Object.assign(new Error('not JSON'), { value: 4242424242424242 }),
    ];
    let next = 0;
    const server = await behindBodyGetter(
      sb,
      () => {
        const what = thrown[next++];
        return () => {
          throw what;
        };
      },
      logger,
    );
    try {
      for (const what of thrown) {
        const r = await call(`${server.base}/payments/charges`, { body: { orderReference: 'o' } });
        assert.equal(r.status, 400, `${String(what)}: ${r.text}`);
        assert.equal(r.json.code, 'TESSERA_BODY_UNREADABLE', r.text);
      }
      const lines = logs.lines.filter((l) => l.event === 'tessera.body.unreadable');
      assert.equal(lines.length, thrown.length, JSON.stringify(logs.lines));
      // Before, each was written as the number it was: `"cause":4242424242424242`.
      assert.ok(!logs.text().replace(/\D/g, '').includes('4242424242424242'), logs.text());
      assert.equal(lines[0]!.cause, '[redacted-card]');
      assert.equal(lines[1]!.cause, '-[redacted-card]');
    } finally {
      await server.close();
    }
  });

  it('reads a req.body getter once: what the route gets is what was checked, even when a second read throws', async () => {
    // A bridge whose getter parses on first read and fails on the next (a consumed stream): the route read it again.
    let reads = 0;
    const server = await behindBodyGetter(sb, (bytes) => {
      let read = 0;
      return () => {
        reads++;
        if (read++ === 0) return JSON.parse(bytes.toString());
        throw new Error('the body stream was already consumed');
      };
    });
    try {
      const r = await call(`${server.base}/payments/charges`, {
        body: { cardToken: 'nope', orderReference: 'o', email: 'a@b.co' },
      });
      // Before: 500 TESSERA_INTERNAL, the route's read of req.body throwing.
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.field, 'cardToken', r.text);
      assert.equal(reads, 1, 'read once, by the check');
    } finally {
      await server.close();
    }
  });

  it('reads a body a getter-only req.body gives as text or bytes (no setter to take the parsed body back)', async () => {
    // A bridge that keeps the body read-only: a getter and no setter, so the helper cannot assign what it parsed.
    let kind: 'text' | 'bytes' = 'text';
    const server = await behindBodyGetter(sb, (bytes) => {
      const value = kind === 'text' ? bytes.toString() : new Uint8Array(bytes);
      return () => value;
    });
    try {
      const url = `${server.base}/payments/charges`;
      for (const k of ['text', 'bytes'] as const) {
        kind = k;
        const r = await call(url, { body: { cardToken: 'nope', orderReference: 'o', email: 'a@b.co' } });
        assert.equal(r.status, 400, `${k}: ${r.text}`);
        assert.equal(r.json.field, 'cardToken', `${k}: ${r.text}`);
        const none = await call(url, { raw: '', headers: { 'content-type': 'application/json' } });
        assert.equal(none.status, 400, `${k}: ${none.text}`);
        assert.equal(none.json.field, 'cardToken', `${k}: ${none.text}`);
      }
    } finally {
      await server.close();
    }
  });

  it('reads a body a bridge left as a req.body it cannot redefine (not configurable): text, bytes, a getter', async () => {
    // The helper put the parsed body over req.body with defineProperty, which throws for a property that is not
    // configurable: 500 TESSERA_INTERNAL for a merchant's ordinary bridge. Its routes now read the checked body.
    const kinds = {
      'text in a read-only property': (req: Request, bytes: Buffer) =>
        Object.defineProperty(req, 'body', { value: bytes.toString(), enumerable: true }),
      'bytes in a read-only property': (req: Request, bytes: Buffer) =>
        Object.defineProperty(req, 'body', { value: new Uint8Array(bytes), enumerable: true }),
      'text from a getter': (req: Request, bytes: Buffer) =>
        Object.defineProperty(req, 'body', { get: () => bytes.toString(), enumerable: true }),
      'an object from a getter that throws on a second read': (req: Request, bytes: Buffer) => {
        let reads = 0;
        Object.defineProperty(req, 'body', {
          get: () => {
            if (reads++ > 0) throw new Error('the body stream was already consumed');
            return JSON.parse(bytes.toString()) as unknown;
          },
        });
      },
    } as const;
    let kind: keyof typeof kinds = 'text in a read-only property';
    const { logger, log: logs } = captureLogger();
    const server = await behindBridge(sb, (req, bytes) => kinds[kind](req, bytes), logger);
    try {
      const url = `${server.base}/payments/charges`;
      for (const k of Object.keys(kinds) as (keyof typeof kinds)[]) {
        kind = k;
        const good = await call(url, {
          body: { cardToken: await cardToken(sb), orderReference: 'o-1', email: 'a@b.co' },
        });
        assert.equal(good.status, 201, `${k}: ${good.text}`);
        const r = await call(url, { body: { cardToken: 'nope', orderReference: 'o', email: 'a@b.co' } });
        assert.equal(r.status, 400, `${k}: ${r.text}`);
        assert.equal(r.json.field, 'cardToken', `${k}: ${r.text}`);
        const card = await call(url, { body: { cardToken: CARD, orderReference: 'o', email: 'a@b.co' } });
        assert.equal(card.status, 400, `${k}: ${card.text}`);
        assert.equal(card.json.code, 'TESSERA_CARD_DATA_REFUSED', `${k}: ${card.text}`);
      }
      assert.ok(!logs.lines.some((l) => l.event === 'tessera.error'), JSON.stringify(logs.lines));
    } finally {
      await server.close();
    }
  });

  it('answers a req.body Proxy any of whose traps throws 400 TESSERA_BODY_UNREADABLE, logged with its reason', async () => {
    // A getPrototypeOf trap that threw was 500 TESSERA_INTERNAL (the bytes check's `instanceof Buffer`); so was a trap
    // that threw only on the route's read of the body, after the checks had read it once.
    const traps = ['getPrototypeOf', 'ownKeys', 'get', 'getOwnPropertyDescriptor'] as const;
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const { logger, log: logs } = captureLogger();
    let trap: string = traps[0];
    let nested = false;
    const hostile = (target: object) =>
      new Proxy(target, {
        [trap]: () => {
          throw new Error(`hostile ${trap}`);
        },
      });
    const server = await behindBridge(
      sb,
      (req, bytes) => {
        const parsed = JSON.parse(bytes.toString()) as Record<string, unknown>;
        req.body = nested ? { ...parsed, billing: hostile({ city: 'x' }) } : hostile(parsed);
      },
      logger,
    );
    try {
      for (const n of [false, true]) {
        nested = n;
        for (const t of traps) {
          // getPrototypeOf is no trap a nested value's copy reads.
          if (n && t === 'getPrototypeOf') continue;
          trap = t;
          const r = await call(`${server.base}/payments/charges`, {
            body: { cardToken: 'card_tok_x', orderReference: 'o', email: 'a@b.co' },
          });
          const what = `${n ? 'nested ' : ''}${t}`;
          assert.equal(r.status, 400, `${what}: ${r.text}`);
          assert.equal(r.json.code, 'TESSERA_BODY_UNREADABLE', `${what}: ${r.text}`);
          assert.equal(r.json.field, 'body', `${what}: ${r.text}`);
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(rejections.map(String), []);
      const lines = logs.lines.filter((l) => l.event === 'tessera.body.unreadable');
      assert.equal(lines.length, traps.length * 2 - 1, JSON.stringify(logs.lines));
      for (const line of lines) assert.equal(line.reason, 'contents', JSON.stringify(line));
      assert.match(JSON.stringify(lines[0]), /hostile getPrototypeOf/);
      assert.ok(!logs.lines.some((l) => l.event === 'tessera.error'), JSON.stringify(logs.lines));
    } finally {
      process.off('unhandledRejection', onRejection);
      await server.close();
    }
  });

  it('reads each property of a req.body Proxy once: the route gets what was checked, and a has trap is never asked', async () => {
    // A Proxy (or getter) that answers a harmless value to the checks and a card number to the route must not get a
    // card number past the guard; one whose `has` trap throws is read as its target (no check asks `in`).
    let kind: 'two-faced' | 'has' = 'two-faced';
    const server = await behindBridge(sb, (req, bytes) => {
      const parsed = JSON.parse(bytes.toString()) as Record<string, unknown>;
      let reads = 0;
      req.body = new Proxy(
        parsed,
        kind === 'two-faced'
          ? { get: (t, key) => (key === 'cardToken' && reads++ > 0 ? '4242424242424242' : Reflect.get(t, key)) }
          : {
              has: () => {
                throw new Error('hostile has');
              },
            },
      );
    });
    try {
      const url = `${server.base}/payments/charges`;
      const twoFaced = await call(url, { body: { cardToken: 'nope', orderReference: 'o', email: 'a@b.co' } });
      assert.equal(twoFaced.status, 400, twoFaced.text);
      assert.equal(twoFaced.json.code, 'TESSERA_INVALID_REQUEST', twoFaced.text);
      assert.equal(twoFaced.json.field, 'cardToken', twoFaced.text);
      kind = 'has';
      const good = await call(url, {
        body: { cardToken: await cardToken(sb), orderReference: 'o-1', email: 'a@b.co' },
      });
      assert.equal(good.status, 201, good.text);
    } finally {
      await server.close();
    }
  });

  it("reads a req.body array's length once, as every other property: one that throws on a second read is no 400", async () => {
    // The copy read `length` again before each element: an array (a Proxy's, a getter's) that answers it once, as the
    // getter of the body itself may, was 400 TESSERA_BODY_UNREADABLE, and one that grew gave the copy elements no
    // length had announced.
    let lengthReads = 0;
    const server = await behindBridge(sb, (req, bytes) => {
      const parsed = JSON.parse(bytes.toString()) as Record<string, unknown>;
      const list = new Proxy(['a', 'b'], {
        get: (t, key) => {
          if (key !== 'length') return Reflect.get(t, key);
          if (lengthReads++ > 0) throw new Error('the list was already consumed');
          return t.length;
        },
      });
      req.body = { ...parsed, extra: { list } };
    });
    try {
      const good = await call(`${server.base}/payments/charges`, {
        body: { cardToken: await cardToken(sb), orderReference: 'o-1', email: 'a@b.co' },
      });
      assert.equal(good.status, 201, good.text);
      assert.equal(lengthReads, 1);
    } finally {
      await server.close();
    }
  });

  it('answers a JSON null an app-wide express.json({ strict: false }) parsed as the body that is no object', async () => {
    const app = await shop(express.json({ strict: false }));
    try {
      const r = await call(app.url, { raw: 'null', headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'TESSERA_BODY_NOT_OBJECT');
      assert.equal(r.json.field, 'body');
    } finally {
      app.close();
    }
  });
});

/**
 * One helper for many shops, mounted at `/shops/:shop/payments` over a real sandbox (3-D Secure for order `o-3ds`), with
 * what its `onCharge` saw; `failing` makes `onCharge` throw, `forget` makes the store lose a token's answer.
 */
async function shopsHelper() {
  const sb = await startSandbox();
  const app = express();
  const server = await serveApp(app);
  const store = new MemoryStore();
  const seen: { source: string; params: unknown; orderReference: string }[] = [];
  const shops = {
    sb,
    app,
    store,
    seen,
    failing: false,
    helper: undefined as unknown as ReturnType<typeof tesseraHelper>,
    pay: (shop: string, body: Record<string, unknown>, root = 'shops') =>
      call(`${server.base}/${root}/${shop}/payments/charges`, { body, headers: { accept: 'application/json' } }),
    /** The store loses the token's answer (a restarted MemoryStore, an evicting Redis). */
    forget: async (cardToken: string) => {
      const key = resultKey(cardToken);
      assert.ok(await store.release(key, (await store.get(key))!));
    },
    close: async () => {
      await server.close();
      await sb.close();
    },
  };
  shops.helper = tesseraHelper({
    ...legacyHelperOptions(sb),
    rateLimits: NO_RATE_LIMITS,
    startupKeyCheck: false,
    store,
    logger: captureLogger().logger,
    publicUrl: `${server.base}/shops/main/payments`,
    resolveCharge: (req) => ({ amount: 4200, currency: 'GBP', threeDSecure: req.body.orderReference === 'o-3ds' }),
    onCharge: (event, { req, source }) => {
      if (shops.failing) throw new Error('the orders table is locked');
      seen.push({ source, params: { ...req.params }, orderReference: event.orderReference });
    },
  });
  app.use('/shops/:shop/payments', shops.helper);
  return shops;
}

describe('helper mounted under a path with parameters', () => {
  it("gives resolveCharge the parameters of the path it is mounted under, and its routes' own parameters win", async () => {
    const sb = await startSandbox();
    const seen: unknown[] = [];
    const helper = tesseraHelper({
      ...legacyHelperOptions(sb),
      startupKeyCheck: false,
      logger: captureLogger().logger,
      resolveCharge: (req) => {
        seen.push({ ...req.params });
        return { amount: 100, currency: 'EUR' };
      },
    });
    const app = express();
    // A multi-tenant shop: the tenant is in the path, on the app itself and behind a Router of its own.
    app.use('/t/:tenant/payments', helper);
    const shops = express.Router({ mergeParams: true });
    shops.use('/payments', helper);
    app.use('/shops/:shop', shops);
    // A parameter of the mount path with the name of a route's own (`/locales/:file`).
    app.use('/f/:file/payments', helper);
    const server = await serveApp(app);
    const base = `${server.base}`;
    try {
      for (const path of ['/t/acme/payments/charges', '/shops/bolt/payments/charges']) {
        const body = { cardToken: await cardToken(sb), orderReference: 'order-1', email: 'a@b.co' };
        const r = await call(`${base}${path}`, { body });
        assert.equal(r.status, 201, `${path}: ${r.text}`);
      }
      // Before, the helper's router dropped them: `req.params` was `{}`, and the hook could not tell the tenant.
      assert.deepEqual(seen, [{ tenant: 'acme' }, { shop: 'bolt' }]);
      const locale = await call(`${base}/f/nope/payments/locales/de.json`);
      assert.equal(locale.status, 200, locale.text);
    } finally {
      await server.close();
      await sb.close();
    }
  });

  it("gives onCharge on the 3-D Secure return the parameters of the charge's own mount path, not publicUrl's", async () => {
    const sb = await startSandbox();
    const app = express();
    const server = await serveApp(app);
    const store = new MemoryStore();
    try {
      const seen: { source: string; params: unknown; orderReference: string }[] = [];
      const helper = tesseraHelper({
        ...legacyHelperOptions(sb),
        rateLimits: NO_RATE_LIMITS,
        startupKeyCheck: false,
        store,
        logger: captureLogger().logger,
        // One public URL for every shop: the provider sends each shopper back to the path of shop `main`.
        publicUrl: `${server.base}/shops/main/payments`,
        resolveCharge: () => ({ amount: 4200, currency: 'GBP', threeDSecure: true }),
        onCharge: (event, { req, source }) => {
          seen.push({ source, params: { ...req.params }, orderReference: event.orderReference });
        },
      });
      app.use('/shops/:shop/payments', helper);
      /** A 3-D Secure charge sent to `path`, its challenge passed: the return URL and the store key of its record. */
      async function challenged(path: string, orderReference: string): Promise<{ returnUrl: string; record: string }> {
        const body = { cardToken: await cardToken(sb, '4000000000003220'), orderReference, email: 'a@b.co' };
        const started = await call(`${server.base}${path}`, { body });
        assert.equal(started.status, 202, started.text);
        const returnUrl = await answerChallenge(sb, started.json.redirectUrl);
        assert.ok(returnUrl.startsWith(`${server.base}/shops/main/payments/charges/3ds-return?`), returnUrl);
        const token = new URL(returnUrl).searchParams.get('cko-payment-token')!;
        return { returnUrl, record: threeDsKey(token) };
      }
      async function returned(returnUrl: string): Promise<void> {
        const back = await call(returnUrl, { headers: { accept: 'application/json' } });
        assert.equal(back.status, 201, back.text);
      }
      const alpha = await challenged('/shops/alpha/payments/charges', 'order-a');
      // The record holds the parameters as plain strings, nothing else of the request.
      assert.deepEqual(JSON.parse((await store.get(alpha.record))!).params, { shop: 'alpha' });
      await returned(alpha.returnUrl);
      // Before, the hook saw `{ shop: 'main' }` (publicUrl's path), and the order was filed under the wrong shop.
      assert.deepEqual(seen.pop(), { source: '3ds-return', params: { shop: 'alpha' }, orderReference: 'order-a' });

      // A value longer than the record keeps is left out: the hook sees no `shop` rather than another shop's.
      const long = await challenged(`/shops/${'b'.repeat(MOUNT_PARAM_CHARS + 1)}/payments/charges`, 'order-b');
      await returned(long.returnUrl);
      assert.deepEqual(seen.pop(), { source: '3ds-return', params: {}, orderReference: 'order-b' });

      // A record written before the parameters were kept: the return's own, as before.
      const old = await challenged('/shops/gamma/payments/charges', 'order-c');
      const { params: _, ...before } = JSON.parse((await store.get(old.record))!);
      await store.set(old.record, JSON.stringify(before), 60_000);
      await returned(old.returnUrl);
      assert.deepEqual(seen.pop(), { source: '3ds-return', params: { shop: 'main' }, orderReference: 'order-c' });
    } finally {
      await server.close();
      await sb.close();
    }
  });

  it("refuses a card token's charge sent again under another mount path: onCharge never sees another shop's parameters", async () => {
    const shops = await shopsHelper();
    const { sb, seen, pay } = shops;
    try {
      // 3-D Secure: started for shop alpha, the challenge passed, the shopper not yet back through the return.
      const threeDs = { cardToken: await cardToken(sb, '4000000000003220'), orderReference: 'o-3ds', email: 'a@b.co' };
      const started = await pay('alpha', threeDs);
      assert.equal(started.status, 202, started.text);
      const returnUrl = await answerChallenge(sb, started.json.redirectUrl);
      // The same token and order sent to shop beta: before, it settled the charge and beta's onCharge recorded it.
      const elsewhere = await pay('beta', threeDs);
      assert.equal(elsewhere.status, 409, elsewhere.text);
      assert.equal(elsewhere.json.code, 'TESSERA_CARD_TOKEN_USED');
      assert.deepEqual(seen, []);
      const back = await call(returnUrl, { headers: { accept: 'application/json' } });
      assert.equal(back.status, 201, back.text);
      assert.deepEqual(seen.splice(0), [{ source: '3ds-return', params: { shop: 'alpha' }, orderReference: 'o-3ds' }]);

      // A charge whose onCharge failed: its retry delivers it, but only under the shop that charged it.
      const plain = { cardToken: await cardToken(sb), orderReference: 'o-plain', email: 'a@b.co' };
      shops.failing = true;
      assert.equal((await pay('alpha', plain)).json.code, 'TESSERA_ON_CHARGE_FAILED');
      shops.failing = false;
      const retried = await pay('beta', plain);
      assert.equal(retried.status, 409, retried.text);
      assert.deepEqual(seen, []);
      assert.equal((await pay('alpha', plain)).status, 201);
      assert.deepEqual(seen.splice(0), [{ source: 'charge', params: { shop: 'alpha' }, orderReference: 'o-plain' }]);
    } finally {
      await shops.close();
    }
  });

  it("refuses a token sent under another shop's path once the store forgot its answer: the provider never replays it there", async () => {
    const shops = await shopsHelper();
    const { sb, seen, pay, forget } = shops;
    try {
      const threeDs = { cardToken: await cardToken(sb, '4000000000003220'), orderReference: 'o-3ds', email: 'a@b.co' };
      const started = await pay('alpha', threeDs);
      assert.equal(started.status, 202, started.text);
      await forget(threeDs.cardToken);
      // Before, the same idempotency key made the provider replay alpha's challenge, and the record of the charge was
      // written again with beta's parameters: its return told beta's onCharge.
      const elsewhere = await pay('beta', threeDs);
      assert.equal(elsewhere.status, 409, elsewhere.text);
      const back = await call(await answerChallenge(sb, started.json.redirectUrl), {
        headers: { accept: 'application/json' },
      });
      assert.equal(back.status, 201, back.text);
      assert.deepEqual(seen.splice(0), [{ source: '3ds-return', params: { shop: 'alpha' }, orderReference: 'o-3ds' }]);

      const plain = { cardToken: await cardToken(sb), orderReference: 'o-plain', email: 'a@b.co' };
      assert.equal((await pay('alpha', plain)).status, 201);
      await forget(plain.cardToken);
      // Before, the provider replayed alpha's charge to beta's request: 201 on beta's page for a payment to alpha.
      const replayed = await pay('beta', plain);
      assert.equal(replayed.status, 409, replayed.text);
      // Under its own shop the provider still replays the one charge.
      const again = await pay('alpha', plain);
      assert.equal(again.status, 201, again.text);
      assert.deepEqual(seen.splice(0), [{ source: 'charge', params: { shop: 'alpha' }, orderReference: 'o-plain' }]);
    } finally {
      await shops.close();
    }
  });

  it('tells apart shops whose paths differ only in what a record leaves out: a name over 256 characters, a wildcard', async () => {
    const shops = await shopsHelper();
    const { sb, app, helper, seen, forget } = shops;
    try {
      // Express 5 gives a wildcard's segments as an array, which a record leaves out as it leaves out a long name.
      const express5 = typeof (express.request as { param?: unknown }).param !== 'function';
      if (express5) app.use('/tenants/*tenant/payments', helper);
      const alpha = 'alpha'.repeat(60);
      const beta = 'beta-'.repeat(60);
      const pay = shops.pay;

      // A charge whose onCharge failed: before, its retry under beta's path got alpha's 201 and beta's onCharge.
      const plain = { cardToken: await cardToken(sb), orderReference: 'o-plain', email: 'a@b.co' };
      shops.failing = true;
      assert.equal((await pay(alpha, plain)).json.code, 'TESSERA_ON_CHARGE_FAILED');
      shops.failing = false;
      const elsewhere = await pay(beta, plain);
      assert.equal(elsewhere.status, 409, elsewhere.text);
      assert.equal(elsewhere.json.code, 'TESSERA_CARD_TOKEN_USED');
      assert.deepEqual(seen, []);
      assert.equal((await pay(alpha, plain)).status, 201);
      assert.deepEqual(seen.splice(0), [{ source: 'charge', params: { shop: alpha }, orderReference: 'o-plain' }]);
      // The answer forgotten: before, the same idempotency key made the provider replay alpha's charge to beta.
      await forget(plain.cardToken);
      const replayed = await pay(beta, plain);
      assert.equal(replayed.status, 409, replayed.text);
      assert.equal((await pay(alpha, plain)).status, 201);

      // 3-D Secure: the charge's record keeps the digest of its parameters, so its final answer is still alpha's.
      const threeDs = { cardToken: await cardToken(sb, '4000000000003220'), orderReference: 'o-3ds', email: 'a@b.co' };
      const started = await pay(alpha, threeDs);
      assert.equal(started.status, 202, started.text);
      assert.equal((await pay(beta, threeDs)).status, 409);
      const back = await call(await answerChallenge(sb, started.json.redirectUrl), {
        headers: { accept: 'application/json' },
      });
      assert.equal(back.status, 201, back.text);
      // The return hands onCharge what the record keeps: the long name is missing, never another shop's.
      assert.deepEqual(seen.splice(0), [{ source: '3ds-return', params: {}, orderReference: 'o-3ds' }]);
      assert.equal((await pay(alpha, threeDs)).status, 201);
      assert.equal((await pay(beta, threeDs)).status, 409);

      if (express5) {
        const token = { cardToken: await cardToken(sb), orderReference: 'o-wild', email: 'a@b.co' };
        assert.equal((await pay('alpha/eu', token, 'tenants')).status, 201);
        assert.equal((await pay('beta/eu', token, 'tenants')).status, 409);
        assert.equal((await pay('alpha/eu', token, 'tenants')).status, 201);
        assert.deepEqual(seen.splice(0), [
          { source: 'charge', params: { tenant: ['alpha', 'eu'] }, orderReference: 'o-wild' },
        ]);
      }
    } finally {
      await shops.close();
    }
  });

  it('keeps at most 16 mount-path parameters of plain strings, each name and value at most 256 characters', () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, `v${i}`]));
    assert.deepEqual(Object.keys(mountParams(many)), Object.keys(many).slice(0, MOUNT_PARAMS_MAX));
    assert.deepEqual(
      mountParams({
        shop: 'alpha',
        rest: ['a', 'b'],
        n: 1,
        long: 'x'.repeat(MOUNT_PARAM_CHARS + 1),
        [`${'y'.repeat(MOUNT_PARAM_CHARS + 1)}`]: 'v',
      }),
      { shop: 'alpha' },
    );
    const proto = mountParams(JSON.parse('{"__proto__":"x"}'));
    assert.equal(Object.getPrototypeOf(proto), Object.prototype);
    assert.deepEqual(Object.entries(proto), [['__proto__', 'x']]);
    for (const none of [null, undefined, 'shop', ['a'], 7]) assert.deepEqual(mountParams(none), {});
  });
});

describe('redactingLogger', () => {
  it('masks card numbers in short and long text alike, cuts secrets and JWTs, and keeps request ids as they are', () => {
    const { logger, log } = captureLogger();
    const secret = 'sk_sbox_tessera0demo0secret0key0000001';
    const redacting = redactingLogger(logger, [secret]);
    const requestId = `hreq_${randomUUID()}`;
    redacting.info(
      {
        requestId,
        short: '㊷㊷㊷㊷㊷㊷㊷㊷',
        long: 'paid with 4242 4242 4242 4242 today',
        header: `Bearer ${secret}`,
        note: 'got eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl',
        orderReference: 'order-1',
      },
      `charge for ㊷㊷㊷㊷㊷㊷㊷㊷`,
    );
    const [line] = log.lines;
    assert.equal(line!.requestId, requestId);
    assert.equal(line!.short, '[redacted-card]');
    assert.equal(line!.long, 'paid with [redacted-card] today');
    assert.equal(line!.header, 'Bearer [redacted]');
    assert.equal(line!.note, 'got [redacted-jwt]');
    assert.equal(line!.orderReference, 'order-1');
    assert.equal(line!.msg, 'charge for [redacted-card]');
  });

  it('masks a card number logged as a number or a bigint, and writes every other number as the number it is', () => {
    const { logger, log } = captureLogger();
    redactingLogger(logger, []).warn({
      card: 4242424242424242,
      big: 4242424242424242n,
      nested: { values: [5555555555554444, 1795729501401] },
      status: 402,
      at: 1795729501401,
      amount: 4299.5,
    });
    const [line] = log.lines;
    assert.equal(line!.card, '[redacted-card]');
    assert.equal(line!.big, '[redacted-card]');
    assert.deepEqual(line!.nested, { values: ['[redacted-card]', 1795729501401] });
    assert.equal(line!.status, 402);
    assert.equal(line!.at, 1795729501401);
    assert.equal(line!.amount, 4299.5);
  });

  it('cleans the keys of a line itself as it cleans those nested in it: a card number or a secret as a key name', () => {
    const { logger, log } = captureLogger();
    const secret = 'sk_sbox_tessera0demo0secret0key0000001';
    // A merchant's own line, keyed by what a request sent (a form field's name, a header's): before, only keys nested
    // in a value were cleaned, and these were written as they were.
    const err = new Error('boom');
    redactingLogger(logger, [secret]).error(
      {
        '4242 4242 4242 4242': 'card as a field name',
        [4111111111111111]: 1,
        [`x-${secret}`]: 'a secret as a header name',
        nested: { '5555555555554444': 2 },
        [`https://user:hunter2hunter2@shop.example/`]: 3,
        [`failure 4242424242424242`]: err,
        event: 'shop.form',
      },
      'form',
    );
    const [line] = log.lines;
    const text = JSON.stringify(line);
    for (const leak of ['4242424242424242', '4242 4242 4242 4242', '4111111111111111', secret, 'hunter2hunter2']) {
      assert.ok(!text.includes(leak), `${leak} in ${text}`);
    }
    assert.equal(line!.event, 'shop.form');
    assert.deepEqual(line!.nested, { '[redacted-card]': 2 });
    assert.ok('x-[redacted]' in line!, text);
    assert.equal(line!['https://user:[redacted]@shop.example/'], 3);
    // An Error under a cleaned key is still written in its shape.
    assert.equal((line!['failure [redacted-card]'] as { message?: unknown }).message, 'boom');
  });

  it('masks a card number a logged URL or form holds with its groups parted by +, %20 or %2D', () => {
    const { logger, log } = captureLogger();
    // Each was written as it was: the `+` taken for a phone number's, the escapes putting digits between the groups.
    redactingLogger(logger, []).info(
      {
        url: '/pay?card=4242+4242+4242+4242&exp=12',
        form: 'pan=5555%205555%205555%204444',
        referer: 'https://shop.example/pay?card=4242%2D4242%2D4242%2D4242',
        phone: '+44 20 7946 0958',
      },
      'GET /pay?card=4242%204242%204242%204242 failed',
    );
    const [line] = log.lines;
    assert.equal(line!.url, '/pay?card=[redacted-card]&exp=12');
    assert.equal(line!.form, 'pan=[redacted-card]');
    assert.equal(line!.referer, 'https://shop.example/pay?card=[redacted-card]');
    assert.equal(line!.phone, '+44 20 7946 0958');
    assert.equal(line!.msg, 'GET /pay?card=[redacted-card] failed');
  });

  it('masks a card number a logged URL or form holds with its groups parted by percent-encoded UTF-8, or its digits so written', () => {
    const { logger, log } = captureLogger();
    // Each was written as it was: the escapes' hex digits between the groups.
    redactingLogger(logger, []).info(
      {
        url: '/pay?card=4242%C2%A04242%C2%A04242%C2%A04242&exp=12',
        form: 'pan=5555%E3%80%805555%E3%80%805555%E3%80%804444',
        referer:
          'https://shop.example/pay?return=%2Fpay%3Fcard%3D4242%25E2%2580%25894242%25E2%2580%25894242%25E2%2580%25894242',
        digits: `n=${encodeURIComponent('４２４２４２４２４２４２４２４２')}`,
        name: `name=${encodeURIComponent('Renée 😀 你好')}&order=4242424242424241`,
      },
      'GET /pay?card=4242%E2%80%8B4242%E2%80%8B4242%E2%80%8B4242 failed',
    );
    const [line] = log.lines;
    assert.equal(line!.url, '/pay?card=[redacted-card]&exp=12');
    assert.equal(line!.form, 'pan=[redacted-card]');
    assert.equal(line!.referer, 'https://shop.example/pay?return=%2Fpay%3Fcard%3D[redacted-card]');
    assert.equal(line!.digits, 'n=[redacted-card]');
    assert.equal(line!.name, `name=${encodeURIComponent('Renée 😀 你好')}&order=4242424242424241`);
    assert.equal(line!.msg, 'GET /pay?card=[redacted-card] failed');
  });

  it('masks a card number a logged text holds in HTML or JavaScript character references, references and all', () => {
    const { logger, log } = captureLogger();
    redactingLogger(logger, []).info(
      {
        note: 'card 4242&#32;4242&#32;4242&#32;4242 thanks',
        html: '<p>5555&nbsp;5555&nbsp;5555&nbsp;4444</p>',
        source: 'const pan = "4242\\u00204242\\u00204242\\u00204242";',
        url: '/pay?note=4242%26%2332%3B4242%26%2332%3B4242%26%2332%3B4242&exp=12',
        quoted: '&#39;order 4242424242424241&#39; &amp; co',
      },
      'stored note &#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;&#52;&#50;',
    );
    const [line] = log.lines;
    assert.equal(line!.note, 'card [redacted-card] thanks');
    assert.equal(line!.html, '<p>[redacted-card]</p>');
    assert.equal(line!.source, 'const pan = "[redacted-card]";');
    assert.equal(line!.url, '/pay?note=[redacted-card]&exp=12');
    assert.equal(line!.quoted, '&#39;order 4242424242424241&#39; &amp; co');
    assert.equal(line!.msg, 'stored note [redacted-card]');
  });

  it('cuts the password of a URL with user info out of free text and keeps the rest of the URL', () => {
    const { logger, log } = captureLogger();
    const redacting = redactingLogger(logger, []);
    const cases: [string, string][] = [
      [
        'connect ECONNREFUSED redis://default:hunter2hunter2@redis.example:6379/0',
        'connect ECONNREFUSED redis://default:[redacted]@redis.example:6379/0',
      ],
      [
        'proxy https://alice:s3cr3t@proxy.example:8080/ failed',
        'proxy https://alice:[redacted]@proxy.example:8080/ failed',
      ],
      ['redis://:pw@h', 'redis://:[redacted]@h'],
      ['rediss://u:p@ss:w@rd@cache.example', 'rediss://u:[redacted]@cache.example'],
      [
        '{"url":"https://u:p@a.example","mail":"x@y.example"}',
        '{"url":"https://u:[redacted]@a.example","mail":"x@y.example"}',
      ],
      [
        'a https://a.example:8080/p?q=u:p@x and b http://b.example:1@',
        'a https://a.example:8080/p?q=u:p@x and b http://b.example:[redacted]@',
      ],
      [
        'no password https://user@host.example/ or a port https://host.example:443/',
        'no password https://user@host.example/ or a port https://host.example:443/',
      ],
    ];
    for (const [text] of cases) redacting.info({ text, err: new Error(text) }, text);
    for (const [i, [text, cut]] of cases.entries()) {
      const line = log.lines[i]!;
      assert.equal(line.text, cut, text);
      assert.equal(line.msg, cut, text);
      assert.equal((line.err as { message: string }).message, cut, text);
    }
  });

  it('cuts URL passwords in linear time on long hostile text', () => {
    const redacting = redactingLogger({ debug() {}, info() {}, warn() {}, error() {} }, []);
    for (const unit of ['a', '://', '://a', '://a:', '://:', 'a:', '@', '://a:@', 'a://b:c@', ':/', 'https://']) {
      for (const text of [
        unit.repeat(Math.ceil(65_536 / unit.length)),
        `://a:${unit.repeat(Math.ceil(65_536 / unit.length))}`,
      ]) {
        const ms = fastestMsSync(() => redacting.info({ text }, text), 1000);
        assert.ok(ms < 1000, `${unit}: ${ms.toFixed(0)} ms`);
      }
    }
  });

  it('cleans the message of an Error it is given, as it cleans any other text', () => {
    // pino writes an error's message whole; the helper logs the errors it answers 5xx, a merchant its own.
    const { logger, log } = captureLogger();
    const secret = 'sk_sbox_tessera0demo0secret0key0000001';
    const err = new Error(`card 4242 4242 4242 4242 refused for ${secret} with eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl`);
    redactingLogger(logger, [secret]).error({ event: 'tessera.error', err }, 'failed');
    const line = log.lines[0]!;
    assert.equal(
      (line.err as { message?: unknown }).message,
      'card [redacted-card] refused for [redacted] with [redacted-jwt]',
    );
    assert.ok(!log.text().includes(secret) && !log.text().includes('4242 4242'), log.text());
  });

  for (const [setup, loggerOptions] of LOGGER_SETUPS) {
    it(`writes an Error as its type, message, own fields, stack and cause chain, each cleaned, with ${setup}`, () => {
      const { logger, log } = captureLogger(loggerOptions);
      const driver = Object.assign(new Error(`ECONNRESET while sending ${SECRET} to ${URL_WITH_PASSWORD}`), {
        code: 'ECONNRESET',
        errno: -104,
        command: { name: 'set', args: ['k', CARD] },
      });
      const pool = new TypeError(`pool exhausted for card ${CARD}`, { cause: driver });
      const err = new AggregateError([new RangeError(`bad ${JWT}`)], 'the store could not be used', { cause: pool });
      let deep: Record<string, unknown> = { leaf: `${CARD} ${SECRET}` };
      for (let i = 0; i < 12; i++) deep = { deep };
      redactingLogger(logger, [SECRET]).error({ event: 'tessera.error', err, deep }, 'failed');
      const logged = log.lines[0]!.err as Logged;
      // Before, pino's own serializer ran on the cleaned copy: `type: "Object"`, the causes folded into the message,
      // a stack of "\ncaused by: ", and no nested cause.
      assert.deepEqual(withoutStacks(logged), {
        type: 'AggregateError',
        message: 'the store could not be used',
        errors: [{ type: 'RangeError', message: 'bad [redacted-jwt]' }],
        cause: {
          type: 'TypeError',
          message: 'pool exhausted for card [redacted-card]',
          cause: {
            type: 'Error',
            message: `ECONNRESET while sending [redacted] to ${URL_CUT}`,
            code: 'ECONNRESET',
            errno: -104,
          },
        },
      });
      assertStacks(logged);
      assert.match(
        logged.cause!.cause!.stack!,
        /^Error: ECONNRESET while sending \[redacted\] to redis:\/\/default:\[redacted\]@/,
      );
      // A value nested deeper than the walk is cut, never passed on as it was.
      assert.ok(log.text().includes('[too deep]'), log.text());
      assertNothingSecret(log.text());
    });
  }

  it('writes an Error logged on its own (`log.error(err)`) under `err`, as pino does, with its message as `msg`', () => {
    const { logger, log } = captureLogger();
    redactingLogger(logger, [SECRET]).error(new Error(`refused ${SECRET}`));
    const line = log.lines[0]!;
    assert.equal(line.msg, 'refused [redacted]');
    assert.deepEqual(withoutStacks(line.err as Logged), { type: 'Error', message: 'refused [redacted]' });
    assertStacks(line.err as Logged);
  });

  it('writes the same shape to a logger that is not pino, and a readable line for an error whose getters throw', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = (obj: object) => void lines.push(obj as Record<string, unknown>);
    const log = redactingLogger({ debug: sink, info: sink, warn: sink, error: sink }, [SECRET]);
    const hostile = new Error('x');
    Object.defineProperty(hostile, 'code', { enumerable: true, get: () => assert.fail('read') });
    log.error({ err: new Error('outer', { cause: Object.assign(new Error(SECRET), { code: 'E1' }) }) });
    log.error({ err: hostile });
    assert.deepEqual(withoutStacks(lines[0]!.err as Logged), {
      type: 'Error',
      message: 'outer',
      cause: { type: 'Error', message: '[redacted]', code: 'E1' },
    });
    // Only the part whose getter threw is unreadable: the message and stack are still written.
    assert.deepEqual(withoutStacks(lines[1]!.err as Logged), { type: 'Error', message: 'x', code: UNREADABLE });
  });

  it('hides the value of a field named like a security code, under any of its usual names', () => {
    const { logger, log } = captureLogger();
    redactingLogger(logger, []).info({
      body: { cvv: '123', securityCode: '1234', card_code: '999', CVC2: 321, cid: 'c-42' },
    });
    assert.deepEqual(log.lines[0]!.body, {
      cvv: '[redacted]',
      securityCode: '[redacted]',
      card_code: '[redacted]',
      CVC2: '[redacted]',
      cid: 'c-42',
    });
  });
});

describe('errors in the helper’s log', () => {
  let sb: RunningSandbox;
  const running: RunningHelper[] = [];
  before(async () => {
    sb = await startSandbox();
  });
  after(async () => {
    for (const h of running) await h.close();
    await sb.close();
  });

  const charge = async (h: RunningHelper) =>
    call(`${h.url}/charges`, {
      body: { cardToken: await cardToken(sb), orderReference: `order-${randomUUID()}`, email: 'a@shop.example' },
    });
  const errorLine = (h: RunningHelper) => {
    const lines = h.log.lines.filter((l) => l.event === 'tessera.error');
    assert.equal(lines.length, 1, JSON.stringify(h.log.lines));
    return lines[0]!.err as Logged;
  };

  it('a hook that throws a value whose getters throw: its JSON 500 and a log line, never the error handler failing', async () => {
    const throwing = () => {
      throw new Error('getter threw');
    };
    const hostile: unknown[] = [
      Object.defineProperty(new Error('hostile'), 'code', { enumerable: true, get: throwing }),
      Object.defineProperty({}, 'message', { enumerable: true, get: throwing }),
    ];
    for (const [i, value] of hostile.entries()) {
      const h = await startHelper({
        ...legacyHelperOptions(sb),
        startupKeyCheck: false,
        resolveCharge: () => {
          throw value;
        },
      });
      running.push(h);
      const r = await charge(h);
      // Before, reading the getter for the log line threw in the error handler: Express's HTML page with the stack.
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.code, 'TESSERA_RESOLVE_CHARGE_FAILED', r.text);
      const logged = errorLine(h);
      assert.equal(logged.type, 'HelperHttpError');
      const expected = i === 0 ? { type: 'Error', message: 'hostile', code: UNREADABLE } : UNREADABLE;
      assert.deepEqual(i === 0 ? withoutStacks(logged.cause!) : logged.cause, expected);
      // The hook's own line writes it in the same shape.
      const line = h.log.lines.find((l) => l.event === 'tessera.resolve_charge.failed')!;
      assert.deepEqual(i === 0 ? withoutStacks(line.cause as Logged) : line.cause, expected);
    }
  });

  for (const [setup, loggerOptions] of LOGGER_SETUPS) {
    it(`a provider 5xx: the helper's error and the provider's under it, each with its type and fields, with ${setup}`, async () => {
      const h = await startHelper(
        { ...legacyHelperOptions(sb), startupKeyCheck: false, resolveCharge: () => ({ amount: 100, currency: 'EUR' }) },
        loggerOptions,
      );
      running.push(h);
      await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', status: 503, phase: 'before', count: 1 });
      const r = await charge(h);
      assert.equal(r.status, 503, r.text);
      const logged = errorLine(h);
      const cause = logged.cause!;
      assert.match(String(cause.requestId), /^req_/);
      assert.match(String(cause.idempotencyKey), /^tessera-charge-/);
      assert.deepEqual(withoutStacks(logged), {
        type: 'HelperHttpError',
        message: r.json.message,
        code: 'TESSERA_PROVIDER_UNAVAILABLE',
        status: 503,
        outcomeKnown: false,
        cause: {
          type: 'ProviderServerError',
          message:
            'POST /api2/v2/charges/token failed with HTTP 503 (injected_fault): fault injected by the sandbox (HTTP 503)',
          code: 'TESSERA_PROVIDER_UNAVAILABLE',
          status: 503,
          requestId: cause.requestId,
          outcomeKnown: false,
          operation: 'POST /api2/v2/charges/token',
          idempotencyKey: cause.idempotencyKey,
          attempts: 1,
        },
      });
      assertStacks(logged);
      assertNothingSecret(h.log.text());
      assert.ok(!h.log.text().includes(sb.credentials.secretKey), h.log.text());
    });

    it(`a connection reset at the provider: provider.error writes the error's class, fields and undici's cause, with ${setup}`, async () => {
      const h = await startHelper(
        { ...legacyHelperOptions(sb), startupKeyCheck: false, resolveCharge: () => ({ amount: 100, currency: 'EUR' }) },
        loggerOptions,
      );
      running.push(h);
      await fault(sb, { method: 'POST', path: '/api2/v2/charges/token', reset: true, count: 1 });
      const r = await charge(h);
      assert.equal(r.status, 502, r.text);
      const line = h.log.lines.find((l) => l.event === 'provider.error')!;
      const logged = line.err as Logged;
      // Before, the line had the message only: not the class, nor undici's error and its code under it.
      assert.deepEqual(withoutStacks(logged), {
        type: 'NetworkError',
        message: line.message,
        code: 'TESSERA_NETWORK',
        outcomeKnown: false,
        operation: 'POST /api2/v2/charges/token',
        idempotencyKey: logged.idempotencyKey,
        attempts: 1,
        cause: { type: 'SocketError', message: 'other side closed', code: 'UND_ERR_SOCKET' },
      });
      assert.match(String(logged.idempotencyKey), /^tessera-charge-/);
      assertStacks(logged);
      assertNothingSecret(h.log.text());
    });

    it(`a store failure whose cause holds a card number, a URL password and the secret key: all cut, with ${setup}`, async () => {
      const driver = Object.assign(
        new Error(`ECONNRESET writing ${CARD} to ${URL_WITH_PASSWORD} as ${sb.credentials.secretKey}`),
        { code: 'ECONNRESET', errno: -104, syscall: 'write' },
      );
      const pool = new Error(`no connection for ${CARD}`, { cause: driver });
      const store = requiredMethods(new MemoryStore(), { claim: () => Promise.reject(pool) });
      const h = await startHelper(
        {
          ...legacyHelperOptions(sb),
          startupKeyCheck: false,
          startupStoreCheck: false,
          rateLimits: NO_RATE_LIMITS,
          store,
          resolveCharge: () => ({ amount: 100, currency: 'EUR' }),
        },
        loggerOptions,
      );
      running.push(h);
      const r = await charge(h);
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.code, 'TESSERA_STORE_UNAVAILABLE');
      const logged = errorLine(h);
      assert.deepEqual(withoutStacks(logged), {
        type: 'StoreUnavailableError',
        message: 'the store could not be used',
        code: 'TESSERA_STORE_UNAVAILABLE',
        status: 503,
        outcomeKnown: true,
        cause: {
          type: 'Error',
          message: 'no connection for [redacted-card]',
          cause: {
            type: 'Error',
            message: `ECONNRESET writing [redacted-card] to ${URL_CUT} as [redacted]`,
            code: 'ECONNRESET',
            errno: -104,
            syscall: 'write',
          },
        },
      });
      assertStacks(logged);
      assertNothingSecret(h.log.text());
      assert.ok(!h.log.text().includes(sb.credentials.secretKey), h.log.text());
    });
  }
});
