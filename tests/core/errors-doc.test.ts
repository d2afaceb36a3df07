import { expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RPC_ERROR_CODES } from "../../router/rpc/errors.js";
import { packageRoot } from "../../router/schema/paths.js";

test("docs/errors.md lists exactly the codes of the error table", () => {
  const doc = readFileSync(join(packageRoot(), "docs", "errors.md"), "utf8");
  const rows = [...doc.matchAll(/^\| (-\d+) \| (\w+) \|/gm)].map((m) => [m[2], Number(m[1])]);
  expect(Object.fromEntries(rows)).toEqual(RPC_ERROR_CODES);
});
