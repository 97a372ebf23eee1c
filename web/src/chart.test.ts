// Tests of the plot's parsing, run by hack/web.sh with node --test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { points, thresholds, value } from "./chart";

test("value reads numbers, JSON numbers and the first number of a list", () => {
  assert.equal(value("0.5"), 0.5);
  assert.equal(value("[0.02]"), 0.02);
  assert.equal(value('["3", 4]'), 3);
  assert.equal(value("[1.5e-3]"), 0.0015);
  assert.ok(isNaN(value("")));
  assert.ok(isNaN(value("[]")));
  assert.ok(isNaN(value("{\"a\":1}")));
  assert.ok(isNaN(value("pending")));
});

test("thresholds are the numbers a condition compares with", () => {
  assert.deepEqual(thresholds("result[0] < 0.05"), [0.05]);
  assert.deepEqual(thresholds("result >= 95 && result <= 100"), [95, 100]);
  assert.deepEqual(thresholds("len(result) == 0 || result[0] > -1.5e2"), [0, -150]);
  assert.deepEqual(thresholds(undefined), []);
  assert.deepEqual(thresholds("result == 'ok'"), []);
});

test("points keep numeric measurements at their finish time", () => {
  const ps = points([
    { phase: "Successful", value: "[1]", finishedAt: "2026-11-28T12:00:00Z" },
    { phase: "Error", message: "timeout" },
    { phase: "Failed", value: "7", startedAt: "2026-11-28T12:01:00Z" },
  ]);
  assert.deepEqual(ps.map((p) => [p.t, p.v, p.phase]), [
    [Date.parse("2026-11-28T12:00:00Z"), 1, "Successful"],
    [Date.parse("2026-11-28T12:01:00Z"), 7, "Failed"],
  ]);
});
