/**
 * What every free-text field of both provider APIs refuses (docs/decisions/sandbox.md#legacy-text): C0/C1 controls
 * (NUL included), the bidi embedding, override and isolate controls that can make text read as something else, and
 * broken UTF-16. One rule for both APIs' schemas.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSAFE_TEXT_MESSAGE = 'must not contain control or bidirectional-override characters';
export const BROKEN_TEXT_MESSAGE = 'must be well-formed Unicode';

/** Whether `s` holds a control or bidi-control character. */
export const hasUnsafeChars = (s: string): boolean => UNSAFE_CHARS.test(s);
/** Whether `s` holds a lone surrogate (not well-formed Unicode). */
export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);
