// Child process: one Eleventy build of the generated project; prints a JSON line.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Eleventy from '@11ty/eleventy';

// The output folder: `_site` in the project (emptied first), or a fresh folder the bench gives.
const [projectDir, outputDir] = process.argv.slice(2);
process.chdir(projectDir);
if (outputDir)
  process.env.BENCH_ELEVENTY_OUTPUT = outputDir; // read by the project's config
else rmSync(join(projectDir, '_site'), { recursive: true, force: true });
const started = performance.now();
const cpu0 = process.cpuUsage();
const elev = new Eleventy('src', '_site', {
  quietMode: true,
  configPath: 'eleventy.config.mjs',
});
elev.disableLogger?.();
const results = await elev.write();
const fullMs = Math.round(performance.now() - started);
const cpu = process.cpuUsage(cpu0);
const fullCpuMs = Math.round((cpu.user + cpu.system) / 1000);
const pages = Array.isArray(results) ? results.flat().length : null;
process.stdout.write(
  `${JSON.stringify({ fullMs, fullCpuMs, pages, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
);
