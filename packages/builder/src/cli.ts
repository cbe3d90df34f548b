#!/usr/bin/env node
import { Command } from 'commander';
import { sizeHeap } from './cli/heap-size';
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
  .option(
    '--max-heap <mb>',
    "the build thread's heap limit in MB (default: 4 × the snapshot file's size + 512 MB when above node's own, at most half the machine's memory)",
  )
  .action(async (options) => {
    // a large snapshot needs more heap than node's default: this process starts itself again with it
    const relaunched = await sizeHeap(options, (text) => process.stderr.write(text));
    if (relaunched !== null) {
      process.exitCode = relaunched;
      return;
    }
    process.exitCode = await runBuildCommand(options, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      isTty: Boolean(process.stderr.isTTY),
    });
  });

await program.parseAsync();
