/**
 * The `tessera` command. Each subcommand lives in its own module and is loaded
 * only when asked for, so `tessera --help` stays instant.
 */

interface Subcommand {
  readonly summary: string;
  readonly run: (args: string[]) => Promise<number>;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  demo: {
    summary: 'run the demo shop and platform dashboard on the embedded sandbox',
    run: async (args) => (await import('../../demo/cli.js')).runDemoCommand(args),
  },
  sandbox: {
    summary: 'run the local provider (legacy card API and the rest) on one port',
    run: async (args) => (await import('../sandbox/cli.js')).runSandboxCommand(args),
  },
};

export function helpText(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((n) => n.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: tessera <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `tessera <command> --help` for the options of one command.',
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
    console.error(`tessera: unknown command ${JSON.stringify(name)}\n`);
    console.error(helpText());
    return 2;
  }
  return command.run(rest);
}
