import { expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TASK_ERROR_REASONS, type TaskErrorReason } from "../../router/core/errors.js";
import { A2A_REASON_NAMES } from "../../router/dialects/index.js";
import { REASON_ERRORS as REST_REASON_ERRORS } from "../../router/faces/rest/errors.js";
import { REASON_CODES, RPC_ERROR_CODES } from "../../router/rpc/errors.js";
import { packageRoot } from "../../router/schema/paths.js";

test("docs/errors.md lists exactly the codes of the error table", () => {
  const doc = readFileSync(join(packageRoot(), "docs", "errors.md"), "utf8");
  const rows = [...doc.matchAll(/^\| (-\d+) \| (\w+) \|/gm)].map((m) => [m[2], Number(m[1])]);
  expect(Object.fromEntries(rows)).toEqual(RPC_ERROR_CODES);
});

test("docs/errors.md's reason table is each face's table: JSON-RPC code, v1.0 ErrorInfo reason, HTTP+JSON status", () => {
  const doc = readFileSync(join(packageRoot(), "docs", "errors.md"), "utf8");
  const rows = [...doc.matchAll(/^\| ([a-z-]+) \| (-\d+) \| ([A-Z_]+|-) \| (\d+) ([A-Z_]+) \|$/gm)];
  expect(rows.map((m) => m[1]).sort()).toEqual([...TASK_ERROR_REASONS].sort());
  for (const [, reason, code, name, http, status] of rows) {
    const r = reason as TaskErrorReason;
    expect([r, Number(code), name === "-" ? undefined : name, Number(http), status]).toEqual([
      r,
      REASON_CODES[r],
      A2A_REASON_NAMES[r],
      REST_REASON_ERRORS[r].http,
      REST_REASON_ERRORS[r].status,
    ]);
  }
});
