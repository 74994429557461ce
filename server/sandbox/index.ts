/** `tessera/sandbox`: a faithful, stateful local copy of the provider. */
export { VirtualClock } from './clock.js';
