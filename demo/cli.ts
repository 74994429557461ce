import { parseArgs } from 'node:util';
import { startDemo } from './server.js';

const HELP = `Usage: tessera demo [--port N] [--host H]

Runs the demo site. The port defaults to $PORT, else 3000.`;

/** `tessera demo`: starts the demo and runs until Ctrl-C. */
export async function runDemoCommand(args: string[]): Promise<number> {
  let values: { port?: string; host?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    console.error(`tessera demo: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(
      `tessera demo: --port must be an integer from 0 to 65535, got ${JSON.stringify(values.port ?? process.env.PORT)}`,
    );
    return 2;
  }
  const demo = await startDemo({ port, host: values.host });
  console.log(`Tessera demo running\n  Shop:      ${demo.url}/`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await demo.close();
  return 0;
}
