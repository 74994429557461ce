// The helper finds the widget bundle through the package root; the rule lives in server/common (the sandbox's CLI needs it too).
export { packageRoot } from '../common/package-root.js';
