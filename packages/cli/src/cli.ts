#!/usr/bin/env node
import * as fs from 'node:fs/promises';
import { processStdin } from './io/process-stdin';
import { run } from './program';

// The bin is only this: real process I/O in, exit code out.
run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  fs,
  cwd: process.cwd(),
  stdin: processStdin(),
  onInterrupt: (handler) => {
    let pressed = false;
    const listener = () => {
      // A second Ctrl-C while the first is being handled ends the process the usual way.
      if (pressed) process.exit(130);
      pressed = true;
      handler();
    };
    process.on('SIGINT', listener);
    return () => process.off('SIGINT', listener);
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `cms: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
