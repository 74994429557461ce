/**
 * The helper's card-number guard. The rule lives in `server/common/pan.ts`, shared with the provider clients'
 * redactor and the sandbox's request log; see docs/decisions/helper.md#helper-pan-guard.
 */
export {
  containsPan,
  findPan,
  jsonMayHoldPan,
  jsonNumbersHoldPan,
  jsonStringsHoldPan,
  MAX_DEPTH,
  maskPans,
} from '../common/pan.js';
