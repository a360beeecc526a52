/**
 * Where the local model is found: the env variables, the project's `.llama/` install, and a `python3` on
 * PATH that can `import xllamacpp` (the model file comes from the env variable or `.llama/model/`).
 * Real Pythons only: the PATH candidates are scripts that run the project's installed Python, with
 * its site-packages (it has xllamacpp) or without them (`-S`: it has not).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeNeeding } from '../helpers/component';
import {
  findLocalModel,
  LLAMA_INSTALL_HINT,
  LLAMA_MODEL_ENV,
  LLAMA_PYTHON_ENV,
  projectLocalModelPaths,
} from '../../apps/cli/dev-server/local-model';
import { packageRoot } from '../../apps/cli/dev-server/temporal-cli';

const installed = projectLocalModelPaths(packageRoot());
const missing = (() => {
  try {
    return findLocalModel({}, packageRoot())?.source === 'project'
      ? undefined
      : `the local model is not installed in .llama/: ${LLAMA_INSTALL_HINT}`;
  } catch (err) {
    return (err as Error).message;
  }
})();

describeNeeding(
  'local model lookup order',
  'the local model',
  process.platform === 'win32' ? 'POSIX shell scripts stand in for python3 on PATH' : missing,
  () => {
    let dir = '';
    let withLlama = ''; // a folder whose python3 can import xllamacpp
    let withoutLlama = ''; // a folder whose python3 cannot
    let empty = ''; // a folder with no python3, and a package root with no .llama/

    const python3In = (folder: string, extra: string) => {
      mkdirSync(folder);
      const file = join(folder, 'python3');
      writeFileSync(file, `#!/bin/sh\nexec '${installed.python}' ${extra} "$@"\n`);
      chmodSync(file, 0o755);
      return file;
    };

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'llama-lookup-'));
      withLlama = join(dir, 'with');
      withoutLlama = join(dir, 'without');
      empty = join(dir, 'empty');
      python3In(withLlama, '');
      python3In(withoutLlama, '-S');
      mkdirSync(empty);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('a python3 on PATH with xllamacpp serves the model named by the env variable when there is no project install', () => {
      const found = findLocalModel({ PATH: [empty, withLlama].join(delimiter), [LLAMA_MODEL_ENV]: installed.model }, empty);
      expect(found).toEqual({ python: join(withLlama, 'python3'), model: installed.model, source: 'path' });
    });

    it('only the first python3 on PATH is asked, and one that cannot import xllamacpp is not used', () => {
      const env = { PATH: [withoutLlama, withLlama].join(delimiter), [LLAMA_MODEL_ENV]: installed.model };
      expect(findLocalModel(env, empty)).toBeUndefined();
    });

    it('without a model file, a python3 on PATH is not enough', () => {
      expect(findLocalModel({ PATH: withLlama }, empty)).toBeUndefined();
    });

    it("the project's pinned install wins over a python3 on PATH", () => {
      expect(findLocalModel({ PATH: withLlama }, packageRoot())).toEqual({
        python: installed.python,
        model: installed.model,
        source: 'project',
      });
    });

    it('the env variable wins over the project install and PATH', () => {
      const python = join(withLlama, 'python3');
      expect(findLocalModel({ PATH: withoutLlama, [LLAMA_PYTHON_ENV]: python }, packageRoot())).toEqual({
        python,
        model: installed.model,
        source: 'env',
      });
    });
  },
);
