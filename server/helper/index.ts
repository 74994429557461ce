/** `tessera/server`: the Express helper a merchant mounts on its own server. */
export { loadWidgetAsset, WIDGET_FILE, type WidgetAsset } from './widget-asset.js';
