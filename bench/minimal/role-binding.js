"use strict";
const { collection } = require("./http");

module.exports = collection(
  "/iam/v2beta1/roleBindings",
  (inputs) => inputs.groupUid,
  (inputs) => ({ identityUid: inputs.identityUid, roleUid: inputs.roleUid }),
);
