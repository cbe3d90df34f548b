// Preloaded into a measured child (`node --import`): writes the process's peak RSS (MB, all
// threads) to the file named by BENCH_RSS_FILE when it exits.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, String(Math.round(process.resourceUsage().maxRSS / 1024)));
  });
}
