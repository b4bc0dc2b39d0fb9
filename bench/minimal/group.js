"use strict";
const { collection } = require("./http");

module.exports = collection(
  "/iam/v2beta1/groups",
  (inputs) => inputs.parentUid,
  (inputs) => ({ name: inputs.name, description: inputs.description }),
);
