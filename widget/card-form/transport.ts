/**
 * The widget's network code: the helper's `/config`, the provider's card-token request, and what their answers
 * mean for the shopper and the page. Every failure is thrown as a {@link Failure}, which the element shows and
 * dispatches as `tessera-error`. No DOM beyond `fetch` and `document.baseURI`.
 */
import type { Brand } from '../../shared/card/brands.js';
import { secureUrl } from '../../shared/url.js';
import type { Strings } from '../i18n/strings.js';
import type { CardErrorDetail, CardField, ConfigReason } from './events.js';
import { FIELDS, refusedMessage } from './messages.js';

/** What the helper's `/config` answers (server/helper); anything else is ignored. */
export interface RemoteConfig {
  publicKey?: unknown;
  cardTokenUrl?: unknown;
  environment?: unknown;
}

/** The parts of the token endpoint's answer the widget reads; anything else is ignored. */
interface Answer {
  id?: unknown;
  card?: { last4?: unknown; bin?: unknown };
  errorCode?: unknown;
  requestId?: unknown;
  errors?: { field?: unknown }[];
}

/**
 * A failure: the `tessera-error` detail (its undefined entries are dropped), and for a misconfiguration in sandbox
 * mode the console hint, warned once as `TESSERA_<REASON>: <hint>` (docs/DECISIONS.md#widget-config-errors).
 */
export type Failure = Pick<CardErrorDetail, 'code' | 'message'> & {
  [K in Exclude<keyof CardErrorDetail, 'code' | 'message'>]?: CardErrorDetail[K] | undefined;
} & { hint?: string | undefined };

/** Where and how to ask for a token: the public key, the token URL, and whether this is sandbox mode. */
export type Endpoint = readonly [key: string, url: URL, sandbox: boolean];

/** `value` if it is a string (answers are read defensively: nothing else reaches an event). */
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Sandbox mode, as far as the widget can tell: the helper's config says so, else a sandbox key (`pk_sbox_…`, the
 * helper's own test) or no key at all (nothing shows the page is live).
 */
const isSandbox = (key: string, config?: RemoteConfig) =>
  config?.environment ? config.environment === 'sandbox' : !key || key.includes('_sbox_');

const misconfigured = (
  s: Strings,
  sandbox: boolean,
  reason: ConfigReason,
  hint: string,
  url?: string,
  status?: number,
): Failure => ({ code: 'config', reason, message: s.unavailable, url, status, hint: sandbox ? hint : undefined });

/** The hint for a URL that answered the wrong thing: `http://…/config answered 404 text/html`. */
const answered = (url: URL, r: Response) => `${url} answered ${r.status} ${r.headers.get('content-type')}`;

const networkFailure = (s: Strings): Failure => ({ code: 'network', message: s.network });

/**
 * The helper's config from `configUrl`. A URL that answers anything but a JSON object (a 404 page, the site's HTML
 * because the helper is mounted elsewhere) is `config_unavailable`; an unreachable one is a network failure.
 */
export async function loadConfig(configUrl: string, key: string, s: Strings): Promise<RemoteConfig> {
  const sandbox = isSandbox(key);
  const url = secureUrl(configUrl, document.baseURI);
  if (!url) throw misconfigured(s, sandbox, 'insecure_url', configUrl, configUrl);
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch {
    throw networkFailure(s);
  }
  const config: unknown = await response.json().catch(() => undefined);
  if (response.ok && config && typeof config === 'object') return config;
  throw misconfigured(s, sandbox, 'config_unavailable', answered(url, response), url.href, response.status);
}

/** The public key and token URL from the properties, else from the helper's config. */
export function endpoint(publicKey: string, tokenUrl: string, config: RemoteConfig | undefined, s: Strings): Endpoint {
  const key = publicKey || str(config?.publicKey) || '';
  const url = tokenUrl || str(config?.cardTokenUrl);
  const sandbox = isSandbox(key, config);
  if (!key) throw misconfigured(s, sandbox, 'no_public_key', 'set public-key or config-url');
  const safe = url && secureUrl(url, document.baseURI);
  if (!safe) {
    throw url
      ? misconfigured(s, sandbox, 'insecure_url', url, url)
      : misconfigured(s, sandbox, 'no_token_url', 'set token-url or config-url');
  }
  return [key, safe, sandbox];
}

/** The token endpoint's answer to a card it accepted. */
export interface TokenAnswer {
  readonly id: string;
  readonly card: { readonly last4?: unknown; readonly bin?: unknown };
}

/**
 * Posts the card to the token endpoint; resolves with the token's id and card facts. A provider's refusal is
 * mapped to a field where it names one (docs/DECISIONS.md#widget-errors); an answer that cannot come from the
 * token endpoint (a 404 or 405, a page that is not JSON, a 2xx without a token) is `token_endpoint_invalid`.
 */
export async function requestToken(
  [key, url, sandbox]: Endpoint,
  body: string,
  s: Strings,
  brand: Brand | undefined,
): Promise<TokenAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: key },
      body,
      credentials: 'omit',
      referrerPolicy: 'origin',
    });
  } catch {
    throw networkFailure(s);
  }
  const answer = (await response.json().catch(() => undefined)) as Answer | undefined;
  const { ok, status } = response;
  if (ok && str(answer?.id)?.startsWith('card_tok_') && answer?.card) return answer as TokenAnswer;
  if (status < 500 && (ok || !answer || status === 404 || status === 405)) {
    throw misconfigured(s, sandbox, 'token_endpoint_invalid', answered(url, response), url.href, status);
  }
  const rejected = String(answer?.errors?.[0]?.field);
  const field = (/^expiry/.test(rejected) ? 'expiry' : FIELDS.find((f) => f === rejected)) as CardField | undefined;
  throw {
    code: 'provider',
    message: field
      ? refusedMessage(s, field, brand)
      : status >= 400 && status < 500 && status !== 401 && status !== 403
        ? s.declined
        : s.unavailable,
    status,
    field,
    providerCode: str(answer?.errorCode),
    requestId: str(answer?.requestId),
  } satisfies Failure;
}
