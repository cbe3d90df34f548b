// Drives the installed packages (see run.sh): run from the empty project they were installed into.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@trelliscms/sdk';

const bin = (name) => join(process.cwd(), 'node_modules', '.bin', name);
const dataDir = mkdtempSync(join(tmpdir(), 'trellis-pack-data-'));
const home = mkdtempSync(join(tmpdir(), 'trellis-pack-home-'));
const env = {
  ...process.env,
  CMS_DATA_DIR: dataDir,
  PORT: '0',
  LOG_LEVEL: 'warn',
  XDG_CONFIG_HOME: home,
  HOME: home,
};
let server;

function step(name) {
  process.stdout.write(`pack test: ${name}\n`);
}

function cms(args, input) {
  const run = spawnSync(bin('cms'), args, { env, input, encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(`cms ${args.join(' ')} exited ${run.status}: ${run.stderr}${run.stdout}`);
  return run.stdout;
}

try {
  step('trellis-server starts on an empty data directory');
  server = spawn(bin('trellis-server'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  server.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const { url, key } = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no first-start notice within 120 s:\n${out}\n${err}`)),
      120_000,
    );
    server.on('exit', (code) => reject(new Error(`server exited ${code}:\n${out}\n${err}`)));
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const address =
        /Trellis listening on (http:\/\/[^\s"]+)/.exec(out) ?? /API:\s+(http:\/\/\S+)\/api/.exec(out);
      const token = /\n\s+(tk_[A-Za-z0-9_-]+)\n/.exec(out);
      if (address && token) {
        clearTimeout(timer);
        resolve({ url: address[1], key: token[1] });
      }
    });
  });

  step('the SDK answers');
  const client = createClient({ baseUrl: url, apiKey: key });
  const health = await client.health.get();
  if (health.status !== 'ok') throw new Error(`health: ${JSON.stringify(health)}`);

  step('cms logs in, creates a site from a starter kit and builds it');
  cms(['--version']);
  cms(['login', '--url', url, '--key', key]);
  cms(['sites', 'create', 'Pack test', '--slug', 'pack', '--starter-kit', 'author', '--use']);
  cms(['build', '--env', 'dev', '--mode', 'full']);
  const page = await fetch(`${url}/sites/pack/dev/`);
  if (page.status !== 200 || !(await page.text()).includes('<html'))
    throw new Error(`home page: ${page.status}`);

  step('cms-build builds the exported snapshot into a folder');
  const snapshot = join(home, 'snapshot.json');
  writeFileSync(snapshot, JSON.stringify(await client.site('site:pack').export.snapshot()));
  const outDir = join(home, 'site');
  const built = spawnSync(bin('cms-build'), ['--snapshot', snapshot, '--out', outDir, '--env', 'dev'], {
    env,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`cms-build exited ${built.status}: ${built.stderr}${built.stdout}`);
  readFileSync(join(outDir, 'index.html'), 'utf8');
  step('ok');
} finally {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.on('exit', resolve));
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
