import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root, found by walking up from this file (works from sources and from dist/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("a2a-router: package.json not found above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export function schemasDir(): string {
  return join(packageRoot(), "schemas");
}
