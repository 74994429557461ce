import type { AddressInfo } from 'node:net';
import express from 'express';
import helmet from 'helmet';
import { loadWidgetAsset, WIDGET_FILE } from '../server/helper/index.js';
import { shopPage } from './pages.js';

export interface DemoOptions {
  /** Port of the demo site; 0 picks a free one. */
  readonly port?: number;
  readonly host?: string;
}

export interface RunningDemo {
  /** Base URL of the demo site, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the demo site and resolves once it is listening. */
export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const widget = loadWidgetAsset();
  const app = express();
  app.disable('x-powered-by');
  app.use(helmet());
  app.get(`/widget/${WIDGET_FILE}`, (_req, res) => {
    res.type('text/javascript').set('Cache-Control', 'public, max-age=31536000, immutable').send(widget.body);
  });
  app.get('/', (_req, res) => {
    res.type('html').send(shopPage({ widgetSrc: `/widget/${WIDGET_FILE}`, integrity: widget.integrity }));
  });

  const server = app.listen(options.port ?? 3000, options.host ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
