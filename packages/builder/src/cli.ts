#!/usr/bin/env node
import { Command } from 'commander';
import { runBuildCommand } from './cli/run-build-command';

const program = new Command()
  .name('cms-build')
  .description(
    'Build a Trellis site from a snapshot file or the live API into a folder or the directory deploy target',
  )
  .option('--snapshot <file>', 'site snapshot JSON (GET /api/export)')
  .option('--api <url>', 'Trellis server base URL')
  .option('--key <key>', 'API key for --api')
  .option('--site <id>', 'site id for --api, e.g. site:blog')
  .option('--out <dir>', 'output folder')
  .option('--target <name>', 'dir (write into --out) or directory (versions + current symlink)', 'dir')
  .option('--env <name>', 'environment', 'dev')
  .option('--mode <mode>', 'full, incremental, auto or validate', 'incremental')
  .option('--workers <n>', 'render worker threads')
  .option('--json', 'print the build result as JSON')
  .action(async (options) => {
    process.exitCode = await runBuildCommand(options, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      isTty: Boolean(process.stderr.isTTY),
    });
  });

await program.parseAsync();
