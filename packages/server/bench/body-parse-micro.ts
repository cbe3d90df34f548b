/**
 * The JSON body path alone (issue 20 item 4, session 13): a Fastify app with only the body
 * parsing plugin (PLUGIN=path of a body-parsing.ts, default this tree's) and one bulk route,
 * in a child process; the parent POSTs REQUESTS bodies of EDGES import-shaped edges (about
 * 90 bytes each) over real HTTP and prints the server process's CPU time (user + system) for
 * them. Not part of `pnpm bench`.
 *
 * Run: EDGES=50000 REQUESTS=20 npx tsx --tsconfig bench/tsconfig.json bench/body-parse-micro.ts
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const EDGES = Number(process.env.EDGES ?? 50_000);
const REQUESTS = Number(process.env.REQUESTS ?? 20);

if (process.env.BODY_MICRO_ROLE === 'server') {
  const { default: Fastify } = await import('fastify');
  const pluginPath =
    process.env.PLUGIN ?? fileURLToPath(new URL('../src/http/plugins/body-parsing.ts', import.meta.url));
  const { bodyParsingPlugin } = (await import(
    pluginPath
  )) as typeof import('../src/http/plugins/body-parsing');
  const app = Fastify({ bodyLimit: 1024 * 1024 });
  await app.register(bodyParsingPlugin, { importBodyLimit: 32 * 1024 * 1024 });
  app.post('/bulk', { config: { isBulkBody: true } }, async (request) => ({
    edges: (request.body as { edges: unknown[] }).edges.length,
  }));
  let since = process.cpuUsage();
  let faultsSince = process.resourceUsage().minorPageFault;
  app.get('/cpu', async () => {
    const used = process.cpuUsage(since);
    const faults = process.resourceUsage().minorPageFault;
    since = process.cpuUsage();
    const answer = { userMs: used.user / 1000, systemMs: used.system / 1000, faults: faults - faultsSince };
    faultsSince = faults;
    return answer;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
} else {
  const edges = Array.from({ length: EDGES }, (_, i) => ({
    from: `article-${String(i % 20000).padStart(6, '0')}`,
    to: `article-${String((i * 7 + 1) % 20000).padStart(6, '0')}`,
    type: 'RELATED_TO',
    props: {},
  }));
  const payload = JSON.stringify({ edges });
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, BODY_MICRO_ROLE: 'server' },
    execArgv: process.execArgv,
  });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m: { port: number }) => resolve(m.port)),
  );
  const base = `http://127.0.0.1:${port}`;
  const post = async () => {
    const res = await fetch(`${base}/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: payload,
    });
    const answer = (await res.json()) as { edges: number };
    if (answer.edges !== EDGES) throw new Error(`answered ${JSON.stringify(answer)}`);
  };
  for (let i = 0; i < 3; i += 1) await post(); // warm-up
  await fetch(`${base}/cpu`);
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i += 1) await post();
  const ms = performance.now() - started;
  const cpu = (await (await fetch(`${base}/cpu`)).json()) as {
    userMs: number;
    systemMs: number;
    faults: number;
  };
  const per = (x: number) => (x / REQUESTS).toFixed(1);
  console.log(
    `${process.env.LABEL ?? ''} body ${(payload.length / 1e6).toFixed(2)} MB x${REQUESTS}: server CPU/request ${per(cpu.userMs + cpu.systemMs)} ms (user ${per(cpu.userMs)}, system ${per(cpu.systemMs)}; ${per(cpu.faults)} minor page faults), wall/request ${per(ms)} ms, load ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 1)}`,
  );
  child.kill();
}
