/**
 * An error an endpoint answers with. Each API area renders it in its own body
 * shape (legacy: `errors[]`; accounts: `error_codes[]`), so route code only says
 * what went wrong: status, a stable code, a message, and the field when one is to blame.
 */
export class SandboxError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  /** Extra fields merged into the rendered body (e.g. 409 links). */
  readonly extra: Record<string, unknown> | undefined;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { field?: string; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'SandboxError';
    this.status = status;
    this.code = code;
    this.field = options.field;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

/** Several field problems at once (a validation error naming each field). */
export class SandboxValidationError extends SandboxError {
  readonly issues: readonly { field: string; code: string; message: string }[];

  constructor(issues: readonly { field: string; code: string; message: string }[], status = 422) {
    const first = issues[0];
    super(status, first?.code ?? 'validation_error', first?.message ?? 'validation error', { field: first?.field });
    this.name = 'SandboxValidationError';
    this.issues = issues;
  }
}
