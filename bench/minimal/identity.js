"use strict";
const { collection } = require("./http");

module.exports = collection(
  "/iam/v2beta1/identities",
  (inputs) => inputs.parentUid,
  (inputs) => ({ name: inputs.name, claimMatch: inputs.claimMatch }),
);
