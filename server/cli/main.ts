/**
 * The `tessera-pay` command. Each subcommand lives in its own module and is loaded
 * only when asked for, so `tessera-pay --help` stays instant.
 */

interface Subcommand {
  readonly summary: string;
  readonly run: (args: string[]) => Promise<number>;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  demo: {
    summary: 'run the demo shop and platform dashboard on the embedded sandbox',
    run: async (args) => {
      let demo: typeof import('../../demo/cli.js');
      try {
        demo = await import('../../demo/cli.js');
      } catch (err) {
        // Express is an optional peer dependency: the widget, the clients and the sandbox do without it.
        if (!missingExpress(err)) throw err;
        console.error('tessera-pay demo: the demo runs on Express, which is not installed here: npm install express');
        return 1;
      }
      return demo.runDemoCommand(args);
    },
  },
  sandbox: {
    summary: 'run the local provider (legacy card API and the rest) on one port',
    run: async (args) => (await import('../sandbox/cli.js')).runSandboxCommand(args),
  },
};

/** Whether `err` is the failure to load the `express` package itself (not a module inside it, nor another package). */
function missingExpress(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.startsWith("Cannot find package 'express'")
  );
}

export function helpText(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((n) => n.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: tessera-pay <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `tessera-pay <command> --help` for the options of one command.',
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and the script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(helpText());
    return 0;
  }
  const command = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (!command) {
    console.error(`tessera-pay: unknown command ${JSON.stringify(name)}\n`);
    console.error(helpText());
    return 2;
  }
  return command.run(rest);
}
