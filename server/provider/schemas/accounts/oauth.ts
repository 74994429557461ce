// Account Services API schemas: OAuth (DESIGN.md: token endpoint; RFC 6749 §4.4, §5.1, §5.2).
import { z } from 'zod';

/** The scopes the sandbox knows (docs/decisions/sandbox.md#oauth-scopes). */
export const ACCOUNT_SCOPES = ['accounts', 'vault:real-time-account-updater', 'vault:instruments'] as const;
export type AccountScope = (typeof ACCOUNT_SCOPES)[number];

/** `POST {auth_url}/connect/token` form body (client credentials grant). */
export const tokenRequestSchema = z.object({
  grant_type: z.string().min(1),
  client_id: z.string().min(1).max(200).optional(),
  client_secret: z.string().min(1).max(500).optional(),
  /** Space-separated scopes; absent = every scope the client may have. */
  scope: z.string().max(1000).optional(),
});
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  /** Lifetime in seconds from issue (sandbox clock). */
  expires_in: z.number().int().positive(),
  /** Space-separated granted scopes. */
  scope: z.string(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** The RFC 6749 §5.2 error codes that blame the client's request (the sandbox answers these by name). */
export const OAUTH_CLIENT_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;

/** RFC 6749 §5.2 error body (plus the request id every sandbox error carries). */
export const oauthErrorSchema = z.object({
  error: z.enum([...OAUTH_CLIENT_ERRORS, 'server_error', 'temporarily_unavailable']).or(z.string()),
  error_description: z.string().optional(),
  request_id: z.string().optional(),
});
export type OAuthError = z.infer<typeof oauthErrorSchema>;
