import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseSandboxArgs } from '../../../server/sandbox/cli.js';
import { DEFAULT_CREDENTIALS } from '../../../server/sandbox/index.js';
import { call } from '../../support/http.js';
import { accessToken, authed, callWithHost, requests, V3 } from './accounts-support.js';
import { TEST_TLS_CERT, TEST_TLS_KEY } from './tls-fixture.js';

// Runs `tessera-pay <args>` from the sources (server/cli/main.ts through tsx), so no build is needed; the import is
// absolute so the command can run from any folder, as `npx tessera-pay` does.
const MAIN = new URL('../../../server/cli/main.ts', import.meta.url).href;
const RUN = `const { main } = await import(${JSON.stringify(MAIN)}); process.exitCode = await main(process.argv.slice(1));`;
// tsx by absolute URL too: from another folder a bare `tsx` would not resolve.
const TSX = import.meta.resolve('tsx');
const nodeArgs = (args: string[]) => ['--import', TSX, '--input-type=module', '-e', RUN, '--', ...args];

function tessera(args: string[], env: Record<string, string> = {}, cwd?: string) {
  return spawnSync(process.execPath, nodeArgs(args), {
    ...(cwd ? { cwd } : {}),
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, ...env },
  });
}

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stdout: () => string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `tessera-pay sandbox <args>` and resolves once it printed its URL. */
function startCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Running> {
  const child = spawn(process.execPath, nodeArgs(['sandbox', ...args]), {
    env: { ...process.env, ...env },
    ...(cwd ? { cwd } : {}),
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${out} ${err}`)), 20_000);
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m && out.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1]!,
          stdout: () => out,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${err}`));
    });
  });
}

/** A card token from the sandbox at `url` (the default public key, a test card that approves). */
function cardToken(url: string) {
  return call(`${url}/api2/v2/tokens/card`, {
    body: { number: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 1, cvv: '123' },
    headers: { authorization: DEFAULT_CREDENTIALS.publicKey },
  });
}

describe('tessera-pay sandbox (CLI)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--help prints the options and exits 0; `tessera-pay --help` lists the command', () => {
    const r = tessera(['sandbox', '--help']);
    assert.equal(r.status, 0, r.stderr);
    for (const option of [
      '--port',
      '--host',
      '--mode',
      '--tls-cert',
      '--tls-key',
      '--fixtures',
      '--max-card-tokens',
      '--max-payment-tokens',
      '--max-customers',
      '--max-charges',
      '--max-entities',
      '--max-stored-instruments',
      'entity_limit_reached',
      'instrument_limit_reached',
      '--control-host',
      'TESSERA_SANDBOX_CONTROL_HOSTS',
    ]) {
      assert.match(r.stdout, new RegExp(option));
    }
    assert.match(tessera(['--help']).stdout, /^ {2}sandbox\s+/m);
  });

  it('refuses bad options with exit 2 and a line naming the option', () => {
    // A few through the real command (exit 2, the line on stderr); the parser's every refusal is the next test,
    // in process (each case here is a CLI start of 1–3 s, on each Node version CI runs).
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--port', 'eighty'], {}, /--port must be an integer from 0 to 65535, got "eighty"/],
      [
        [],
        { TESSERA_SANDBOX_CONTROL_HOSTS: 'ok.internal, bad name' },
        /TESSERA_SANDBOX_CONTROL_HOSTS "bad name" must be/,
      ],
      [['--colour'], {}, /Unknown option '--colour'/],
      [['--host', '0.0.0.0', '--port', '0'], {}, /refusing to bind "0\.0\.0\.0" without TLS/],
    ];
    for (const [args, env, message] of cases) {
      const r = tessera(['sandbox', ...args], env);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    const badFixtures = join(dir, 'bad.json');
    writeFileSync(badFixtures, JSON.stringify({ legacy: { customers: [{ id: 'nope', email: 'a@b.co' }] } }));
    const r = tessera(['sandbox', '--port', '0', '--fixtures', badFixtures]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /invalid fixtures at legacy\.customers\.0\.id/);
  });

  it('refuses every bad option or variable with an error naming it (in process)', () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--port', 'eighty'], {}, /--port must be an integer from 0 to 65535, got "eighty"/],
      [['--port', '70000'], {}, /--port must be an integer from 0 to 65535/],
      [[], { TESSERA_SANDBOX_PORT: 'abc' }, /TESSERA_SANDBOX_PORT must be an integer/],
      [['--mode', 'live'], {}, /--mode must be "sandbox" or "production", got "live"/],
      [['--tls-cert', 'cert.pem'], {}, /--tls-cert and --tls-key go together/],
      [['--tls-cert', '/nonexistent/c.pem', '--tls-key', '/nonexistent/k.pem'], {}, /--tls-cert: cannot read/],
      [['--fixtures', '/nonexistent/f.json'], {}, /--fixtures: cannot read "\/nonexistent\/f.json"/],
      [['--fixtures', ''], {}, /--fixtures must name a file or "demo"/],
      [['--max-card-tokens', '0'], {}, /--max-card-tokens must be an integer from 1 to 100000000, got "0"/],
      [['--max-charges', 'lots'], {}, /--max-charges must be an integer from 1 to 100000000, got "lots"/],
      [['--max-customers', '100000001'], {}, /--max-customers must be an integer from 1 to 100000000/],
      [['--max-payment-tokens=1.5'], {}, /--max-payment-tokens must be an integer from 1 to 100000000, got "1.5"/],
      [['--max-card-tokens', '9'.repeat(5000)], {}, /--max-card-tokens must be an integer from 1 to 100000000/],
      [['--colour'], {}, /Unknown option '--colour'/],
      [['extra'], {}, /Unexpected argument 'extra'/],
      [
        ['--control-host', 'http://sandbox.internal:4010'],
        {},
        /--control-host "http:\/\/sandbox\.internal:4010" must be a host name without scheme, port or path; did you mean "sandbox\.internal"\?/,
      ],
      [['--control-host', '*.internal'], {}, /--control-host "\*\.internal" must name one host/],
      [['--control-host='], {}, /--control-host "" must be a host name/],
      [
        [],
        { TESSERA_SANDBOX_CONTROL_HOSTS: 'ok.internal, bad name' },
        /TESSERA_SANDBOX_CONTROL_HOSTS "bad name" must be/,
      ],
      // Too many names are refused under the flag's or the variable's name, not the library option's.
      [
        Array.from({ length: 101 }, (_, i) => ['--control-host', `h${i}.internal`]).flat(),
        {},
        /--control-host names 101 hosts; at most 100 may be given/,
      ],
      [
        [],
        { TESSERA_SANDBOX_CONTROL_HOSTS: Array.from({ length: 101 }, (_, i) => `h${i}.internal`).join(',') },
        /TESSERA_SANDBOX_CONTROL_HOSTS names 101 hosts; at most 100 may be given/,
      ],
    ];
    for (const [args, env, message] of cases) {
      assert.throws(
        () => parseSandboxArgs(args, env),
        message,
        `${args.join(' ').slice(0, 60)} ${JSON.stringify(env).slice(0, 60)}`,
      );
    }
  });

  it('parses every --max-… flag into its limits option, and refuses a bad value naming the flag', () => {
    // In process: each case here would otherwise cost a CLI start.
    const parsed = parseSandboxArgs(
      [
        ...['--max-card-tokens', '3', '--max-payment-tokens', '4', '--max-customers', '5', '--max-charges', '6'],
        ...['--max-entities', '1', '--max-stored-instruments=100000000'],
      ],
      {},
    );
    assert.notEqual(parsed, 'help');
    assert.deepEqual(parsed === 'help' ? undefined : parsed.limits, {
      maxCardTokens: 3,
      maxPaymentTokens: 4,
      maxCustomers: 5,
      maxCharges: 6,
      maxEntities: 1,
      maxStoredInstruments: 100_000_000,
    });
    for (const flag of ['--max-entities', '--max-stored-instruments']) {
      for (const bad of ['0', '-1', '100000001', '1.5', '1e3', 'lots', '', ' 5', '9'.repeat(5000)]) {
        const shown = JSON.stringify(bad).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        assert.throws(
          () => parseSandboxArgs([`${flag}=${bad}`], {}),
          { message: new RegExp(`^${flag} must be an integer from 1 to 100000000, got ${shown}$`) },
          `${flag}=${bad.slice(0, 20)}`,
        );
      }
    }
  });

  it('starts, prints URL, mode and keys, serves the legacy API, and stops cleanly on SIGTERM', async () => {
    const fixtures = join(dir, 'fixtures.json');
    writeFileSync(
      fixtures,
      JSON.stringify({ legacy: { customers: [{ id: 'cust_fixture1', email: 'fix@example.com' }] } }),
    );
    const sb = await startCli(['--port', '0', '--fixtures', fixtures]);
    try {
      assert.match(sb.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const out = sb.stdout();
      assert.match(out, /mode: sandbox/);
      assert.ok(out.includes(DEFAULT_CREDENTIALS.publicKey));
      assert.ok(out.includes(DEFAULT_CREDENTIALS.secretKey), 'the secret is shown in sandbox mode');
      assert.match(out, /\/api2\/v2/);
      const token = await cardToken(sb.url);
      assert.equal(token.status, 200);
      const charge = await call(`${sb.url}/api2/v2/charges/token`, {
        body: { cardToken: token.json.id, value: 100, currency: 'USD', customerId: 'cust_fixture1' },
        headers: { authorization: DEFAULT_CREDENTIALS.secretKey },
      });
      assert.equal(charge.status, 200, charge.text);
      assert.equal(charge.json.email, 'fix@example.com', 'the fixture customer exists');
    } finally {
      assert.equal(await sb.stop('SIGTERM'), 0);
    }
    assert.match(sb.stdout(), /Tessera sandbox stopped\./);
  });

  // One start for every `--max-…` flag that needs a running sandbox to show it applies (each start costs a second).
  it('--max-card-tokens drops the oldest card token beyond it; --max-entities and --max-stored-instruments refuse beyond theirs (422)', async () => {
    const sb = await startCli([
      '--port',
      '0',
      '--max-card-tokens',
      '2',
      '--max-entities',
      '1',
      '--max-stored-instruments',
      '1',
    ]);
    try {
      const tokens: string[] = [];
      for (let i = 0; i < 3; i++) {
        const token = await cardToken(sb.url);
        assert.equal(token.status, 200, token.text);
        tokens.push(token.json.id as string);
      }
      const charge = (cardToken: string) =>
        call(`${sb.url}/api2/v2/charges/token`, {
          body: { cardToken, value: 100, currency: 'USD', email: 'cap@example.com' },
          headers: { authorization: DEFAULT_CREDENTIALS.secretKey },
        });
      const oldest = await charge(tokens[0]!);
      assert.notEqual(oldest.status, 200);
      assert.match(oldest.text, /card_token_unknown/);
      assert.equal((await charge(tokens[2]!)).status, 200);
      // The Account Services caps refuse rather than drop: the first record is kept, the next one is 422.
      const access = await accessToken({ url: sb.url, credentials: DEFAULT_CREDENTIALS });
      const onboard = (reference: string) =>
        call(`${sb.url}/accounts/entities`, {
          headers: authed(access, { accept: V3 }),
          body: requests.individualGb(reference),
        });
      assert.equal((await onboard('first')).status, 201);
      const second = await onboard('second');
      assert.equal(second.status, 422, second.text);
      assert.deepEqual(second.json.error_codes, ['entity_limit_reached']);
      const store = async () =>
        call(`${sb.url}/instruments`, {
          headers: authed(access),
          body: { type: 'token', token: (await cardToken(sb.url)).json.id },
        });
      assert.equal((await store()).status, 201);
      const noRoom = await store();
      assert.equal(noRoom.status, 422, noRoom.text);
      assert.deepEqual(noRoom.json.error_codes, ['instrument_limit_reached']);
    } finally {
      assert.equal(await sb.stop('SIGTERM'), 0);
    }
  });

  it('--control-host (else TESSERA_SANDBOX_CONTROL_HOSTS) names the hosts the controls answer at besides IP and localhost', async () => {
    const sb = await startCli(['--port', '0', '--control-host', 'sandbox.internal', '--control-host', 'sb.test'], {
      TESSERA_SANDBOX_CONTROL_HOSTS: 'from-env.internal',
    });
    try {
      const port = new URL(sb.url).port;
      for (const [host, status] of [
        [`sandbox.internal:${port}`, 200],
        ['sb.test', 200],
        [`127.0.0.1:${port}`, 200],
        // The flags win over the variable, as --port does over TESSERA_SANDBOX_PORT.
        ['from-env.internal', 421],
        [`evil.example:${port}`, 421],
      ] as const) {
        assert.equal((await callWithHost(`${sb.url}/_sandbox/clock`, host)).status, status, host);
      }
    } finally {
      assert.equal(await sb.stop(), 0);
    }
    const env = await startCli(['--port', '0'], { TESSERA_SANDBOX_CONTROL_HOSTS: ' a.internal, ,b.internal ' });
    try {
      for (const [host, status] of [
        ['a.internal', 200],
        ['b.internal', 200],
        ['c.internal', 421],
      ] as const) {
        assert.equal((await callWithHost(`${env.url}/_sandbox/clock`, host)).status, status, host);
      }
    } finally {
      assert.equal(await env.stop(), 0);
    }
  });

  it('stops cleanly on Ctrl-C (SIGINT) too, and takes its port from TESSERA_SANDBOX_PORT', async () => {
    const sb = await startCli([], { TESSERA_SANDBOX_PORT: '0' });
    assert.match(sb.url, /:\d+$/);
    assert.equal(await sb.stop('SIGINT'), 0);
  });

  it('hides the secrets in production mode and serves the live paths', async () => {
    const sb = await startCli(['--port', '0', '--mode', 'production']);
    try {
      const out = sb.stdout();
      assert.match(out, /mode: production/);
      assert.ok(!out.includes(DEFAULT_CREDENTIALS.secretKey));
      assert.ok(!out.includes(DEFAULT_CREDENTIALS.clientSecret));
      assert.match(out, /\/v2 \(/);
      assert.equal((await call(`${sb.url}/_sandbox/test-cards`)).status, 404);
    } finally {
      await sb.stop();
    }
  });

  it('serves HTTPS with --tls-cert/--tls-key, also on a non-loopback bind', async () => {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    writeFileSync(cert, TEST_TLS_CERT);
    writeFileSync(key, TEST_TLS_KEY);
    const sb = await startCli(['--port', '0', '--host', '127.0.0.1', '--tls-cert', cert, '--tls-key', key]);
    try {
      assert.match(sb.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${sb.url}/_sandbox/test-cards`, { ca: TEST_TLS_CERT }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(status, 200);
    } finally {
      await sb.stop();
    }
    const open = await startCli(['--port', '0', '--host', '0.0.0.0', '--tls-cert', cert, '--tls-key', key]);
    assert.match(open.url, /^https:\/\/0\.0\.0\.0:\d+$/);
    await open.stop();
  });

  describe('--fixtures from another folder', () => {
    /** `GET path` of the Account Services API with an access token of the default OAuth client. */
    async function accountsGet(url: string, path: string) {
      const token = await accessToken({ url, credentials: DEFAULT_CREDENTIALS });
      return call(`${url}${path}`, { headers: authed(token, { accept: V3 }) });
    }

    it('`--fixtures demo` loads the demo platform shipped in the package, whatever the current folder', async () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'tessera-cwd-'));
      const sb = await startCli(['--port', '0', '--fixtures', 'demo'], {}, elsewhere);
      try {
        for (const id of ['ent_demo_a', 'ent_demo_b']) {
          assert.equal((await accountsGet(sb.url, `/accounts/entities/${id}`)).status, 200, id);
        }
        const rule = await accountsGet(sb.url, '/accounts/entities/ent_demo_b/reserve-rules/rsv_demo_b_active');
        assert.equal(rule.status, 200, rule.text);
        const pi = await accountsGet(
          sb.url,
          '/accounts/entities/ent_demo_a/payment-instruments/ppi_demo_a_bank_verified',
        );
        assert.equal(pi.status, 200, pi.text);
      } finally {
        assert.equal(await sb.stop(), 0);
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });

    it('reads a relative --fixtures path from the folder of the caller, and names the resolved path when it is missing', async () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'tessera-cwd-'));
      try {
        writeFileSync(
          join(elsewhere, 'mine.json'),
          JSON.stringify({ legacy: { customers: [{ id: 'cust_fromcwd1', email: 'cwd@example.com' }] } }),
        );
        const sb = await startCli(['--port', '0', '--fixtures', 'mine.json'], {}, elsewhere);
        try {
          const token = await cardToken(sb.url);
          const charge = await call(`${sb.url}/api2/v2/charges/token`, {
            body: { cardToken: token.json.id, value: 100, currency: 'USD', customerId: 'cust_fromcwd1' },
            headers: { authorization: DEFAULT_CREDENTIALS.secretKey },
          });
          assert.equal(charge.json.email, 'cwd@example.com', 'the customer of the file in the folder of the caller');
        } finally {
          assert.equal(await sb.stop(), 0);
        }
        // `demo/fixtures/platform.json` is a path of the repository, not of the caller's folder.
        const r = tessera(['sandbox', '--port', '0', '--fixtures', 'demo/fixtures/platform.json'], {}, elsewhere);
        assert.equal(r.status, 2);
        assert.ok(
          r.stderr.includes(`cannot read ${JSON.stringify(join(elsewhere, 'demo/fixtures/platform.json'))}`),
          r.stderr,
        );
        assert.match(r.stderr, /"demo": the demo platform/, 'the help names the shortcut');
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });
  });
});
