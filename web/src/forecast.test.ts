// Tests of the forecast's wording, run by hack/web.sh with node --test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { figures } from "./forecast";

test("a canary point reads weight, actual, pods and its gate", () => {
  assert.equal(figures({ index: 2, kind: "step", step: "pause", weight: "40%", actual: "40%", canary: 2, stable: 3, gate: "paused until promoted" }),
    "40% (actual 40%), canary 2, stable 3; paused until promoted");
  assert.equal(figures({ index: 3, kind: "step", step: "setWeight: 60", weight: "60%", actual: "60%", canary: 3, stable: 2 }),
    "60% (actual 60%), canary 3, stable 2");
});

test("a blue-green point reads new and old pods and what the active Service selects", () => {
  assert.equal(figures({ index: -1, kind: "switch", step: "switch", canary: 4, stable: 4, active: "new", gate: "the active Service switches" }),
    "new 4, old 4, active new; the active Service switches");
});
