// Tests of the hash router's parsing, run by hack/web.sh with node --test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { rolloutRoute } from "./route";

test("a rollout's address names its namespace and name, decoded", () => {
  assert.deepEqual(rolloutRoute("#/rollouts/shop/web"), { ns: "shop", name: "web" });
  assert.deepEqual(rolloutRoute("#/rollouts/shop/a%2Fb"), { ns: "shop", name: "a/b" });
});

test("any other address, or one that does not decode, is the list", () => {
  assert.equal(rolloutRoute("#/"), null);
  assert.equal(rolloutRoute(""), null);
  assert.equal(rolloutRoute("#/rollouts/shop"), null);
  assert.equal(rolloutRoute("#/rollouts/%E0%A4%A/web"), null);
  assert.equal(rolloutRoute("#/rollouts/shop/%"), null);
});
