/** The changes tracker's file port over node:fs (the extension uses workspace.fs): real files in a temp folder. */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FilePort } from '../../extension/changes/changeStore.ts';

export const nodeFiles: FilePort = {
  async read(path) {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  },
  async write(path, text) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  },
  async delete(path) {
    await rm(path);
  },
  async list(dir) {
    try {
      return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
    } catch {
      return [];
    }
  },
};
